// GET /metrics: Prometheus text, behind the access token, parsed strictly,
// and its numbers follow a scripted session (counted from the session's log).
import { afterEach, describe, expect, it } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { authHeaders } from '../helpers/auth.js';
import { parsePrometheusText, total, type Family } from '../helpers/prom-text.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function scrape(server: TestServer): Promise<Map<string, Family>> {
  const res = await fetch(`${server.url}/metrics`, { headers: authHeaders(server.url) });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await res.text());
}

const count = (events: readonly SkeinEvent[], check: (e: SkeinEvent) => boolean) => events.filter(check).length;

describe('GET /metrics', () => {
  it('needs the access token, like the API (Bearer accepted)', async () => {
    const server = await startTestServer();
    servers.push(server);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer not-the-token-at-all' } })).status).toBe(401);
    const families = await scrape(server);
    expect(families.get('skein_turns_total')?.type).toBe('counter');
    expect(families.get('skein_llm_request_duration_seconds')?.type).toBe('histogram');
  });

  it('counts turns, requests, latency, tokens, cost, compactions, retries, errors, tools and WebSocket clients as a session runs', async () => {
    const server = await startTestServer({ SKEIN_CONTEXT_WINDOW: '4000', SKEIN_COMPACT_THRESHOLD_RATIO: '0.3', SKEIN_RETRY_BASE_MS: '1' });
    servers.push(server);
    const before = await scrape(server);
    expect(total(before, 'skein_turns_total')).toBe(0);
    expect(total(before, 'skein_websocket_clients')).toBe(0);

    const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
    const client = await TestClient.connect(server.url, body.id);
    const connected = await scrape(server);
    expect(total(connected, 'skein_websocket_clients')).toBe(1);
    expect(total(connected, 'skein_sessions', { state: 'WaitingForUserInput' })).toBe(1);

    // The turn after 'big: 2000' folds its result (a turn never folds the step it is reading).
    const script = ['bash: echo hi', 'error: retry', 'error: 500', 'big: 2000', 'echo: after it', 'echo: and after that'];
    for (const [i, text] of script.entries()) {
      client.send({ type: 'user_message', text });
      await client.untilIdle(i + 1, 60_000);
    }
    const log = server.sessions.get(body.id)!.session.log.all();
    const m = await scrape(server);

    const agents = log.filter((e) => e.kind === 'agent');
    const predictable = { provider: 'predictable', model: 'predictable' };
    expect(total(m, 'skein_llm_requests_total', predictable)).toBe(agents.length);
    expect(total(m, 'skein_llm_request_duration_seconds', predictable, 'skein_llm_request_duration_seconds_count')).toBe(agents.length);
    const sum = (pick: (u: NonNullable<Extract<SkeinEvent, { kind: 'agent' }>['usage']>) => number) => agents.reduce((a, e) => a + (e.kind === 'agent' && e.usage ? pick(e.usage) : 0), 0);
    expect(total(m, 'skein_llm_tokens_total', { ...predictable, kind: 'input', purpose: 'turn' })).toBe(sum((u) => u.input));
    expect(total(m, 'skein_llm_tokens_total', { ...predictable, kind: 'output', purpose: 'turn' })).toBe(sum((u) => u.output));
    expect(total(m, 'skein_llm_tokens_total', { ...predictable, kind: 'cache_write', purpose: 'turn' })).toBe(sum((u) => u.cacheWrite));
    expect(total(m, 'skein_llm_tokens_total', { ...predictable, kind: 'cache_read', purpose: 'turn' })).toBe(sum((u) => u.cacheRead));
    expect(sum((u) => u.cacheRead)).toBeGreaterThan(0);

    expect(total(m, 'skein_turns_total', { outcome: 'completed' })).toBe(count(log, (e) => e.kind === 'state' && e.to === 'EndOfTurn'));
    expect(total(m, 'skein_turns_total', { outcome: 'error' })).toBe(1);
    expect(total(m, 'skein_llm_retries_total', { ...predictable, status: '529' })).toBe(1);
    expect(total(m, 'skein_errors_total', { code: 'provider_500' })).toBe(1);
    expect(total(m, 'skein_errors_total', { code: 'retrying' })).toBe(0);

    expect(total(m, 'skein_tool_calls_total', { tool: 'bash', outcome: 'ok' })).toBe(count(log, (e) => e.kind === 'tool_result' && e.name === 'bash' && !e.isError));
    expect(total(m, 'skein_tool_duration_seconds', { tool: 'bash' }, 'skein_tool_duration_seconds_count')).toBe(count(log, (e) => e.kind === 'tool_result' && e.name === 'bash'));

    const finished = log.filter((e) => e.kind === 'compaction' && e.phase === 'finished');
    expect(finished.length).toBeGreaterThan(0);
    expect(total(m, 'skein_compactions_total', { outcome: 'finished' })).toBe(finished.length);
    const saved = finished.reduce((a, e) => a + (e.kind === 'compaction' ? Math.max(0, e.tokensBefore! - e.tokensAfter!) : 0), 0);
    expect(total(m, 'skein_compaction_tokens_saved_total')).toBe(saved);
    expect(saved).toBeGreaterThan(0);

    client.close();
    await expect.poll(async () => total(await scrape(server), 'skein_websocket_clients'), { timeout: 10_000 }).toBe(0);
  });

  it('reports the event loop delay since the previous scrape: p50, p99 and max (a stall shows once)', async () => {
    const server = await startTestServer();
    servers.push(server);
    await scrape(server);
    // Holds this process's loop (the server's too: it runs in it) for 600 ms.
    // From a timer callback of its own (a macrotask, as a handler that blocks would), not from the test's microtask.
    await new Promise<void>((resolve) =>
      setTimeout(() => {
        const until = Date.now() + 600;
        while (Date.now() < until);
        resolve();
      }, 20),
    );
    await new Promise((r) => setTimeout(r, 50));
    const stalled = await scrape(server);
    expect(stalled.get('skein_event_loop_delay_seconds')?.type).toBe('gauge');
    expect(total(stalled, 'skein_event_loop_delay_max_seconds')).toBeGreaterThanOrEqual(0.5);
    const p99 = total(stalled, 'skein_event_loop_delay_seconds', { quantile: '0.99' });
    expect(p99).toBeGreaterThan(0);
    expect(total(stalled, 'skein_event_loop_delay_seconds', { quantile: '0.5' })).toBeLessThanOrEqual(p99);
    // The next window starts after that scrape: the stall is not reported again.
    await new Promise((r) => setTimeout(r, 50));
    expect(total(await scrape(server), 'skein_event_loop_delay_max_seconds')).toBeLessThan(0.5);
  });
});
