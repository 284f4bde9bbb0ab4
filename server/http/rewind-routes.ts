// Rewind: what putting the files back to an event would change (a preview,
// with the diff), and doing it, with the conversation forked there or not.
import { PROJECT_REMOVED, projectGone } from './project-gone.js';
import { runningActions } from './worktree-running.js';
import type express from 'express';
import { ROUTES } from '../../shared/wire/rest.js';
import { parseWith } from '../../shared/wire/validate.js';
import type { Sessions } from '../sessions/sessions.js';
import { checkpointsOf } from '../agent/tool-runner.js';
import { ForkPointError } from '../manage/fork.js';
import { DoorError } from '../host/door.js';
import { GitError } from '../workspace/git.js';

export function mountRewindRoutes(app: express.Express, sessions: Sessions): void {
  type Target = { status: number; error: string } | { live: NonNullable<ReturnType<Sessions['get']>>; seq: number; checkpoints: ReturnType<typeof checkpointsOf> };
  const target = async (id: string, raw: unknown): Promise<Target> => {
    const live = await sessions.open(id);
    if (!live) return { status: 404, error: 'unknown session' }
    const seq = Number(raw);
    if (!Number.isSafeInteger(seq) || seq < 1 || seq > live.session.log.lastSeq) {
      return { status: 400, error: `"seq" must be an event of the session: an integer from 1 to ${live.session.log.lastSeq}` }
    }
    const workDir = live.session.log.header.workspace?.workDir ?? sessions.roots()[0]!;
    return { live, seq, checkpoints: checkpointsOf(live.session, workDir) }
  };

  app.get('/api/sessions/:id/rewind', async (req, res) => {
    const t = await target(req.params.id, req.query.seq);
    if ('error' in t) return void res.status(t.status).json({ error: t.error });
    try {
      res.json(await t.checkpoints.preview(t.seq));
    } catch (err) {
      if (err instanceof GitError) res.status(500).json({ error: err.message });
      else if (err instanceof DoorError) res.status(400).json({ error: err.message });
      else throw err;
    }
  });

  app.post('/api/sessions/:id/rewind', async (req, res) => {
    // A worktree action (a push) runs git in the same folder: the files are not put back under it.
    const action = runningActions(sessions).get(req.params.id);
    if (action) return void res.status(409).json({ error: `the worktree's ${action.action} is under way: wait for it or cancel it, then rewind`, code: 'busy' });
    const body = parseWith(ROUTES['POST /api/sessions/:id/rewind'].body, req.body ?? {});
    const raw = (req.body ?? {}) as { seq?: unknown };
    // The seq's range is the session's: target() says it (a non-integer seq too).
    const t = await target(req.params.id, typeof raw.seq === 'number' ? raw.seq : NaN);
    if ('error' in t) return void res.status(t.status).json({ error: t.error });
    if (!body.ok) return void res.status(400).json({ error: body.error });
    if (t.live.session.state !== 'WaitingForUserInput') return void res.status(409).json({ error: 'the agent is working: cancel it or wait, then rewind' });
    const gone = projectGone(sessions, t.live);
    if (gone) return void res.status(409).json({ error: gone, code: PROJECT_REMOVED });
    try {
      const restored = await t.checkpoints.rewind(t.seq);
      const forked = body.value.fork === true ? await sessions.fork(req.params.id, t.seq) : undefined;
      if (forked) await forked.session.durable();
      res.json({ restored, ...(forked && { id: forked.session.id }) });
    } catch (err) {
      // A path reached only through a link (the door refuses it, having changed nothing) is the user's to see.
      if (err instanceof GitError || err instanceof ForkPointError || err instanceof DoorError) res.status(400).json({ error: err.message });
      else throw err;
    }
  });
}
