// PUT /api/sessions/:id/mode {"mode": "plan"}: the user switches the session's
// approval mode (never the model: no tool reaches this). 200 with the
// session's snapshot once the switch is durable; 400 for an unknown mode; 404
// for an unknown session; 409 when another instance runs the session; 507
// when the log refuses the switch (then nothing changed).
import type express from 'express';
import { parseModeBody } from '../../shared/modes.js';
import type { Sessions } from '../sessions/sessions.js';

export function addModeRoute(app: express.Express, sessions: Sessions): void {
  app.put('/api/sessions/:id/mode', async (req, res) => {
    const live = await sessions.open(String(req.params.id));
    if (!live) return void res.status(404).json({ error: 'unknown session' });
    const parsed = parseModeBody(req.body);
    if (!parsed.ok) return void res.status(400).json({ error: parsed.error });
    const changed = live.agent.setMode(parsed.value); // ReadOnlySessionError: 409, LogWriteError: 507 (the app's error handler)
    await live.session.durable();
    res.json({ ...live.session.snapshot(), changed });
  });
}
