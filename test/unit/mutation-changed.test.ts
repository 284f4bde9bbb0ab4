// The routine mutation run's choices (scripts/mutation/changed-scope.ts): which
// files of Stryker's scope a change touched, which tests of the mutation run
// reach them, and each file's score from Stryker's report.
import { describe, expect, it } from 'vitest';
import { belowThreshold, changedInScope, coveringTests, globToRegExp, scoresByFile, testsOfConfig } from '../../scripts/mutation/changed-scope.js';

describe('changedInScope', () => {
  const mutate = ['server/http/access.ts', 'server/tools/env.ts:55-105', 'server/llm/*.ts', '!server/llm/skip.ts'];

  it('keeps only changed files of the scope, in the scope\'s order, without line ranges', () => {
    expect(changedInScope(mutate, ['README.md', 'server/tools/env.ts', 'server/http/access.ts', 'server/http/headers.ts'])).toEqual(['server/http/access.ts', 'server/tools/env.ts']);
  });

  it('matches a glob entry within its folder, and takes out an excluded file', () => {
    expect(changedInScope(mutate, ['server/llm/reasoning.ts', 'server/llm/skip.ts', 'server/llm/sub/deep.ts'])).toEqual(['server/llm/reasoning.ts']);
  });

  it('nothing changed in scope: nothing; a file named twice (changed and untracked) once; Windows separators read as posix', () => {
    expect(changedInScope(mutate, ['docs/testing.md', 'test/unit/access.test.ts'])).toEqual([]);
    expect(changedInScope(mutate, ['server/http/access.ts', 'server\\http\\access.ts'])).toEqual(['server/http/access.ts']);
  });

  it('a file whose name only starts or ends like a scope file is not in scope', () => {
    expect(changedInScope(['server/tools/env.ts'], ['server/tools/env.ts.orig', 'old/server/tools/env.ts', 'server/tools/envXts'])).toEqual([]);
  });
});

describe('globToRegExp', () => {
  it('* stays in its folder, ** crosses folders (or none), ? is one character, dots are literal', () => {
    expect(globToRegExp('test/unit/access*.test.ts').test('test/unit/access-near.test.ts')).toBe(true);
    expect(globToRegExp('test/unit/access*.test.ts').test('test/unit/sub/access.test.ts')).toBe(false);
    expect(globToRegExp('test/**/*.test.ts').test('test/a.test.ts')).toBe(true);
    expect(globToRegExp('test/**/*.test.ts').test('test/a/b/c.test.ts')).toBe(true);
    expect(globToRegExp('a?.ts').test('ab.ts')).toBe(true);
    expect(globToRegExp('a?.ts').test('a/.ts')).toBe(false);
    expect(globToRegExp('a.ts').test('aXts')).toBe(false);
  });
});

describe('coveringTests', () => {
  const graph = new Map<string, string[]>([
    ['test/unit/a.test.ts', ['server/a.ts']],
    ['test/unit/through-helper.test.ts', ['test/helpers/h.ts']],
    ['test/helpers/h.ts', ['server/b.ts']],
    ['server/b.ts', ['server/a.ts']],
    ['test/unit/other.test.ts', ['server/c.ts']],
    // An import circle that never reaches a target, and one that does.
    ['server/c.ts', ['server/d.ts']],
    ['server/d.ts', ['server/c.ts']],
    ['test/unit/circle.test.ts', ['server/e.ts']],
    ['server/e.ts', ['server/f.ts']],
    ['server/f.ts', ['server/e.ts', 'server/a.ts']],
  ]);
  const tests = ['test/unit/a.test.ts', 'test/unit/through-helper.test.ts', 'test/unit/other.test.ts', 'test/unit/circle.test.ts'];

  it('a test that imports the file, directly, through a helper, or around a circle', () => {
    expect(coveringTests(['server/a.ts'], tests, graph)).toEqual(['test/unit/a.test.ts', 'test/unit/through-helper.test.ts', 'test/unit/circle.test.ts']);
  });

  it('only the tests of the given list, and none for a file nothing imports', () => {
    expect(coveringTests(['server/b.ts'], tests, graph)).toEqual(['test/unit/through-helper.test.ts']);
    expect(coveringTests(['server/a.ts'], ['test/unit/a.test.ts'], graph)).toEqual(['test/unit/a.test.ts']);
    expect(coveringTests(['server/z.ts'], tests, graph)).toEqual([]);
  });

  it('several targets: the union of their tests', () => {
    expect(coveringTests(['server/b.ts', 'server/d.ts'], tests, graph)).toEqual(['test/unit/through-helper.test.ts', 'test/unit/other.test.ts']);
  });
});

describe('testsOfConfig', () => {
  it('the files matched by the mutation config\'s include globs, sorted', () => {
    expect(testsOfConfig(['test/unit/paths*.test.ts', 'test/unit/git*.test.ts'], ['server/paths.ts', 'test/unit/paths.test.ts', 'test/unit/git-batch.test.ts', 'test/unit/access.test.ts'])).toEqual(['test/unit/git-batch.test.ts', 'test/unit/paths.test.ts']);
  });
});

describe('scoresByFile and belowThreshold', () => {
  const mutants = (statuses: Record<string, number>) => Object.entries(statuses).flatMap(([status, n]) => Array.from({ length: n }, () => ({ status })));
  const report = {
    files: {
      'server/a.ts': { mutants: mutants({ Killed: 8, Timeout: 1, Survived: 1, CompileError: 5, Ignored: 3, RuntimeError: 2 }) },
      'server/b.ts': { mutants: mutants({ Killed: 17, Survived: 1, NoCoverage: 2 }) },
      'server/c.ts': { mutants: mutants({ Ignored: 4 }) },
    },
  };

  it('detected (killed, timeout) over valid (with survived and no coverage); errors and ignored ones do not count', () => {
    const scores = scoresByFile(report, ['server/a.ts', 'server/b.ts', 'server/c.ts', 'server/absent.ts']);
    expect(scores.map((s) => [s.file, s.score])).toEqual([['server/a.ts', 90], ['server/b.ts', 85], ['server/c.ts', null], ['server/absent.ts', null]]);
    expect(scores[1]).toMatchObject({ killed: 17, survived: 1, noCoverage: 2, timeout: 0 });
  });

  it('exactly 90% passes, below fails; a file without valid mutants never fails', () => {
    const scores = scoresByFile(report, ['server/a.ts', 'server/b.ts', 'server/c.ts']);
    expect(belowThreshold(scores, 90).map((s) => s.file)).toEqual(['server/b.ts']);
  });
});
