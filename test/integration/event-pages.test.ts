// Paged history over REST: the tail first, then earlier pages back to the very
// first event, with no duplicate or missing seq; bad queries get a clear 400.
import { afterEach, describe, expect, it } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

type Page = { events: SkeinEvent[]; more: boolean };

describe('GET /api/sessions/:id/events pages', () => {
  it('pages back from the tail to seq 1 and forward with since+limit, gap-free', async () => {
    const server = await startTestServer();
    servers.push(server);
    const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
    const live = server.sessions.get(body.id)!;
    for (let i = 0; i < 120; i++) live.session.append({ kind: 'error', message: `note ${i}`, code: 'internal' });
    await live.session.durable();
    const last = live.session.log.lastSeq;

    const seen: number[] = [];
    let before = last + 1;
    for (;;) {
      const { status, body: page } = await api<Page>(server.url, `/api/sessions/${body.id}/events?before=${before}&limit=25`);
      expect(status).toBe(200);
      expect(page.events.length).toBeLessThanOrEqual(25);
      seen.unshift(...page.events.map((e) => e.seq));
      if (!page.more) break;
      before = page.events[0]!.seq;
    }
    expect(seen).toEqual(Array.from({ length: last }, (_, i) => i + 1));

    const forward = await api<Page>(server.url, `/api/sessions/${body.id}/events?since=100&limit=10`);
    expect(forward.body.events.map((e) => e.seq)).toEqual([101, 102, 103, 104, 105, 106, 107, 108, 109, 110]);
    expect(forward.body.more).toBe(last > 110);
    // Without a limit, as before: everything after since.
    const all = await api<Page>(server.url, `/api/sessions/${body.id}/events?since=0`);
    expect(all.body.events).toHaveLength(last);
    expect(all.body.more).toBe(false);
  });

  it('refuses bad queries with the rule', async () => {
    const server = await startTestServer();
    servers.push(server);
    const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
    for (const [query, rule] of [
      ['before=0&limit=5', /"before" must be an integer from 1/],
      ['before=5&limit=0', /"limit" must be an integer from 1 to 5000/],
      ['since=1&before=5', /not both/],
      ['since=-1', /"since" must be an integer/],
      ['limit=abc', /"limit"/],
    ] as const) {
      const res = await api<{ error: string }>(server.url, `/api/sessions/${body.id}/events?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error, query).toMatch(rule);
    }
  });
});
