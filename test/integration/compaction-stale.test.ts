// clear_stale_results through the real server: old tool results are cleared
// well below the threshold by their own trigger, alone (no summary although the
// view is over the target), and SKEIN_COMPACT_CLEAR_STALE=off turns it off.
import { afterEach, describe, expect, it } from 'vitest';
import type { CompactionEvent, SkeinEvent } from '../../shared/protocol.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const WINDOW = 40_000;
/**
 * A long first message (about 19,000 tokens, pinned: never cleared or folded),
 * three results of about 2,500 tokens, then three small steps: the three large
 * results become stale and outweigh what follows them. The view stays a few
 * requests below the threshold (0.85 x window) and, cleared, still above the
 * target (0.5 x window).
 */
const SCRIPT = ['lorem ipsum dolor '.repeat(6300), 'big: 2500', 'big: 2500', 'big: 2500', 'bash: echo one', 'bash: echo two', 'bash: echo three'];

async function run(env: Record<string, string>) {
  const server = await startTestServer({ SKEIN_CONTEXT_WINDOW: String(WINDOW), ...env });
  servers.push(server);
  const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
  const client = await TestClient.connect(server.url, body.id);
  for (const [i, text] of SCRIPT.entries()) {
    client.send({ type: 'user_message', text });
    await client.untilIdle(i + 1);
  }
  const view = await api<{ messages: { role: string; content: string }[] }>(server.url, `/api/sessions/${body.id}/view`);
  const compactions = client.events.filter((e): e is CompactionEvent => e.kind === 'compaction' && e.phase === 'finished');
  return { events: client.events as SkeinEvent[], compactions, tools: view.body.messages.filter((m) => m.role === 'tool') };
}

describe('clear_stale_results', () => {
  it('clears the stale results below the threshold, on its own trigger, without folding anything', async () => {
    const { events, compactions, tools } = await run({});
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    for (const c of compactions) {
      expect(c.trigger).toBe('strategy');
      expect(c.strategies).toEqual(['clear_stale_results']);
      expect(c.coversSeq).toBeUndefined();
    }
    // Still over the target (0.5 x window) once cleared: the full pipeline would have gone on to summarise; this ran alone.
    expect(compactions[0]!.tokensAfter!).toBeGreaterThan(0.5 * WINDOW);
    expect(compactions[0]!.tokensAfter!).toBeLessThan(compactions[0]!.tokensBefore! - 4000);
    // No request came near the threshold (0.85 x window).
    for (const e of events) if (e.kind === 'usage' && !e.gauge.estimated) expect(e.gauge.contextTokens).toBeLessThan(0.85 * WINDOW);
    expect(events.some((e) => e.kind === 'state' && e.to === 'Compacting')).toBe(true);
    // The three stale results are placeholders; the three recent ones are verbatim.
    expect(tools).toHaveLength(6);
    for (const t of tools.slice(0, 3)) expect(t.content).toMatch(/^\[tool result cleared to save context \(event \d+\): bash \{"command":"yes /);
    ['one', 'two', 'three'].forEach((word, i) => expect(tools[3 + i]!.content).toContain(word));
  });

  it('SKEIN_COMPACT_CLEAR_STALE=off keeps every result until a threshold', async () => {
    const { compactions, tools } = await run({ SKEIN_COMPACT_CLEAR_STALE: 'off' });
    expect(compactions).toHaveLength(0);
    expect(tools.every((t) => !t.content.startsWith('[tool result cleared'))).toBe(true);
    expect(tools[0]!.content).toContain('the quick brown fox');
  });
});
