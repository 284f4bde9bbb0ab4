// What a session rule for a file covers on a filesystem that folds case and on
// one that does not, the working folder itself as a target, and the reasons a
// session approval records nothing (each names the path and why).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { caseInsensitive, offerFor, protectedWhy, ruleMatches, scopeOf } from '../../server/agent/approval-rules.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A working folder `name` beside a link whose name is `name` with its case flipped: what a case-folding filesystem looks like from here. */
function foldingFolder(name: string): string {
  const parent = tempDir('fold');
  const dir = path.join(parent, name);
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  const flipped = [...name].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
  fs.symlinkSync(dir, path.join(parent, flipped));
  return dir;
}

describe('case of a path in a session rule', () => {
  it('where the filesystem folds case, a rule for src/a.ts covers SRC/A.TS; where it does not, it does not', () => {
    const folding = foldingFolder('Work');
    expect(caseInsensitive(folding)).toBe(true);
    const rule = offerFor({ name: 'write_file', input: { path: 'src/a.ts' } }, folding).rule;
    expect(rule).toEqual({ tool: 'write_file', path: 'src/a.ts' });
    expect(ruleMatches(rule, { name: 'write_file', input: { path: 'SRC/A.TS' } }, folding)).toBe(true);
    expect(ruleMatches(rule, { name: 'write_file', input: { path: 'src/b.ts' } }, folding)).toBe(false);

    const plain = tempDir('plain');
    fs.mkdirSync(path.join(plain, 'src'));
    expect(caseInsensitive(plain)).toBe(false);
    const strict = offerFor({ name: 'write_file', input: { path: 'src/a.ts' } }, plain).rule;
    expect(ruleMatches(strict, { name: 'write_file', input: { path: 'src/a.ts' } }, plain)).toBe(true);
    expect(ruleMatches(strict, { name: 'write_file', input: { path: 'SRC/A.TS' } }, plain)).toBe(false);
  });

  it('a sibling with the flipped name that is another folder is no folding; a name with no letters cannot tell, nor a missing folder', () => {
    const parent = tempDir('twins');
    fs.mkdirSync(path.join(parent, 'Twin'));
    fs.mkdirSync(path.join(parent, 'tWIN'));
    expect(caseInsensitive(path.join(parent, 'Twin'))).toBe(false);
    const digits = path.join(tempDir('digits'), '1234');
    fs.mkdirSync(digits);
    expect(caseInsensitive(digits)).toBe(false);
    expect(caseInsensitive(path.join(parent, 'missing'))).toBe(false);
  });

  it('a rule without its scope (as older versions logged them) matches nothing, nor does a rule a call whose path cannot be resolved, where case folds too', () => {
    const folding = foldingFolder('Scope');
    expect(caseInsensitive(folding)).toBe(true);
    const write = (p: unknown) => ({ name: 'write_file', input: { path: p } });
    expect(ruleMatches({ tool: 'write_file' }, write('src/a.ts'), folding)).toBe(false);
    expect(ruleMatches({ tool: 'write_file', path: 'src/a.ts' }, write(42), folding)).toBe(false);
    expect(ruleMatches({ tool: 'write_file', path: 'src/a.ts' }, write('../x'), folding)).toBe(false);
    // A scopeless bash rule against a call with no command either: undefined is never a command.
    expect(ruleMatches({ tool: 'bash' }, { name: 'bash', input: {} }, folding)).toBe(false);
    expect(ruleMatches({ tool: 'bash' }, { name: 'bash', input: { command: 'ls' } }, folding)).toBe(false);
  });

  it('is tried once per folder: the answer holds for the session', () => {
    const folding = foldingFolder('Once');
    expect(caseInsensitive(folding)).toBe(true);
    fs.rmSync(path.join(path.dirname(folding), 'oNCE'));
    expect(caseInsensitive(folding)).toBe(true);
  });
});

describe('what a path rule is offered and why none is recorded', () => {
  const work = tempDir('offer');
  fs.mkdirSync(path.join(work, 'src'));

  it('the working folder itself is "."; a path that is not a string or escapes the folder records nothing, saying why', () => {
    expect(offerFor({ name: 'write_file', input: { path: '.' } }, work).rule).toEqual({ tool: 'write_file', path: '.' });
    expect(offerFor({ name: 'write_file', input: { path: 42 } }, work)).toEqual({ rule: { tool: 'write_file' }, alwaysAsks: '"path" is not a string' });
    const outside = offerFor({ name: 'write_file', input: { path: '../x' } }, work);
    expect(outside.rule).toEqual({ tool: 'write_file' });
    expect(outside.alwaysAsks).toBe('../x is outside the working folder');
    const nul = offerFor({ name: 'write_file', input: { path: 'a\0b' } }, work);
    expect(nul.alwaysAsks).toBe('path contains a NUL byte');
    // A call whose path cannot be resolved is covered by no rule.
    expect(ruleMatches({ tool: 'write_file', path: 'x' }, { name: 'write_file', input: { path: 7 } }, work)).toBe(false);
    expect(ruleMatches({ tool: 'write_file', path: '../x' }, { name: 'write_file', input: { path: '../x' } }, work)).toBe(false);
  });

  it('a protected path offers its rule but records none, and the reason names it', () => {
    expect(offerFor({ name: 'write_file', input: { path: 'src/.git/config' } }, work)).toEqual({
      rule: { tool: 'write_file', path: 'src/.git/config' },
      alwaysAsks: 'src/.git/config is inside .git/, which a session approval never covers',
    });
    expect(protectedWhy('.git')).toBe('.git is inside .git/, which a session approval never covers');
    expect(protectedWhy('a/.Git')).toBe('a/.Git is inside .git/, which a session approval never covers');
    expect(protectedWhy('docs/Agents.MD')).toBe('docs/Agents.MD is a protected file (.mcp.json, AGENTS.md, CLAUDE.md), which a session approval never covers');
    expect(protectedWhy('../a')).toBe('../a is outside the working folder');
    expect(protectedWhy('/etc/passwd')).toBe('/etc/passwd is outside the working folder');
    // Names that only look like them are not protected.
    for (const p of ['.github/workflows/ci.yml', 'git/config', 'x.mcp.json', 'AGENTS.md.bak', 'src/..git', 'a..b/c']) expect(protectedWhy(p), p).toBeUndefined();
  });

  it('a rule for a file covers the same file through another tool name never, and an unknown tool is scoped by its exact input', () => {
    expect(scopeOf('bash')).toBe('command');
    expect(scopeOf('write_file')).toBe('path');
    expect(scopeOf('edit_file')).toBe('path');
    expect(scopeOf('read_file')).toBe('path');
    expect(scopeOf('mcp__x__write_file')).toBe('input');
    expect(scopeOf('no_such_tool')).toBe('input');
    // A tool whose input has no required path (search_history) is scoped by its input.
    expect(scopeOf('search_history')).toBe('input');
    // An input rule does not match an input-less rule's call, and a different tool's rule matches nothing.
    expect(ruleMatches({ tool: 'mcp__s__t', input: { a: 1 } }, { name: 'mcp__s__u', input: { a: 1 } }, work)).toBe(false);
    expect(ruleMatches({ tool: 'bash', command: 'ls' }, { name: 'bash', input: {} }, work)).toBe(false);
  });
});
