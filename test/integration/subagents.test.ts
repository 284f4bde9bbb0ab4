// Subagents: the `task` tool runs a child session with its own log and gauge
// and returns its bounded answer; several run at once; cancelling the parent
// cancels them; a project's agent file defines nothing until trusted; a crash
// with a child running closes it in both logs.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import type { LiveSession } from '../../server/agent/live-session.js';
import { TrustStore } from '../../server/trust/store.js';
import { EXPLORE_TOOLS } from '../../server/subagents/agent-defs.js';
import { MAX_ANSWER_CHARS } from '../../server/subagents/outcome.js';
import { startChildServer } from '../helpers/child-server.js';
import { api, startTestServer, storeEnv, tempDir, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function start(env: Record<string, string> = {}, dirs?: { dataDir?: string; workDir?: string }): Promise<TestServer> {
  const server = await startTestServer({ SKEIN_MODEL: 'predictable', ...env }, dirs);
  servers.push(server);
  return server;
}

function task(input: Record<string, unknown>): string {
  return `tool: task ${JSON.stringify(input)}`;
}

function tasks(inputs: Record<string, unknown>[]): string {
  return `tools: ${JSON.stringify(inputs.map((input) => ({ name: 'task', input })))}`;
}

/** Posts a message and waits for the turn it starts to end. */
async function turn(live: LiveSession, text: string): Promise<SkeinEvent[]> {
  const from = live.session.log.lastSeq;
  await live.session.userMessage(text);
  await until(() => live.session.log.since(from).some((e) => e.kind === 'state' && e.to === 'WaitingForUserInput'), 'the turn to end', 60_000);
  return live.session.log.since(from);
}

function resultsOf(events: readonly SkeinEvent[], name = 'task') {
  return events.flatMap((e) => (e.kind === 'tool_result' && e.name === name ? [e] : []));
}

function childrenOf(server: TestServer, parentId: string) {
  return server.sessions.list().filter((s) => s.parent?.session === parentId);
}

describe('the task tool', () => {
  it('runs a child session with its own log and gauge, and returns its answer bounded, with a pointer to the rest', async () => {
    const server = await start();
    const parent = server.sessions.create();
    const long = 'abcdefghij'.repeat(500);
    const events = await turn(parent, task({ description: 'say a long thing', prompt: `echo: ${long}` }));
    const [result] = resultsOf(events);
    expect(result!.isError).toBe(false);
    const [listed] = childrenOf(server, parent.session.id);
    expect(listed).toBeDefined();
    const call = events.find((e) => e.kind === 'tool_call' && e.name === 'task');
    expect(listed!.parent).toEqual({ session: parent.session.id, callId: call?.kind === 'tool_call' ? call.callId : '', agent: 'general' });
    // Bounded: the head of the answer, how much was left out, and where the rest is.
    expect(result!.output.startsWith(long.slice(0, MAX_ANSWER_CHARS))).toBe(true);
    expect(result!.output).not.toContain(long);
    expect(result!.output).toContain(`${long.length - MAX_ANSWER_CHARS} more characters`);
    expect(result!.output).toContain(`"session": "${listed!.id}"`);
    // The child's own log holds the prompt and the whole answer; the parent's holds only the call and the result.
    const child = server.sessions.get(listed!.id)!;
    // (On the JSONL store, its own file; on PostgreSQL its own rows, read back below.)
    if (process.env.SKEIN_TEST_STORE !== 'postgres') expect(fs.existsSync(path.join(server.dataDir, 'sessions', `${listed!.id}.jsonl`))).toBe(true);
    expect(child.session.log.all().some((e) => e.kind === 'agent' && e.text === long)).toBe(true);
    expect(parent.session.log.all().some((e) => e.kind === 'agent' && e.text === long)).toBe(false);
    // Its own gauge: its own requests counted, not the parent's.
    expect(child.agent.gauge().totalTokens).toBeGreaterThan(0);
    expect(child.session.log.all().filter((e) => e.kind === 'usage')).toHaveLength(1);
    // The parent's timeline says the child started and finished, with what it cost.
    const notes = events.flatMap((e) => (e.kind === 'subagent' ? [e] : []));
    expect(notes.map((n) => n.phase)).toEqual(['started', 'finished']);
    expect(notes[1]).toMatchObject({ outcome: 'answered', child: listed!.id, tokens: child.agent.gauge().totalTokens });
    // The parent reads the rest of the child's log with search_history.
    const search = await turn(parent, `tool: search_history ${JSON.stringify({ session: listed!.id, query: 'abcdefghij', kinds: ['agent'] })}`);
    expect(resultsOf(search, 'search_history')[0]).toMatchObject({ isError: false });
    expect(resultsOf(search, 'search_history')[0]!.output).toContain('1 match');
  }, 60_000);

  it('gives a child no task tool (depth 1), and explore only the read-only tools', async () => {
    const server = await start();
    const parent = server.sessions.create();
    const events = await turn(parent, task({ description: 'nest', prompt: task({ description: 'deeper', prompt: 'echo: no' }), agent: 'explore' }));
    const [listed] = childrenOf(server, parent.session.id);
    const child = server.sessions.get(listed!.id)!;
    expect(child.session.log.header.subagent).toMatchObject({ agent: 'explore', tools: EXPLORE_TOOLS, depthLeft: 0 });
    expect(child.agent.system).toContain('You are an explorer');
    // The child's call to task is refused as unknown: no grandchild.
    expect(resultsOf(child.session.log.all())[0]).toMatchObject({ isError: true });
    expect(resultsOf(child.session.log.all())[0]!.output).toContain('unknown tool "task"');
    expect(server.sessions.list().filter((s) => s.parent)).toHaveLength(1);
    expect(resultsOf(events)[0]!.isError).toBe(false);
  }, 60_000);

  it('a failing child is a tool result saying so', async () => {
    const server = await start();
    const parent = server.sessions.create();
    const events = await turn(parent, task({ description: 'fail', prompt: 'error: 500' }));
    expect(resultsOf(events)[0]).toMatchObject({ isError: true });
    expect(resultsOf(events)[0]!.output).toMatch(/did not finish: error/);
    const unknown = await turn(parent, task({ description: 'x', prompt: 'echo: x', agent: 'nobody' }));
    expect(resultsOf(unknown)[0]!.output).toContain('no agent named "nobody"');
  }, 60_000);
});

describe('several children', () => {
  it('run at once, at most SKEIN_SUBAGENT_PARALLEL of them', async () => {
    const server = await start({ SKEIN_SUBAGENT_PARALLEL: '2' });
    const parent = server.sessions.create();
    const events = await turn(parent, tasks([1, 2, 3].map((n) => ({ description: `wait ${n}`, prompt: 'delay: 1500' }))));
    expect(resultsOf(events).map((r) => r.isError)).toEqual([false, false, false]);
    const spans = childrenOf(server, parent.session.id).map((s) => {
      const all = server.sessions.get(s.id)!.session.log.all();
      return { from: Date.parse(all.find((e) => e.kind === 'user')!.ts), to: Date.parse(all.at(-1)!.ts) };
    });
    expect(spans).toHaveLength(3);
    // How many ran at the same moment, at most: each start counted against the spans running then.
    const overlap = Math.max(...spans.map((a) => spans.filter((b) => b.from <= a.from && a.from < b.to).length));
    expect(overlap).toBe(2);
  }, 60_000);
});

describe('one tree of control', () => {
  it('cancelling the parent cancels its running children', async () => {
    const server = await start();
    const parent = server.sessions.create();
    await parent.session.userMessage(tasks([1, 2].map((n) => ({ description: `long ${n}`, prompt: 'delay: 600000' }))));
    await until(() => childrenOf(server, parent.session.id).length === 2 && childrenOf(server, parent.session.id).every((c) => c.state === 'SendingToLLM'), 'two children running', 30_000);
    parent.agent.cancel();
    await until(() => parent.session.state === 'WaitingForUserInput', 'the parent turn to end', 30_000);
    for (const listed of childrenOf(server, parent.session.id)) {
      const child = server.sessions.get(listed.id)!;
      expect(child.session.state).toBe('WaitingForUserInput');
      expect(child.session.log.all().some((e) => e.kind === 'state' && e.to === 'Cancelled')).toBe(true);
    }
    const results = resultsOf(parent.session.log.all());
    expect(results).toHaveLength(2);
    expect(results.every((r) => r.isError && r.output.includes('cancelled'))).toBe(true);
  }, 60_000);

  it("a child's approval request is announced in the parent's timeline", async () => {
    const server = await start({ SKEIN_APPROVAL: 'on-write' });
    const parent = server.sessions.create();
    await parent.session.userMessage(task({ description: 'write', prompt: 'bash: echo hi' }));
    await until(() => parent.session.log.all().some((e) => e.kind === 'subagent' && e.phase === 'approval'), 'the approval notice', 30_000);
    const note = parent.session.log.all().find((e) => e.kind === 'subagent' && e.phase === 'approval');
    expect(note).toMatchObject({ tool: 'bash' });
    const child = server.sessions.get(note!.kind === 'subagent' ? note!.child : '')!;
    expect(child.agent.mode).toBe('on-write');
    parent.agent.cancel();
    await until(() => parent.session.state === 'WaitingForUserInput' && child.session.state === 'WaitingForUserInput', 'both turns to end', 30_000);
  }, 60_000);
});

describe("the parent's mode", () => {
  it('switched while a child waits for an approval: the child follows, and its waiting write is decided again (plan refuses it)', async () => {
    const server = await start({ SKEIN_APPROVAL: 'on-write' });
    const parent = server.sessions.create();
    await parent.session.userMessage(task({ description: 'write', prompt: 'tool: write_file {"path":"CHILDWRITE.txt","content":"x"}' }));
    await until(() => parent.session.log.all().some((e) => e.kind === 'subagent' && e.phase === 'approval'), 'the approval notice', 30_000);
    const note = parent.session.log.all().find((e) => e.kind === 'subagent' && e.phase === 'approval');
    const child = server.sessions.get(note!.kind === 'subagent' ? note!.child : '')!;
    parent.agent.setMode('plan');
    await until(() => child.agent.mode === 'plan', "the child's mode to follow", 10_000);
    await until(() => child.session.log.all().some((e) => e.kind === 'tool_result' && e.name === 'write_file'), 'the waiting call decided again', 30_000);
    expect(child.session.log.all().find((e) => e.kind === 'tool_result' && e.name === 'write_file')).toMatchObject({ isError: true });
    expect(fs.existsSync(path.join(server.workDir, 'CHILDWRITE.txt'))).toBe(false);
    parent.agent.cancel();
    await until(() => parent.session.state === 'WaitingForUserInput' && child.session.state === 'WaitingForUserInput', 'both turns to end', 30_000);
  }, 60_000);
});

describe('agent files', () => {
  it("a project's agent file defines nothing until its content is trusted", async () => {
    const server = await start();
    const file = path.join(server.workDir, '.skein', 'agents', 'reviewer.md');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const content = '---\nname: reviewer\ndescription: reviews code\ntools: read_file, grep\nmode: plan\n---\nYou review code and list problems.\n';
    fs.writeFileSync(file, content);
    const parent = server.sessions.create();
    const refused = await turn(parent, task({ description: 'review', prompt: 'echo: ok', agent: 'reviewer' }));
    expect(resultsOf(refused)[0]).toMatchObject({ isError: true });
    expect(resultsOf(refused)[0]!.output).toContain('untrusted');
    expect(childrenOf(server, parent.session.id)).toHaveLength(0);
    new TrustStore(server.dataDir).decide(server.workDir, '.skein/agents/reviewer.md', content, 'trusted');
    const ran = await turn(parent, task({ description: 'review', prompt: 'echo: reviewed', agent: 'reviewer' }));
    expect(resultsOf(ran)[0]).toMatchObject({ isError: false });
    expect(resultsOf(ran)[0]!.output).toContain('reviewed');
    const child = server.sessions.get(childrenOf(server, parent.session.id)[0]!.id)!;
    expect(child.session.log.header.subagent).toMatchObject({ agent: 'reviewer', tools: ['read_file', 'grep'] });
    expect(child.agent.system).toContain('You review code and list problems.');
    expect(child.agent.mode).toBe('plan');
    // Changed after it was trusted: untrusted again.
    fs.writeFileSync(file, content.replace('list problems', 'run anything'));
    const changed = await turn(parent, task({ description: 'review', prompt: 'echo: ok', agent: 'reviewer' }));
    expect(resultsOf(changed)[0]!.output).toContain('changed since trusted');
  }, 60_000);
});

describe('restart', () => {
  it('a child left running by a crash is closed, with a notice in both logs', async () => {
    const dataDir = tempDir('subagent-crash');
    const workDir = tempDir('subagent-crash-work');
    const crashed = await startChildServer({ SKEIN_DATA_DIR: dataDir, SKEIN_WORKDIR: workDir, SKEIN_MODEL: 'predictable', ...(await storeEnv(dataDir)) });
    const { body } = await api<{ id: string }>(crashed.url, '/api/sessions', { body: {} });
    await api(crashed.url, `/api/sessions/${body.id}/messages`, { body: { text: task({ description: 'long', prompt: 'delay: 600000' }) } });
    const childId = await until(async () => (await api<{ sessions: { id: string; state: string; parent?: { session: string } }[] }>(crashed.url, '/api/sessions')).body.sessions.find((s) => s.parent?.session === body.id && s.state === 'SendingToLLM')?.id, 'the child running', 30_000);
    await crashed.kill('SIGKILL');
    const server = await start({}, { dataDir, workDir });
    const child = server.sessions.get(childId)!;
    const parent = server.sessions.get(body.id)!;
    await until(() => child.session.state === 'WaitingForUserInput' && parent.session.state === 'WaitingForUserInput', 'both closed', 30_000);
    expect(child.session.log.all().some((e) => e.kind === 'error' && e.code === 'interrupted')).toBe(true);
    // The parent's notice is written as the child is closed (a store's write may land a moment after the states).
    const note = await until(() => parent.session.log.all().find((e) => e.kind === 'subagent' && e.phase === 'finished'), "the parent's notice", 30_000);
    expect(note).toMatchObject({ outcome: 'interrupted', child: childId });
  }, 90_000);
});
