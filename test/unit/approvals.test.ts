// The approval policy (which calls ask, per mode and per tool's readOnly flag),
// session rules, the approval frame's validation and the would-be diff.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseClientFrame } from '../../shared/protocol.js';
import { needsApproval, offerFor, ruleFor, ruleMatches, unansweredCalls } from '../../server/agent/approvals.js';
import { protectedWhy } from '../../server/agent/approval-rules.js';
import { ruleWords } from '../../webui/approval-words.js';
import { previewOf } from '../../server/agent/approval-preview.js';
import { TOOLS } from '../../server/tools/registry.js';
import { LogBuilder } from '../helpers/events.js';
import { tempDir } from '../helpers/temp-dir.js';

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
  const work = tempDir('rules');
  fs.mkdirSync(path.join(work, 'src'));
  fs.mkdirSync(path.join(work, '.git'));
  fs.symlinkSync('.git/config', path.join(work, 'innocent.txt'));

  it('bash by its exact command, only ever from a string', () => {
    const rule = ruleFor({ name: 'bash', input: { command: 'npm test' } }, work);
    expect(rule).toEqual({ tool: 'bash', command: 'npm test' });
    expect(ruleMatches(rule, { name: 'bash', input: { command: 'npm test' } }, work)).toBe(true);
    expect(ruleMatches(rule, { name: 'bash', input: { command: 'npm test; rm -rf ~' } }, work)).toBe(false);
    expect(ruleMatches(rule, { name: 'bash', input: { command: ['npm test'] } }, work)).toBe(false);
    // Defect 6: an array command gave {tool: "bash"}, which matched every later bash call.
    expect(offerFor({ name: 'bash', input: { command: ['ls'] } }, work)).toEqual({ rule: { tool: 'bash' }, alwaysAsks: '"command" is not a string' });
  });

  it('write and edit tools by the one file, compared after normalising the path', () => {
    const rule = ruleFor({ name: 'edit_file', input: { path: './src/a.ts', old: 'x', new: 'y' } }, work);
    expect(rule).toEqual({ tool: 'edit_file', path: 'src/a.ts' });
    for (const same of ['src/a.ts', 'src//a.ts', 'src/a.ts/', 'src/../src/a.ts', path.join(work, 'src/a.ts')]) {
      expect(ruleMatches(rule, { name: 'edit_file', input: { path: same, old: 'q', new: 'r' } }, work)).toBe(true);
    }
    expect(ruleMatches(rule, { name: 'edit_file', input: { path: 'src/b.ts' } }, work)).toBe(false);
    expect(ruleMatches(rule, { name: 'edit_file', input: { path: 'src' } }, work)).toBe(false);
    expect(ruleMatches(rule, { name: 'write_file', input: { path: 'src/a.ts' } }, work)).toBe(false);
  });

  it('never covers .git at any depth, .mcp.json, instruction files or anything outside: those ask every time', () => {
    for (const p of ['.git/config', '.git/hooks/pre-commit', 'sub/.git/config', '.GIT/config', '.mcp.json', 'sub/.mcp.json', 'AGENTS.md', 'docs/CLAUDE.md', 'agents.md', '../outside.txt', '/etc/passwd', 'innocent.txt']) {
      const offer = offerFor({ name: 'write_file', input: { path: p, content: 'x' } }, work);
      expect(offer.alwaysAsks, p).toBeDefined();
      expect(ruleMatches(offer.rule, { name: 'write_file', input: { path: p, content: 'x' } }, work), p).toBe(false);
    }
    // A rule for a protected path, however it got into a log, covers nothing.
    expect(ruleMatches({ tool: 'write_file', path: '.git/config' }, { name: 'write_file', input: { path: '.git/config' } }, work)).toBe(false);
    expect(protectedWhy('src/a.ts')).toBeUndefined();
    expect(protectedWhy('src/.gitignore')).toBeUndefined();
  });

  it('a rule for a file does not follow a link made to a protected file later', () => {
    const dir = tempDir('rules-link');
    fs.mkdirSync(path.join(dir, '.git'));
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'x');
    const rule = ruleFor({ name: 'write_file', input: { path: 'notes.txt' } }, dir);
    expect(ruleMatches(rule, { name: 'write_file', input: { path: 'notes.txt' } }, dir)).toBe(true);
    fs.rmSync(path.join(dir, 'notes.txt'));
    fs.symlinkSync('.git/config', path.join(dir, 'notes.txt'));
    expect(ruleMatches(rule, { name: 'write_file', input: { path: 'notes.txt' } }, dir)).toBe(false);
  });

  it('MCP and other tools by their exact input, whatever the order of its keys', () => {
    const rule = ruleFor({ name: 'mcp__gh__create_issue', input: { repo: 'a/b', title: 't' } }, work);
    expect(rule).toEqual({ tool: 'mcp__gh__create_issue', input: { repo: 'a/b', title: 't' } });
    expect(ruleMatches(rule, { name: 'mcp__gh__create_issue', input: { title: 't', repo: 'a/b' } }, work)).toBe(true);
    expect(ruleMatches(rule, { name: 'mcp__gh__create_issue', input: { repo: 'a/b', title: 'u' } }, work)).toBe(false);
    expect(ruleMatches(rule, { name: 'mcp__gh__create_issue', input: { repo: 'a/b', title: 't', body: 'x' } }, work)).toBe(false);
  });

  it('old rules without their scope, as earlier versions logged them, match nothing', () => {
    expect(ruleMatches({ tool: 'bash' }, { name: 'bash', input: { command: 'touch UNAPPROVED' } }, work)).toBe(false);
    expect(ruleMatches({ tool: 'write_file' }, { name: 'write_file', input: { path: 'src/a.ts', content: '' } }, work)).toBe(false);
    expect(ruleMatches({ tool: 'edit_file' }, { name: 'edit_file', input: { path: 'src/a.ts' } }, work)).toBe(false);
    expect(ruleMatches({ tool: 'mcp__s__t' }, { name: 'mcp__s__t', input: {} }, work)).toBe(false);
  });
});

describe('the approval card says what a session approval covers', () => {
  it('the command, the file, the exact call; and nothing for an old rule', () => {
    expect(ruleWords({ tool: 'bash', command: 'npm test' })).toBe('`npm test`');
    expect(ruleWords({ tool: 'write_file', path: 'src/a.ts' })).toBe('writes to src/a.ts');
    expect(ruleWords({ tool: 'read_file', path: 'src/a.ts' })).toBe('read_file on src/a.ts');
    expect(ruleWords({ tool: 'mcp__s__t', input: {} })).toBe('this exact mcp__s__t call');
    expect(ruleWords({ tool: 'bash' })).toContain('nothing');
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
