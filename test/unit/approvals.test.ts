// The approval policy (which calls ask, per mode and per tool's readOnly flag),
// session rules, the approval frame's validation and the would-be diff.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseClientFrame } from '../../shared/protocol.js';
import { needsApproval, ruleFor, ruleMatches, unansweredCalls } from '../../server/agent/approvals.js';
import { previewOf } from '../../server/agent/approval-preview.js';
import { TOOLS } from '../../server/tools/registry.js';
import { LogBuilder } from '../helpers/events.js';
import { tempDir } from '../helpers/server.js';

describe('needsApproval', () => {
  it('never: nothing asks; always: everything asks', () => {
    for (const t of TOOLS) {
      expect(needsApproval('never', t.spec.name)).toBe(false);
      expect(needsApproval('always', t.spec.name)).toBe(true);
    }
    expect(needsApproval('never', 'mcp__github__create_issue')).toBe(false);
  });

  it('on-write: tools that change things ask, read-only ones do not, MCP tools always do', () => {
    expect(needsApproval('on-write', 'bash')).toBe(true);
    expect(needsApproval('on-write', 'write_file')).toBe(true);
    expect(needsApproval('on-write', 'edit_file')).toBe(true);
    expect(needsApproval('on-write', 'read_file')).toBe(false);
    expect(needsApproval('on-write', 'search_history')).toBe(false);
    expect(needsApproval('on-write', 'compact_history')).toBe(false);
    // Classified by the flag, so tools added later fit without a list here.
    for (const t of TOOLS) expect(needsApproval('on-write', t.spec.name)).toBe(t.readOnly !== true);
    expect(needsApproval('on-write', 'mcp__fs__read_text_file')).toBe(true);
    // An unknown tool runs nothing (it gets an error result).
    expect(needsApproval('on-write', 'no_such_tool')).toBe(false);
  });
});

describe('session rules', () => {
  it('bash by its exact command, other tools by name', () => {
    const rule = ruleFor({ name: 'bash', input: { command: 'npm test' } });
    expect(rule).toEqual({ tool: 'bash', command: 'npm test' });
    expect(ruleMatches(rule, { name: 'bash', input: { command: 'npm test' } })).toBe(true);
    expect(ruleMatches(rule, { name: 'bash', input: { command: 'npm test; rm -rf ~' } })).toBe(false);
    const edits = ruleFor({ name: 'edit_file', input: { path: 'a', old: 'x', new: 'y' } });
    expect(edits).toEqual({ tool: 'edit_file' });
    expect(ruleMatches(edits, { name: 'edit_file', input: { path: 'b' } })).toBe(true);
    expect(ruleMatches(edits, { name: 'write_file', input: { path: 'b' } })).toBe(false);
  });
});

describe('unansweredCalls', () => {
  it('the calls of the last answer that have no result, in order', () => {
    const log = new LogBuilder();
    log.user('x');
    log.tools(['old'], true);
    log.tools(['a', 'b', 'c'], false);
    log.result('a');
    expect(unansweredCalls(log.events).map((c) => c.id)).toEqual(['b', 'c']);
  });
});

describe('the approval frame', () => {
  it('is validated with clear errors', () => {
    expect(parseClientFrame(JSON.stringify({ type: 'approval', callId: 'c1', decision: 'approve' }))).toEqual({ ok: true, value: { type: 'approval', callId: 'c1', decision: 'approve' } });
    expect(parseClientFrame(JSON.stringify({ type: 'approval', callId: 'c1', decision: 'deny', reason: ' too risky ' }))).toEqual({ ok: true, value: { type: 'approval', callId: 'c1', decision: 'deny', reason: 'too risky' } });
    expect(parseClientFrame(JSON.stringify({ type: 'approval', callId: 'c1', decision: 'ok' }))).toEqual({ ok: false, error: '"decision" must be one of approve, approve_session, deny' });
    expect(parseClientFrame(JSON.stringify({ type: 'approval', decision: 'approve' }))).toEqual({ ok: false, error: '"callId" must be a string' });
    expect(parseClientFrame(JSON.stringify({ type: 'approval', callId: 'c1', decision: 'approve_session', reason: 'x' }))).toEqual({ ok: false, error: '"reason" goes only with "deny"' });
    expect(parseClientFrame(JSON.stringify({ type: 'nope' }))).toMatchObject({ ok: false, error: expect.stringContaining('cancel or approval') });
  });
});

describe('previewOf', () => {
  it('bash: the command; write_file and edit_file: the diff they would make; changes nothing', async () => {
    const work = tempDir('preview');
    fs.writeFileSync(path.join(work, 'f.txt'), 'one\ntwo\nthree\n');
    expect(await previewOf('bash', { command: 'ls -la' }, work)).toEqual({ kind: 'command', text: 'ls -la' });
    const edit = await previewOf('edit_file', { path: 'f.txt', old: 'two', new: 'TWO' }, work);
    expect(edit.kind).toBe('diff');
    expect(edit.text.split('\n').filter((l) => /^[-+][^-+]/.test(l))).toEqual(['-two', '+TWO']);
    expect(edit.text.startsWith('--- a/f.txt\n+++ b/f.txt\n')).toBe(true);
    const write = await previewOf('write_file', { path: 'sub/new.txt', content: 'hi\n' }, work);
    expect(write.text).toContain('--- /dev/null');
    expect(write.text).toContain('+hi');
    expect(fs.readFileSync(path.join(work, 'f.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    expect(fs.existsSync(path.join(work, 'sub'))).toBe(false);
  });

  it('an edit that would fail, or a path outside the folder, shows the input instead', async () => {
    const work = tempDir('preview');
    fs.writeFileSync(path.join(work, 'f.txt'), 'a a\n');
    expect((await previewOf('edit_file', { path: 'f.txt', old: 'a', new: 'b' }, work)).kind).toBe('input');
    expect((await previewOf('write_file', { path: '../escape.txt', content: 'x' }, work)).kind).toBe('input');
    expect(await previewOf('mcp__s__t', { q: 1 }, work)).toEqual({ kind: 'input', text: '{\n  "q": 1\n}' });
  });
});
