// MCP servers through the predictable model: a stdio server (a child of
// skein) and a streamable-HTTP server, written with the SDK
// (test/fixtures/mcp). Tools listed, called, errors, a crash mid-call, a call
// that never answers, broken schemas, tools that change mid-session, a server
// that connects late; the timeline and GET /api/mcp show each.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LlmRequest } from '../../server/llm/types.js';
import type { McpEvent, SkeinEvent, ToolResultEvent, ToolsChangedEvent } from '../../shared/protocol.js';
import { mcpServers, startHttpMcpServer, stdioEntry, writeMcpJson, writeTrustedMcpJson, type HttpMcpServer } from '../helpers/mcp.js';
import { untilGone } from '../helpers/processes.js';
import { observePredictableRequests } from '../helpers/request-rules.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';
import { until } from '../helpers/until.js';

// Real servers and child processes (skein, MCP servers under tsx): slow on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

const servers: TestServer[] = [];
const https: HttpMcpServer[] = [];
const stops: (() => void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  for (const s of servers.splice(0)) await s.close();
  for (const h of https.splice(0)) await h.close();
});

async function start(mcp: Record<string, unknown>, env: Record<string, string> = {}) {
  const workDir = tempDir('work');
  const dataDir = tempDir('data');
  // A project's .mcp.json starts only once the user trusted its content.
  writeTrustedMcpJson(dataDir, workDir, mcp);
  const server = await startTestServer({ SKEIN_MODEL: 'predictable', ...env }, { dataDir, workDir });
  servers.push(server);
  const requests: LlmRequest[] = [];
  stops.push(observePredictableRequests((r) => r.purpose === 'turn' && requests.push(r)));
  const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
  const client = await TestClient.connect(server.url, body.id);
  const say = async (text: string) => {
    const turns = client.events.filter((e) => e.kind === 'state' && e.to === 'WaitingForUserInput').length;
    client.send({ type: 'user_message', text });
    await client.untilIdle(turns + 1, 60_000);
    return client.events;
  };
  return { server, client, say, requests, workDir, id: body.id };
}

const results = (events: SkeinEvent[]) => events.filter((e): e is ToolResultEvent => e.kind === 'tool_result');
const mcpEvents = (events: SkeinEvent[]) => events.filter((e): e is McpEvent => e.kind === 'mcp');

describe('MCP servers', () => {
  it('lists the tools of a stdio and an HTTP server, calls them with arguments, returns results and errors, and skips broken schemas', async () => {
    const remote = await startHttpMcpServer();
    https.push(remote);
    const run = await start({ local: stdioEntry(), remote: { type: 'http', url: remote.url, headers: { 'x-test': 'from-config' } } }, { SKEIN_TOOL_OUTPUT_LIMIT: '2000' });

    const listed = await mcpServers(run.server.url);
    expect(listed.map((s) => [s.name, s.transport, s.state])).toEqual([
      ['local', 'stdio', 'ready'],
      ['remote', 'http', 'ready'],
    ]);
    for (const s of listed) {
      expect(s.tools.filter((t) => !t.skipped).map((t) => t.name)).toEqual(['echo', 'add', 'fail', 'crash', 'hang', 'grow', 'shrink', 'big'].map((t) => `mcp__${s.name}__${t}`));
      expect(s.tools.find((t) => t.name.endsWith('__broken'))?.skipped).toMatch(/type "string"/);
      expect(s.tools.find((t) => t.name.endsWith('__dangling'))?.skipped).toMatch(/#\/\$defs\/missing/);
    }
    expect(remote.headers.some((h) => h['x-test'] === 'from-config')).toBe(true);
    // The session's timeline starts with each server's state, skipped tools named (shown once durable).
    await run.client.until(() => mcpEvents(run.client.events).length >= 2, "the servers' states at the start", 30_000);
    const atStart = mcpEvents(run.client.events);
    expect(atStart.map((e) => [e.server, e.state])).toEqual([
      ['local', 'ready'],
      ['remote', 'ready'],
    ]);
    expect(atStart[0]!.message).toMatch(/^ready: 8 tools; skipped broken \(its inputSchema has type "string".*\), dangling \(its inputSchema refers to "#\/\$defs\/missing"/);
    // Behind the access token like every API route.
    expect((await fetch(`${run.server.url}/api/mcp`)).status).toBe(401);

    await run.say('mcp: local echo {"text":"hello"}');
    await run.say('mcp: remote add {"a":2,"b":40}');
    await run.say('mcp: local fail {}');
    const [echo, add, fail] = results(run.client.events);
    expect(echo).toMatchObject({ name: 'mcp__local__echo', output: 'echo: hello', isError: false });
    expect(add).toMatchObject({ name: 'mcp__remote__add', output: '42', isError: false });
    expect(fail).toMatchObject({ name: 'mcp__local__fail', output: 'mcp__local__fail failed: the tool failed on purpose', isError: true });

    // Results go through the same cap and secret masking as built-in tools' results.
    await run.say('mcp: remote big {"lines":3000}');
    const big = results(run.client.events).at(-1)!;
    expect(big.output).toMatch(/^line 1 of the big answer\n[\s\S]*\[output capped: [\d,]+ characters[\s\S]*line 3000 of the big answer$/);
    expect(big.output.length).toBeLessThan(3000);
    await run.say(`mcp: local echo {"text":"${run.server.token}"}`);
    expect(results(run.client.events).at(-1)!.output).not.toContain(run.server.token);

    // Every request carried the same tools: built-in first, then each server's usable ones with its schema.
    const names = run.requests[0]!.tools.map((t) => t.name);
    expect(names).toContain('bash');
    expect(names).toContain('mcp__remote__add');
    expect(names.some((n) => n.endsWith('__broken') || n.endsWith('__dangling'))).toBe(false);
    expect(run.requests[0]!.tools.find((t) => t.name === 'mcp__local__echo')!.inputSchema).toEqual({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    for (const r of run.requests) expect(r.tools).toEqual(run.requests[0]!.tools);
  });

  it('a server that crashes mid-call gives an error result, is shown failed in the timeline and GET /api/mcp, restarts, and the session goes on', async () => {
    const remote = await startHttpMcpServer();
    https.push(remote);
    const run = await start({ local: stdioEntry(), remote: { type: 'http', url: remote.url } });
    const firstPid = run.server.sessions.mcp!.pids()[0]!;

    await run.say('mcp: local crash {}');
    const crashed = results(run.client.events).at(-1)!;
    expect(crashed).toMatchObject({ name: 'mcp__local__crash', isError: true });
    expect(crashed.output).toMatch(/^mcp__local__crash failed: the MCP server "local" went away during the call.*crashing on purpose/);
    await untilGone(firstPid);
    const failed = await run.client.until(() => mcpEvents(run.client.events).find((e) => e.server === 'local' && e.state === 'failed'), 'the failure in the timeline');
    await run.client.until(() => mcpEvents(run.client.events).find((e) => e.server === 'local' && e.state === 'ready' && e.seq > failed.seq), 'the restart in the timeline', 30_000);
    const local = (await mcpServers(run.server.url)).find((s) => s.name === 'local')!;
    expect(local).toMatchObject({ state: 'ready', restarts: 1 });
    expect(run.server.sessions.mcp!.pids()[0]).not.toBe(firstPid);

    await run.say('mcp: remote crash {}');
    expect(results(run.client.events).at(-1)).toMatchObject({ name: 'mcp__remote__crash', isError: true });
    await run.client.until(() => mcpEvents(run.client.events).find((e) => e.server === 'remote' && e.state === 'failed'), 'the HTTP failure in the timeline');
    await until(async () => (await mcpServers(run.server.url)).find((s) => s.name === 'remote' && s.state === 'ready' && s.restarts === 1), 'the HTTP server back');

    // Both work again, in the same session.
    await run.say('mcp: local echo {"text":"again"}');
    await run.say('mcp: remote echo {"text":"again"}');
    expect(results(run.client.events).slice(-2).map((r) => [r.output, r.isError])).toEqual([
      ['echo: again', false],
      ['echo: again', false],
    ]);
  });

  it('a call that never answers times out with an error, and its server is restarted', async () => {
    const run = await start({ local: stdioEntry() }, { SKEIN_MCP_TIMEOUT_MS: '1500' });
    await run.say('mcp: local hang {}');
    const result = results(run.client.events).at(-1)!;
    expect(result).toMatchObject({ name: 'mcp__local__hang', isError: true });
    expect(result.output).toMatch(/^mcp__local__hang failed: timed out after 1500 ms/);
    expect(mcpEvents(run.client.events).find((e) => e.state === 'failed')?.message).toMatch(/timed out after 1500 ms; restarting/);
    await until(async () => (await mcpServers(run.server.url))[0]!.state === 'ready', 'the restart');
    await run.say('mcp: local echo {"text":"alive"}');
    expect(results(run.client.events).at(-1)).toMatchObject({ output: 'echo: alive', isError: false });
  });

  it('a cancel ends a running MCP call at once; the server stays up', async () => {
    const run = await start({ local: stdioEntry() });
    run.client.send({ type: 'user_message', text: 'mcp: local hang {}' });
    await run.client.until(() => run.client.events.find((e) => e.kind === 'tool_call'), 'the call to start');
    await run.client.until(() => run.client.events.find((e) => e.kind === 'state' && e.to === 'RunningTools'), 'tools running');
    run.client.send({ type: 'cancel' });
    await run.client.untilIdle(1, 20_000);
    expect(results(run.client.events).at(-1)).toMatchObject({ name: 'mcp__local__hang', output: 'cancelled by the user', isError: true });
    expect(run.client.events.some((e) => e.kind === 'state' && e.to === 'Cancelled')).toBe(true);
    const [local] = await mcpServers(run.server.url);
    expect(local).toMatchObject({ state: 'ready', restarts: 0 });
    await run.say('mcp: local echo {"text":"still here"}');
    expect(results(run.client.events).at(-1)).toMatchObject({ output: 'echo: still here', isError: false });
  });

  it('tools that appear or vanish mid-session reach the model as a note at the end, never by changing the request tools; a vanished tool answers with an error', async () => {
    const run = await start({ local: stdioEntry() });
    await run.say('mcp: local grow {}');
    await until(async () => (await mcpServers(run.server.url))[0]!.tools.some((t) => t.name === 'mcp__local__late'), 'the new tool listed');
    await run.say('mcp: local late {"n":7}');
    const added = run.client.events.find((e): e is ToolsChangedEvent => e.kind === 'tools_changed')!;
    expect(added.added).toEqual(['mcp__local__late']);
    expect(added.text).toMatch(/^<skein-tools>.*mcp__local__late: Appeared after the start\. Input schema: \{"type":"object"/s);
    // The request after the change ends with the note; its tools are the session's first tools.
    const withNote = run.requests.find((r) => r.messages.at(-1)?.content === added.text)!;
    expect(withNote).toBeDefined();
    expect(results(run.client.events).at(-1)).toMatchObject({ name: 'mcp__local__late', output: 'late 7', isError: false });

    await run.say('mcp: local shrink {}');
    await until(async () => !(await mcpServers(run.server.url))[0]!.tools.some((t) => t.name === 'mcp__local__echo'), 'echo gone');
    await run.say('mcp: local echo {"text":"x"}');
    const removed = run.client.events.filter((e): e is ToolsChangedEvent => e.kind === 'tools_changed').at(-1)!;
    expect(removed.removed).toEqual(['mcp__local__echo']);
    expect(results(run.client.events).at(-1)).toMatchObject({ name: 'mcp__local__echo', isError: true });
    expect(results(run.client.events).at(-1)!.output).toMatch(/not available now: the server "local" no longer offers it/);

    const names = (r: LlmRequest) => r.tools.map((t) => t.name);
    for (const r of run.requests) expect(names(r)).toEqual(names(run.requests[0]!));
    expect(names(run.requests[0]!)).toContain('mcp__local__echo');
    expect(names(run.requests[0]!)).not.toContain('mcp__local__late');
    // The view (GET /view) shows the notes where the model read them.
    const view = await api<{ messages: { content: string }[] }>(run.server.url, `/api/sessions/${run.id}/view`);
    expect(view.body.messages.filter((m) => m.content.startsWith('<skein-tools>'))).toHaveLength(2);

    // A compaction that folds a note takes its news out of the view: the model is told again.
    // (Enough history first that folding it makes the view smaller; a summary longer than its span is not taken.)
    await run.say('big: 1200');
    await run.say('big: 1200');
    await run.say('/compact');
    const fold = run.client.events.filter((e) => e.kind === 'compaction' && e.phase === 'finished').at(-1)!;
    expect(fold.kind === 'compaction' && fold.coversSeq![1]).toBeGreaterThan(added.seq);
    await run.say('echo: after the fold');
    const again = run.client.events.filter((e): e is ToolsChangedEvent => e.kind === 'tools_changed').at(-1)!;
    expect(again.seq).toBeGreaterThan(fold.seq);
    expect([again.added, again.removed]).toEqual([['mcp__local__late'], ['mcp__local__echo']]);
    expect(run.requests.at(-1)!.messages.at(-1)!.content).toBe(again.text);
  });

  it('a restart keeps the tools the session started with in every request; what the servers offer differently now arrives as a note', async () => {
    const run = await start({ local: stdioEntry() });
    await run.say('echo: before the restart');
    const first = run.requests[0]!;
    expect(first.tools.some((t) => t.name === 'mcp__local__echo')).toBe(true);
    const before = run.requests.length;
    run.client.close();
    await run.server.close();
    servers.splice(servers.indexOf(run.server), 1);
    // The same session after a restart whose configuration has no MCP server any more.
    writeMcpJson(run.workDir, {});
    const again = await startTestServer({ SKEIN_MODEL: 'predictable' }, { dataDir: run.server.dataDir, workDir: run.workDir });
    servers.push(again);
    const client = await TestClient.connect(again.url, run.id, run.client.events.at(-1)!.seq);
    client.send({ type: 'user_message', text: 'echo: after the restart' });
    await client.untilIdle(1, 60_000);
    const after = run.requests[before]!;
    // Byte for byte the tools of the first request (prompt cache and thinking prefix checks hold).
    expect(JSON.stringify(after.tools)).toBe(JSON.stringify(first.tools));
    const note = client.events.find((e): e is ToolsChangedEvent => e.kind === 'tools_changed')!;
    expect(note.removed).toContain('mcp__local__echo');
    expect(after.messages.some((m) => m.content === note.text)).toBe(true);
    client.send({ type: 'user_message', text: 'mcp: local echo {"text":"x"}' });
    await client.untilIdle(2, 60_000);
    expect(results(client.events).at(-1)).toMatchObject({ name: 'mcp__local__echo', isError: true });
    client.close();
  });

  it('a server that cannot start is reported, retried with back-off, and its tools reach the session as a note once it connects', async () => {
    const readyDir = tempDir('ready');
    const readyFile = path.join(readyDir, 'ready');
    const run = await start({ late: stdioEntry({ MCP_TEST_READY_FILE: readyFile }) });
    const [server] = await mcpServers(run.server.url);
    expect(server).toMatchObject({ name: 'late', state: 'failed' });
    expect(server!.error).toMatch(/not ready yet/);
    expect(run.requests.length).toBe(0);
    await run.say('echo: before');
    expect(run.requests[0]!.tools.some((t) => t.name.startsWith('mcp__'))).toBe(false);
    // Each retry that fails is in the timeline, with the pause before the next one growing.
    await run.client.until(() => mcpEvents(run.client.events).filter((e) => e.state === 'failed').length >= 2 && true, 'two retries', 30_000);
    const pauses = mcpEvents(run.client.events).filter((e) => e.state === 'failed').map((e) => e.retryInMs!);
    expect(pauses[1]).toBeGreaterThan(pauses[0]!);
    fs.writeFileSync(readyFile, '');
    await until(async () => (await mcpServers(run.server.url))[0]!.state === 'ready', 'the late server ready', 40_000);
    await run.say('mcp: late echo {"text":"late"}');
    const note = run.client.events.find((e): e is ToolsChangedEvent => e.kind === 'tools_changed')!;
    expect(note.added).toContain('mcp__late__echo');
    expect(results(run.client.events).at(-1)).toMatchObject({ output: 'echo: late', isError: false });
    for (const r of run.requests) expect(r.tools.some((t) => t.name.startsWith('mcp__'))).toBe(false);
  });

  it('server processes are children of skein and are gone after it shuts down', async () => {
    const run = await start({ a: stdioEntry(), b: stdioEntry() });
    const pids = run.server.sessions.mcp!.pids();
    expect(pids).toHaveLength(2);
    const parents = pids.map((pid) => Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]));
    expect(parents).toEqual([process.pid, process.pid]);
    await run.server.close();
    servers.splice(0);
    for (const pid of pids) await untilGone(pid);
  });
});
