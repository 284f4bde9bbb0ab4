// `skein acp` end to end: the CLI in a child process (its embedded server,
// the predictable model), driven by the ACP SDK's own client over stdio.
import fs from 'node:fs';
import path from 'node:path';
import { PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { stdioEntry } from '../helpers/mcp.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { agentText, startAcp, updatesOf, type AcpRun } from './acp-client.js';

const runs: AcpRun[] = [];
const servers: TestServer[] = [];
const fakes: OpenAIFake[] = [];
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close();
  for (const run of runs.splice(0)) await run.close();
  for (const server of servers.splice(0)) await server.close();
});

const SLOW = { timeout: 300_000 };

function start(env: Record<string, string>, args: string[] = []): AcpRun {
  const run = startAcp(env, args);
  runs.push(run);
  return run;
}

async function initialize(run: AcpRun) {
  return run.connection.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } } });
}

describe('skein acp', () => {
  it('initializes, runs a tool call with tool_call then tool_call_update, switches modes, and keeps stdout for the protocol', SLOW, async () => {
    const work = tempDir('acp-work');
    fs.writeFileSync(path.join(work, 'marker.txt'), 'found me\n');
    const run = start({ SKEIN_DATA_DIR: tempDir('acp-data'), SKEIN_WORKDIR: work });
    const init = await initialize(run);
    expect(init.protocolVersion).toBe(PROTOCOL_VERSION);
    expect(init.agentCapabilities).toMatchObject({ loadSession: true, promptCapabilities: { embeddedContext: true } });

    const created = await run.connection.agent.request('session/new', { cwd: work, mcpServers: [] });
    expect(created.modes?.availableModes.map((m) => m.id)).toEqual(['plan', 'always', 'on-write', 'never']);
    const id = created.sessionId;
    const response = await run.connection.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'bash: cat marker.txt' }] });
    expect(response.stopReason).toBe('end_turn');

    const call = updatesOf(run, id, 'tool_call')[0] as { toolCallId: string; kind: string; title: string; status: string };
    expect(call).toMatchObject({ kind: 'execute', title: 'cat marker.txt', status: 'pending' });
    const done = updatesOf(run, id, 'tool_call_update').filter((u) => (u as { toolCallId: string }).toolCallId === call.toolCallId) as { status?: string; content?: { type: string; content?: { text: string } }[] }[];
    expect(done.at(-1)!.status).toBe('completed');
    expect(done.at(-1)!.content![0]!.content!.text).toContain('found me');
    // The gauge as ACP's usage, skein's whole gauge in _meta.
    const usage = updatesOf(run, id, 'usage_update').at(-1) as unknown as { used: number; size: number; _meta: { skein: { gauge: { contextWindow: number } } } };
    expect(usage.size).toBe(8000);
    expect(usage.used).toBeGreaterThan(0);
    expect(usage._meta.skein.gauge.contextWindow).toBe(8000);
    expect(response._meta).toEqual({ skein: { gauge: usage._meta.skein.gauge } });
    // The commands, with /compact.
    await until(() => updatesOf(run, id, 'available_commands_update').length > 0, 'the commands');
    const commands = (updatesOf(run, id, 'available_commands_update')[0] as { availableCommands: { name: string }[] }).availableCommands.map((c) => c.name);
    expect(commands).toContain('compact');
    expect(agentText(run, id)).toContain('found me');
    // Modes: the session starts in SKEIN_APPROVAL's (never); session/set_mode and /mode switch it, the editor is told.
    expect(created.modes?.currentModeId).toBe('never');
    const modeUpdates = () => updatesOf(run, id, 'current_mode_update').map((u) => (u as { currentModeId: string }).currentModeId);
    await run.connection.agent.request('session/set_mode', { sessionId: id, modeId: 'plan' });
    await until(() => modeUpdates().includes('plan'), 'the switch to plan');
    expect((await run.connection.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'tool: write_file {"path":"new.txt","content":"x"}' }] })).stopReason).toBe('end_turn');
    expect(fs.existsSync(path.join(work, 'new.txt'))).toBe(false);
    expect(updatesOf(run, id, 'tool_call_update').at(-1)).toMatchObject({ status: 'failed' });
    expect((await run.connection.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: '/mode on-write' }] })).stopReason).toBe('end_turn');
    await until(() => modeUpdates().at(-1) === 'on-write', 'the switch to on-write');
    await expect(run.connection.agent.request('session/set_mode', { sessionId: id, modeId: 'yolo' })).rejects.toMatchObject({ code: -32602 });
    // /help lists the commands; unknown words after a slash are a message like any other.
    await run.connection.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: '/help' }] });
    expect(agentText(run, id)).toContain('/compact [focus]');
    // Nothing but JSON-RPC on stdout.
    expect(run.stdoutLines().every((m) => (m as { jsonrpc?: string }).jsonrpc === '2.0')).toBe(true);
    // The editor closes stdin: the agent and its embedded server end.
    run.child.stdin!.end();
    expect(await run.exited).toBe(0);
  });
});

/** The user's message is in the session's log (the prompt reached the server). */
function logged(dataDir: string, id: string, text: string): boolean {
  const file = path.join(dataDir, 'sessions', `${id}.jsonl`);
  return fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes(JSON.stringify(text).slice(1, -1));
}

describe('skein acp: approvals, cancel, plan, compaction, session/load', () => {
  it('asks through request_permission (allow always = the session rule, reject), cancels, shows the plan and a /compact, then a new process loads the session', SLOW, async () => {
    const dataDir = tempDir('acp-data');
    const work = tempDir('acp-work');
    const env = { SKEIN_DATA_DIR: dataDir, SKEIN_WORKDIR: work, SKEIN_APPROVAL: 'on-write' };
    const run = start(env);
    await initialize(run);
    const { sessionId: id } = await run.connection.agent.request('session/new', { cwd: work, mcpServers: [] });
    const prompt = (text: string) => run.connection.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text }] });
    const file = path.join(work, 'a.txt');

    // Allow always: the write runs, and the next write to the same file is covered by the session rule.
    run.answerPermission = async (request) => ({ outcome: { outcome: 'selected', optionId: request.options.find((o) => o.kind === 'allow_always')!.optionId } });
    expect((await prompt('tool: write_file {"path":"a.txt","content":"hello\\n"}')).stopReason).toBe('end_turn');
    expect(fs.readFileSync(file, 'utf8')).toBe('hello\n');
    expect(run.permissions).toHaveLength(1);
    const asked = run.permissions[0]!;
    expect(asked.options.map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once']);
    expect(asked.toolCall.content).toContainEqual({ type: 'diff', path: file, oldText: null, newText: 'hello\n' });
    expect((await prompt('tool: write_file {"path":"a.txt","content":"hello again\\n"}')).stopReason).toBe('end_turn');
    expect(run.permissions).toHaveLength(1);
    expect(fs.readFileSync(file, 'utf8')).toBe('hello again\n');
    // The completed write carries its diff, the old text recovered from skein's own diff.
    const writes = updatesOf(run, id, 'tool_call_update').filter((u) => (u as { status?: string }).status === 'completed') as { content: { type: string }[] }[];
    expect(writes.at(-1)!.content).toContainEqual({ type: 'diff', path: file, oldText: 'hello\n', newText: 'hello again\n' });

    // Reject: the edit does not happen, its update says failed.
    run.answerPermission = async (request) => ({ outcome: { outcome: 'selected', optionId: request.options.find((o) => o.kind === 'reject_once')!.optionId } });
    expect((await prompt('tool: edit_file {"path":"a.txt","old":"again","new":"there"}')).stopReason).toBe('end_turn');
    expect(run.permissions).toHaveLength(2);
    expect(run.permissions[1]!.toolCall.content).toContainEqual({ type: 'diff', path: file, oldText: 'again', newText: 'there' });
    expect(fs.readFileSync(file, 'utf8')).toBe('hello again\n');
    const rejected = run.permissions[1]!.toolCall.toolCallId;
    expect(updatesOf(run, id, 'tool_call_update').filter((u) => (u as { toolCallId: string }).toolCallId === rejected).at(-1)).toMatchObject({ status: 'failed' });

    // session/cancel while a call waits: the client answers `cancelled`, the turn stops with `cancelled`.
    run.answerPermission = (_request, signal) =>
      new Promise((resolve) => {
        void run.connection.agent.notify('session/cancel', { sessionId: id });
        const done = () => resolve({ outcome: { outcome: 'cancelled' } });
        // The agent withdraws its question ($/cancel_request) once skein decided the call by the cancel.
        if (signal.aborted) done();
        else signal.addEventListener('abort', done);
      });
    expect((await prompt('bash: echo never-runs > b.txt')).stopReason).toBe('cancelled');
    expect(fs.existsSync(path.join(work, 'b.txt'))).toBe(false);

    // session/cancel while the model is thinking.
    const slow = prompt('delay: 120000');
    await until(() => logged(dataDir, id, 'delay: 120000'), 'the slow prompt in the log');
    await run.connection.agent.notify('session/cancel', { sessionId: id });
    expect((await slow).stopReason).toBe('cancelled');

    // The plan.
    expect((await prompt('plan: [x] read the code; [>] write the fix; [ ] run the tests')).stopReason).toBe('end_turn');
    expect(updatesOf(run, id, 'plan').at(-1)).toMatchObject({
      entries: [
        { content: 'read the code', status: 'completed' },
        { content: 'write the fix', status: 'in_progress' },
        { content: 'run the tests', status: 'pending' },
      ],
    });

    // /compact with its focus: the compaction is shown (this client did not ask for compaction_update: as agent text, the event in _meta).
    expect((await prompt('/compact keep the plan')).stopReason).toBe('end_turn');
    const compaction = updatesOf(run, id, 'agent_message_chunk').map((u) => (u as { _meta?: { skein?: { compaction?: { phase: string; instructions?: string } } } })._meta?.skein?.compaction).filter(Boolean);
    expect(compaction.map((c) => c!.phase)).toEqual(['started', 'finished']);
    expect(compaction[1]!.instructions).toBe('keep the plan');
    expect(agentText(run, id)).toMatch(/⟳ compacted \(manual/);

    expect(await run.close()).toBe(0);
    runs.splice(runs.indexOf(run), 1);

    // A new `skein acp` on the same data folder loads the session: the history comes back as updates before the answer.
    const again = start(env);
    await again.connection.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: { session: { compaction: {} } } });
    const loaded = await again.connection.agent.request('session/load', { sessionId: id, cwd: work, mcpServers: [] });
    expect(loaded.modes).toMatchObject({ currentModeId: 'on-write' });
    expect(loaded.modes?.availableModes).toHaveLength(4);
    const replayed = updatesOf(again, id);
    const users = replayed.filter((u) => u.sessionUpdate === 'user_message_chunk').map((u) => (u as { content: { text: string } }).content.text);
    expect(users).toEqual([
      'tool: write_file {"path":"a.txt","content":"hello\\n"}',
      'tool: write_file {"path":"a.txt","content":"hello again\\n"}',
      'tool: edit_file {"path":"a.txt","old":"again","new":"there"}',
      'bash: echo never-runs > b.txt',
      'delay: 120000',
      'plan: [x] read the code; [>] write the fix; [ ] run the tests',
      '/compact keep the plan',
    ]);
    expect(replayed.filter((u) => u.sessionUpdate === 'tool_call').length).toBeGreaterThanOrEqual(5);
    expect(replayed.some((u) => u.sessionUpdate === 'plan')).toBe(true);
    // This client said it shows compactions: compaction_update, started then completed.
    expect(replayed.filter((u) => u.sessionUpdate === 'compaction_update').map((u) => (u as { status: string }).status)).toEqual(['in_progress', 'completed']);
    // The loaded session goes on.
    const more = await again.connection.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'echo: still here' }] });
    expect(more.stopReason).toBe('end_turn');
    expect(agentText(again, id)).toContain('still here');
  });
});

describe('skein acp --server URL', () => {
  it("drives a running server: the editor's MCP server joins, a turn limit ends with max_turn_requests, bad prompts are refused", SLOW, async () => {
    const server = await startTestServer({ SKEIN_MAX_STEPS_PER_TURN: '1' });
    servers.push(server);
    const run = start({ SKEIN_TOKEN: server.token!, SKEIN_DATA_DIR: tempDir('acp-unused') }, ['--server', server.url]);
    await initialize(run);
    const entry = stdioEntry() as { command: string; args: string[] };
    const record = path.join(tempDir('acp-record'), 'mcp.json');
    const { sessionId: id } = await run.connection.agent.request('session/new', {
      cwd: server.workDir,
      mcpServers: [{ name: 'editor tools', command: entry.command, args: entry.args, env: [{ name: 'MCP_TEST_RECORD', value: record }, { name: 'SEEN', value: '${HOME}' }] }],
    });
    // The editor's values are taken literally: nothing is expanded from skein's environment.
    expect((JSON.parse(fs.readFileSync(record, 'utf8')) as { env: Record<string, string> }).env.SEEN).toBe('${HOME}');
    // The session is the running server's, in the editor's folder.
    const snapshot = (await (await fetch(`${server.url}/api/sessions/${id}`, { headers: { authorization: `Bearer ${server.token}` } })).json()) as { workspace?: { workDir: string } };
    expect(snapshot.workspace?.workDir).toBe(server.workDir);
    // The server's name made to fit skein's tool names; its tool runs; the second model call is past the limit.
    const response = await run.connection.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'mcp: editor-tools echo {"text":"from the editor"}' }] });
    expect(response.stopReason).toBe('max_turn_requests');
    const call = updatesOf(run, id, 'tool_call')[0] as { toolCallId: string; title: string };
    expect(call.title).toBe('editor-tools: echo');
    const result = updatesOf(run, id, 'tool_call_update').find((u) => (u as { toolCallId: string; status?: string }).toolCallId === call.toolCallId && (u as { status?: string }).status === 'completed');
    expect(JSON.stringify(result)).toContain('from the editor');

    // Audio is refused with a reason; bytes that are no image too; an unknown session is not found.
    await expect(run.connection.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }] })).rejects.toThrow(/audio/);
    await expect(run.connection.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] })).rejects.toThrow(/not a PNG, JPEG, GIF or WebP/);
    await expect(run.connection.agent.request('session/prompt', { sessionId: 'nope', prompt: [{ type: 'text', text: 'echo: x' }] })).rejects.toMatchObject({ code: -32002 });
    await expect(run.connection.agent.request('session/load', { sessionId: 'nope', cwd: server.workDir, mcpServers: [] })).rejects.toMatchObject({ code: -32002 });
    // A folder outside the server's projects: the editor is asked; dismissed (cancelled), nothing opens, and the error says how to allow it.
    await expect(run.connection.agent.request('session/new', { cwd: tempDir('acp-elsewhere'), mcpServers: [] })).rejects.toThrow(/not inside a project: opening it in skein was denied/);
    expect(run.permissions.at(-1)?.toolCall.title).toMatch(/^Open .*acp-elsewhere.* in skein\?$/);
    // An attached file is quoted in the message the model gets.
    const withFile = await run.connection.agent.request('session/prompt', {
      sessionId: id,
      prompt: [
        { type: 'text', text: 'echo: see ' },
        { type: 'resource', resource: { uri: 'file:///tmp/notes.md', text: 'the notes' } },
      ],
    });
    expect(withFile.stopReason).toBe('end_turn');
    expect(agentText(run, id)).toContain('the notes');
  });
});

describe('skein acp through a provider (the OpenAI fake, its real SDK)', () => {
  it('streams the answer as it comes, each piece once; a refused request ends with refusal, a server error is an error of session/prompt; an automatic compaction is shown', SLOW, async () => {
    const fake = await startOpenAIFake();
    fakes.push(fake);
    const work = tempDir('acp-work');
    const run = start({ SKEIN_DATA_DIR: tempDir('acp-data'), SKEIN_WORKDIR: work, SKEIN_MODEL: 'gpt-4.1', OPENAI_API_KEY: fake.key!, OPENAI_BASE_URL: fake.url, SKEIN_RETRY_MAX: '0', SKEIN_CONTEXT_WINDOW: '8000', SKEIN_COMPACT_THRESHOLD_RATIO: '0.3' });
    await initialize(run);
    const { sessionId: id } = await run.connection.agent.request('session/new', { cwd: work, mcpServers: [] });
    const prompt = (text: string) => run.connection.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text }] });
    const answer = 'streamed through the real SDK, word by word, to the editor';
    expect((await prompt(`echo: ${answer}`)).stopReason).toBe('end_turn');
    const chunks = updatesOf(run, id, 'agent_message_chunk').map((u) => (u as { content: { text: string } }).content.text);
    expect(chunks.join('')).toBe(answer);
    expect(chunks.length).toBeGreaterThan(1);

    fake.failures.next(400);
    expect((await prompt('echo: refused')).stopReason).toBe('refusal');
    fake.failures.next(500);
    await expect(prompt('echo: broken')).rejects.toThrow(/500|error/);

    // A compaction skein starts by itself in a turn (the context past SKEIN_COMPACT_THRESHOLD_RATIO) is shown in that turn.
    const before = updatesOf(run, id, 'agent_message_chunk').length;
    expect((await prompt('big: 2000')).stopReason).toBe('end_turn');
    const shown = updatesOf(run, id, 'agent_message_chunk')
      .slice(before)
      .map((u) => (u as { _meta?: { skein?: { compaction?: { phase: string; trigger: string } } } })._meta?.skein?.compaction)
      .filter(Boolean);
    expect(shown.map((c) => c!.phase)).toContain('finished');
    expect(['threshold', 'preflight']).toContain(shown.find((c) => c!.phase === 'finished')!.trigger);
    expect(fake.violations).toEqual([]);
  });
});

describe('skein acp: a question decided elsewhere, and one still open at session/load', () => {
  it('withdraws the question when the web UI decides; asks again a call that waits when another editor loads the session', SLOW, async () => {
    const server = await startTestServer({ SKEIN_APPROVAL: 'on-write' });
    servers.push(server);
    const env = { SKEIN_TOKEN: server.token!, SKEIN_DATA_DIR: tempDir('acp-unused') };
    const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
    const post = (route: string, body: unknown) => fetch(server.url + route, { method: 'POST', headers, body: JSON.stringify(body) });
    const run = start(env, ['--server', server.url]);
    await initialize(run);
    const { sessionId: id } = await run.connection.agent.request('session/new', { cwd: server.workDir, mcpServers: [] });

    // The editor leaves the question open; the web UI approves: the question is withdrawn, the turn ends.
    let withdrawn = false;
    run.answerPermission = (_request, signal) =>
      new Promise((resolve) =>
        signal.addEventListener('abort', () => {
          withdrawn = true;
          resolve({ outcome: { outcome: 'cancelled' } });
        }),
      );
    const turn = run.connection.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'bash: echo hi > c.txt' }] });
    await until(() => run.permissions.length === 1, 'the question');
    expect((await post(`/api/sessions/${id}/approvals/${run.permissions[0]!.toolCall.toolCallId}`, { decision: 'approve' })).status).toBe(202);
    expect((await turn).stopReason).toBe('end_turn');
    expect(withdrawn).toBe(true);
    expect(fs.readFileSync(path.join(server.workDir, 'c.txt'), 'utf8')).toBe('hi\n');
    expect(await run.close()).toBe(0);
    runs.splice(runs.indexOf(run), 1);

    // A message from the web UI makes a call wait; an editor that loads the session is asked, and its answer runs the call.
    expect((await post(`/api/sessions/${id}/messages`, { text: 'bash: echo later > d.txt' })).status).toBe(202);
    await until(async () => ((await (await fetch(`${server.url}/api/sessions/${id}`, { headers })).json()) as { state: string }).state === 'WaitingForApproval', 'the call waiting');
    const other = start(env, ['--server', server.url]);
    other.answerPermission = async (request) => ({ outcome: { outcome: 'selected', optionId: request.options.find((o) => o.kind === 'allow_once')!.optionId } });
    await initialize(other);
    await other.connection.agent.request('session/load', { sessionId: id, cwd: server.workDir, mcpServers: [] });
    await until(() => fs.existsSync(path.join(server.workDir, 'd.txt')), 'the approved call to run');
    expect(other.permissions.map((p) => p.toolCall.title)).toEqual(['echo later > d.txt']);
    // The message typed in the web UI is part of the history the editor got.
    expect(updatesOf(other, id, 'user_message_chunk').map((u) => (u as { content: { text: string } }).content.text)).toContain('bash: echo later > d.txt');

    // The server goes away: a prompt says so at once (no wait for ever), naming what to do.
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    await until(() => other.stderr().includes("closed the session's stream"), 'the stream lost');
    await expect(other.connection.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'echo: x' }] })).rejects.toThrow(/load the session again/);
  });
});
