// The pure parts of `skein acp`: how events read as ACP updates, the diff of
// a write, the stop reasons, the names of an editor's MCP servers, the slash
// commands.
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../server/tools/diff.js';
import { oldTextOf, diffContent, toolTitle } from '../../server/acp/tool-display.js';
import { endingOf } from '../../server/acp/turn.js';
import { mcpConfigOf, serverName } from '../../server/acp/mcp-servers.js';
import { parseSlash } from '../../server/acp/commands.js';
import { UpdateTranslator } from '../../server/acp/updates.js';
import type { SkeinEvent } from '../../shared/protocol.js';

const ts = '2026-01-01T00:00:00.000Z';

describe('acp: tool display', () => {
  it("recovers write_file's old text from skein's own diff, and none from a note or a new file", () => {
    const before = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n';
    const after = 'one\ntwo\nTHREE\nfour\nfive\nsix\nseven\neight\n';
    expect(oldTextOf(`wrote 10 bytes to a.txt\n${unifiedDiff('a.txt', before, after)}`, after)).toBe(before);
    expect(oldTextOf(unifiedDiff('a.txt', undefined, after), after)).toBeNull();
    expect(oldTextOf('(no diff: the file was binary)', after)).toBeNull();
    // A diff that does not match the content (cut, or stale) gives no old text rather than a wrong one.
    expect(oldTextOf(unifiedDiff('a.txt', before, after), 'something else entirely\n')).toBeNull();
  });

  it('gives absolute paths and edit_file its old and new strings', () => {
    expect(diffContent('edit_file', { path: 'src/a.ts', old: 'x', new: 'y' }, '/w')).toEqual({ type: 'diff', path: '/w/src/a.ts', oldText: 'x', newText: 'y' });
    expect(diffContent('bash', { command: 'ls' }, '/w')).toBeUndefined();
    expect(toolTitle('mcp__files__read', {})).toBe('files: read');
    expect(toolTitle('bash', { command: 'x'.repeat(500) })).toHaveLength(200);
  });
});

describe('acp: stop reasons', () => {
  it('maps how a turn ended', () => {
    expect(endingOf('EndOfTurn', undefined, undefined)).toEqual({ stopReason: 'end_turn' });
    // The answer was cut (context full or max_tokens) and skein stopped continuing it.
    expect(endingOf('EndOfTurn', undefined, undefined, true)).toEqual({ stopReason: 'max_tokens' });
    expect(endingOf('Cancelled', undefined, undefined)).toEqual({ stopReason: 'cancelled' });
    expect(endingOf('Error', 'turn_limit', 'Stopped')).toEqual({ stopReason: 'max_turn_requests' });
    expect(endingOf('Error', 'provider_400', 'bad')).toEqual({ stopReason: 'refusal' });
    expect(endingOf('Error', 'context_overflow', 'too long')).toEqual({ stopReason: 'refusal' });
    // A rate limit or a server's failure is not the provider refusing: an error the editor shows.
    expect(endingOf('Error', 'provider_429', 'slow down')).toEqual({ error: 'slow down', code: 'provider_429' });
    expect(endingOf('Error', 'provider_500', 'broken')).toEqual({ error: 'broken', code: 'provider_500' });
  });
});

describe("acp: an editor's MCP servers", () => {
  it('makes names fit mcp__<server>__<tool> and skips SSE', () => {
    expect(serverName('my files')).toBe('my-files');
    expect(serverName('a__b')).toBe('a_b');
    expect(serverName('_x_')).toBe('x');
    expect(serverName('!!!')).toBe('editor');
    expect(serverName('n'.repeat(60))).toHaveLength(40);
    const warnings: string[] = [];
    const body = mcpConfigOf(
      [
        { name: 'fs', command: 'node', args: ['s.js'], env: [{ name: 'K', value: '${HOME}' }] },
        { type: 'http', name: 'web', url: 'http://127.0.0.1:1/mcp', headers: [{ name: 'Authorization', value: 'Bearer t' }] },
        { type: 'sse', name: 'old', url: 'http://127.0.0.1:1/sse', headers: [] },
      ],
      (m) => warnings.push(m),
    );
    expect(body).toEqual({ mcpServers: { fs: { command: 'node', args: ['s.js'], env: { K: '${HOME}' } }, web: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer t' } } } });
    expect(warnings).toEqual([expect.stringContaining('SSE')]);
    expect(mcpConfigOf([], () => {})).toBeUndefined();
  });
});

describe('acp: slash commands', () => {
  it('knows its commands and leaves a path alone', () => {
    expect(parseSlash('/compact keep the tests')).toEqual({ name: 'compact', arg: 'keep the tests' });
    expect(parseSlash('/mode plan')).toEqual({ name: 'mode', arg: 'plan' });
    expect(parseSlash('/usr/bin is broken')).toBeUndefined();
    expect(parseSlash('/unknown')).toBeUndefined();
  });
});

describe('acp: updates', () => {
  it('sends streamed text once: the whole answer adds only what the stream did not say', () => {
    const t = new UpdateTranslator({ workDir: '/w', compactionUpdates: false });
    const texts = (updates: ReturnType<UpdateTranslator['event']>) => updates.map((u) => ('content' in u && u.content && 'text' in u.content ? `${u.sessionUpdate}:${u.content.text}` : u.sessionUpdate));
    expect(texts(t.delta({ type: 'delta', afterSeq: 3, attempt: 0, index: 0, text: 'Hel', channel: 'thinking' }))).toEqual(['agent_thought_chunk:Hel']);
    expect(texts(t.delta({ type: 'delta', afterSeq: 3, attempt: 0, index: 1, text: 'Hello ' }))).toEqual(['agent_message_chunk:Hello ']);
    const agent: SkeinEvent = { seq: 4, ts, kind: 'agent', text: 'Hello world', model: 'm', endOfTurn: true, reasoning: { provider: 'anthropic', model: 'm', output: [], text: 'Hello?' } };
    expect(texts(t.event(agent, false))).toEqual(['agent_thought_chunk:lo?', 'agent_message_chunk:world']);
    // A retry that starts again: marked, then the new attempt's text.
    t.delta({ type: 'delta', afterSeq: 9, attempt: 0, index: 0, text: 'par' });
    expect(texts(t.delta({ type: 'delta', afterSeq: 9, attempt: 1, index: 0, text: 'Full' }))).toEqual(['agent_message_chunk:\n\n(retrying)\n\n', 'agent_message_chunk:Full']);
  });

  it("does not echo the editor's own prompt, but shows a message typed elsewhere and the history's", () => {
    const t = new UpdateTranslator({ workDir: '/w', compactionUpdates: false });
    t.expectPrompt('hi');
    expect(t.event({ seq: 1, ts, kind: 'user', text: 'hi' }, false)).toEqual([]);
    expect(t.event({ seq: 2, ts, kind: 'user', text: 'from the web' }, false)).toHaveLength(1);
    expect(t.event({ seq: 1, ts, kind: 'user', text: 'hi' }, true)).toHaveLength(1);
  });

  it('turns a tool call into tool_call, in_progress when tools run, then the result; an update_plan result into a plan', () => {
    const t = new UpdateTranslator({ workDir: '/w', compactionUpdates: true });
    const [call] = t.event({ seq: 1, ts, kind: 'tool_call', callId: 'c1', name: 'update_plan', input: { steps: [{ step: 'a', status: 'done' }] } }, false);
    expect(call).toMatchObject({ sessionUpdate: 'tool_call', toolCallId: 'c1', kind: 'think', status: 'pending' });
    expect(t.event({ seq: 2, ts, kind: 'state', from: 'ProcessingLLMResponse', to: 'RunningTools', reason: '' }, false)).toEqual([{ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'in_progress' }]);
    const result = t.event({ seq: 3, ts, kind: 'tool_result', callId: 'c1', name: 'update_plan', output: 'ok', isError: false, durationMs: 1 }, false);
    expect(result.map((u) => u.sessionUpdate)).toEqual(['tool_call_update', 'plan']);
    expect(result[1]).toMatchObject({ entries: [{ content: 'a', status: 'completed' }] });
    // A compaction, for a client that shows them: one id from start to end.
    const started = t.event({ seq: 4, ts, kind: 'compaction', phase: 'started', trigger: 'manual' }, false)[0] as { compactionId: string };
    const finished = t.event({ seq: 5, ts, kind: 'compaction', phase: 'finished', trigger: 'manual', tokensBefore: 5000, tokensAfter: 900, summary: 'S' }, false)[0] as { compactionId: string; status: string };
    expect(finished.compactionId).toBe(started.compactionId);
    expect(finished.status).toBe('completed');
  });
});

describe('acp: tool call status', () => {
  const call = (seq: number, callId: string, name: string, input: Record<string, unknown>): SkeinEvent => ({ seq, ts, kind: 'tool_call', callId, name, input });
  const statuses = (updates: ReturnType<UpdateTranslator['event']>) => updates.map((u) => `${(u as { toolCallId?: string }).toolCallId}:${(u as { status?: string }).status}`);

  it('in on-write, the calls ahead of a command start; the command and those after it stay pending until it is allowed', () => {
    const t = new UpdateTranslator({ workDir: '/w', compactionUpdates: false, mode: () => 'on-write' });
    t.event(call(1, 'r1', 'read_file', { path: 'a' }), false);
    t.event(call(2, 'w1', 'bash', { command: 'make' }), false);
    t.event(call(3, 'r2', 'read_file', { path: 'c' }), false);
    expect(statuses(t.event({ seq: 4, ts, kind: 'state', from: 'ProcessingLLMResponse', to: 'RunningTools', reason: '' }, false))).toEqual(['r1:in_progress']);
    expect(statuses(t.event({ seq: 5, ts, kind: 'tool_result', callId: 'r1', name: 'read_file', output: 'a', isError: false, durationMs: 1 }, false))).toEqual(['r1:completed']);
    const preview = { kind: 'command' as const, text: 'make' };
    expect(t.event({ seq: 6, ts, kind: 'approval_request', callId: 'w1', name: 'bash', input: { command: 'make' }, preview, rule: { tool: 'bash', command: 'make' } }, false)).toEqual([]);
    expect(statuses(t.event({ seq: 7, ts, kind: 'approval_decision', callId: 'w1', name: 'bash', decision: 'approve_session', by: 'user', rule: { tool: 'bash', command: 'make' } }, false))).toEqual(['w1:in_progress']);
    expect(statuses(t.event({ seq: 8, ts, kind: 'state', from: 'WaitingForApproval', to: 'RunningTools', reason: '' }, false))).toEqual(['r2:in_progress']);
    // The session rule covers the same command next time: it starts without asking.
    t.event(call(9, 'w2', 'bash', { command: 'make' }), false);
    expect(statuses(t.event({ seq: 10, ts, kind: 'state', from: 'ProcessingLLMResponse', to: 'RunningTools', reason: '' }, false))).toEqual(['w2:in_progress']);
  });

  it('a denied call is failed at once, saying why; a call guessed to run that is asked about goes back to pending', () => {
    const t = new UpdateTranslator({ workDir: '/w', compactionUpdates: false, mode: () => 'never' });
    t.event(call(1, 'b1', 'bash', { command: 'ls' }), false);
    expect(statuses(t.event({ seq: 2, ts, kind: 'state', from: 'ProcessingLLMResponse', to: 'RunningTools', reason: '' }, false))).toEqual(['b1:in_progress']);
    const preview = { kind: 'command' as const, text: 'ls' };
    expect(statuses(t.event({ seq: 3, ts, kind: 'approval_request', callId: 'b1', name: 'bash', input: { command: 'ls' }, preview, rule: { tool: 'bash', command: 'ls' } }, false))).toEqual(['b1:pending']);
    const [denied] = t.event({ seq: 4, ts, kind: 'approval_decision', callId: 'b1', name: 'bash', decision: 'deny', by: 'message', reason: 'stop' }, false);
    expect(denied).toMatchObject({ status: 'failed', content: [{ type: 'content', content: { type: 'text', text: 'Denied: the user sent a message instead: stop' } }] });
  });
});
