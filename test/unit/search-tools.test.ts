// glob, grep and list against a fixture tree: .gitignore (nested, negated),
// binary files, symbolic links pointing outside, large files and long lines.
// grep runs through both engines, ripgrep and Node, which must agree.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { globMatcher } from '../../server/tools/search/glob-pattern.js';
import { globTool } from '../../server/tools/search/glob.js';
import { grepTool } from '../../server/tools/search/grep.js';
import { findRipgrep } from '../../server/tools/search/grep-ripgrep.js';
import { listTool } from '../../server/tools/search/list.js';
import { runTool, TOOLS } from '../../server/tools/registry.js';
import type { ToolContext } from '../../server/tools/tool.js';
import { tempDir } from '../helpers/temp-dir.js';

let root: string;
let outside: string;

function ctx(overrides: Partial<ToolContext> = {}): ToolContext {
  return { workDir: root, signal: new AbortController().signal, bashTimeoutMs: 10_000, outputLimit: 20_000, ...overrides };
}

function write(rel: string, content: string | Buffer, mtimeSeconds?: number): void {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  if (mtimeSeconds !== undefined) fs.utimesSync(file, mtimeSeconds, mtimeSeconds);
}

beforeAll(() => {
  root = tempDir('search-tree');
  outside = tempDir('search-outside');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'needle outside the working folder\n');
  write('.gitignore', '*.log\nbuild/\nnode_modules/\n!keep.log\n');
  write('src/a.ts', 'const x = 1;\n// needle one\nconst y = 2;\nconst z = 3;\nreturn needle;\n', 1_700_000_300);
  write('src/b.ts', 'nothing here\n', 1_700_000_100);
  write('src/nested/.gitignore', 'private.txt\n');
  write('src/nested/private.txt', 'needle in an ignored file\n');
  write('src/nested/c.ts', 'Needle with a capital\n', 1_700_000_200);
  write('app.log', 'needle in a log\n');
  write('keep.log', 'needle kept by a negated rule\n', 1_700_000_050);
  write('build/out.js', 'needle in a build output\n');
  write('node_modules/pkg/index.js', 'needle in a dependency\n');
  write('.hidden/h.txt', 'needle in a hidden folder\n', 1_700_000_010);
  write('image.bin', Buffer.concat([Buffer.from('needle\n'), Buffer.from([0, 1, 2, 3, 0]), Buffer.from('needle\n')]));
  write('many.txt', Array.from({ length: 3000 }, (_, i) => `needle line ${i + 1}`).join('\n') + '\n', 1_700_000_000);
  write('long.txt', `start needle ${'x'.repeat(5000)}\n`, 1_700_000_000);
  // Over the 20 MB limit: never searched.
  write('huge.txt', Buffer.alloc(21 * 1024 * 1024, 'needle\n'));
  fs.symlinkSync(outside, path.join(root, 'link-out'));
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'secret-link.txt'));
});

const engines = ['node', 'ripgrep'] as const;

describe('grep, with ripgrep and with the Node engine', () => {
  it('ripgrep is installed here, so both engines are really exercised', () => {
    // .ci/run installs ripgrep; without it the ripgrep half of these tests would prove nothing.
    expect(findRipgrep(), 'rg must be on PATH (apt-get install ripgrep)').toBeDefined();
  });

  it('an rg found through a relative PATH entry is never used (it would be the searched folder\'s own)', () => {
    const planted = tempDir('planted-rg');
    fs.writeFileSync(path.join(planted, 'rg'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    expect(findRipgrep(planted)).toBe(path.join(planted, 'rg'));
    expect(findRipgrep(path.relative(process.cwd(), planted))).toBeUndefined();
  });

  for (const engine of engines) {
    const grep = (input: Record<string, unknown>, c = ctx()) => grepTool(engine).run(input, c);

    it(`${engine}: honours .gitignore (nested, negated), skips binary, huge and linked files, keeps hidden ones`, async () => {
      const result = await grep({ pattern: 'needle', output_mode: 'files' });
      expect(result.isError).toBe(false);
      expect(result.output.split('\n')).toEqual(['.hidden/h.txt', 'keep.log', 'long.txt', 'many.txt', 'src/a.ts']);
    });

    it(`${engine}: lines mode gives path:line:text, context lines with -, groups split by --`, async () => {
      const plain = await grep({ pattern: 'needle', path: 'src' });
      expect(plain.output).toBe('src/a.ts:2:// needle one\nsrc/a.ts:5:return needle;');
      const withContext = await grep({ pattern: 'needle', path: 'src/a.ts', context: 1 });
      expect(withContext.output).toBe('src/a.ts-1-const x = 1;\nsrc/a.ts:2:// needle one\nsrc/a.ts-3-const y = 2;\nsrc/a.ts-4-const z = 3;\nsrc/a.ts:5:return needle;');
      const apart = await grep({ pattern: 'needle line (1|3)$', path: 'many.txt', context: 0 });
      expect(apart.output).toBe('many.txt:1:needle line 1\nmany.txt:3:needle line 3');
      const groups = await grep({ pattern: 'needle line (1|9)$', path: 'many.txt', context: 1 });
      expect(groups.output).toBe('many.txt:1:needle line 1\nmany.txt-2-needle line 2\n--\nmany.txt-8-needle line 8\nmany.txt:9:needle line 9\nmany.txt-10-needle line 10');
    });

    it(`${engine}: counts mode, ignore_case and a glob filter`, async () => {
      const counts = await grep({ pattern: 'needle', output_mode: 'counts', glob: '*.txt' });
      // The glob brings back private.txt, ignored by src/nested/.gitignore (ripgrep's --glob overrides ignore rules for files).
      expect(counts.output).toBe('.hidden/h.txt:1\nlong.txt:1\nmany.txt:3000\nsrc/nested/private.txt:1');
      const insensitive = await grep({ pattern: 'needle with', ignore_case: true });
      expect(insensitive.output).toBe('src/nested/c.ts:1:Needle with a capital');
      // The same for *.log; files in an ignored folder (build/) stay out.
      const logs = await grep({ pattern: 'needle', output_mode: 'files', glob: '*.log' });
      expect(logs.output).toBe('app.log\nkeep.log');
    });

    it(`${engine}: caps a large result with a notice, and cuts long lines`, async () => {
      const many = await grep({ pattern: 'needle', path: 'many.txt', limit: 10 });
      const lines = many.output.split('\n');
      expect(lines).toHaveLength(11);
      expect(lines[9]).toBe('many.txt:10:needle line 10');
      expect(lines[10]).toContain('[2990 more lines not shown (1 files, 3000 matching lines in all)');
      const small = await grep({ pattern: 'needle', path: 'many.txt' }, ctx({ outputLimit: 300 }));
      expect(small.output.length).toBeLessThan(600);
      expect(small.output).toContain('more lines not shown');
      const long = await grep({ pattern: 'start needle', path: 'long.txt' });
      expect(long.output).toMatch(/^long\.txt:1:start needle x+… \[4513 more characters\]$/);
    });

    it(`${engine}: refuses a path outside the working folder, also through a symbolic link`, async () => {
      for (const p of ['link-out', 'secret-link.txt', '../', outside]) {
        const result = await runWith(grepTool(engine), { pattern: 'needle', path: p });
        expect(result.isError).toBe(true);
        expect(result.output).toContain('outside the working folder');
      }
    });

    it(`${engine}: a bad regular expression is a clear error; no match says so`, async () => {
      const bad = await grep({ pattern: 'needle(' });
      expect(bad.isError).toBe(true);
      expect(bad.output).toMatch(/needle\(/);
      const none = await grep({ pattern: 'haystack', path: 'src' });
      expect(none).toEqual({ output: 'no matches for /haystack/ in src', isError: false });
    });
  }

  it('both engines give the same output for the same questions', async () => {
    const questions: Record<string, unknown>[] = [
      { pattern: 'needle', output_mode: 'lines', context: 2 },
      { pattern: 'n..dle', output_mode: 'counts' },
      { pattern: '^const', glob: 'src/**/*.ts' },
      { pattern: 'NEEDLE', ignore_case: true, output_mode: 'files', path: 'src' },
    ];
    for (const q of questions) {
      const [a, b] = await Promise.all(engines.map((e) => grepTool(e).run(q, ctx())));
      expect(b, JSON.stringify(q)).toEqual(a);
    }
  });
});

async function runWith(tool: ReturnType<typeof grepTool>, input: Record<string, unknown>) {
  try {
    return await tool.run(input, ctx());
  } catch (err) {
    return { output: err instanceof Error ? err.message : String(err), isError: true };
  }
}

describe('glob', () => {
  it('matches names anywhere or paths from the folder, newest first, honouring .gitignore', async () => {
    const ts = await runTool('glob', { pattern: '*.ts' }, ctx());
    expect(ts).toEqual({ output: 'src/a.ts\nsrc/nested/c.ts\nsrc/b.ts', isError: false });
    const nested = await runTool('glob', { pattern: 'nested/*.{ts,txt}', path: 'src' }, ctx());
    expect(nested.output).toBe('src/nested/c.ts');
    const all = await runTool('glob', { pattern: '**/*.txt' }, ctx());
    // Ignored files (private.txt), links (secret-link.txt) and .git are not listed; hidden files are.
    expect(all.output.split('\n').sort()).toEqual(['.hidden/h.txt', 'huge.txt', 'long.txt', 'many.txt']);
  });

  it('caps the list with a notice, and says when nothing matches', async () => {
    const capped = await runTool('glob', { pattern: '**/*', limit: 3 }, ctx());
    const lines = capped.output.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toMatch(/^\[\d+ more files not shown \(\d+ match\)/);
    expect(await runTool('glob', { pattern: '*.rs' }, ctx())).toEqual({ output: 'no files match *.rs in the working folder', isError: false });
  });

  it('refuses to search outside the working folder', async () => {
    const result = await runTool('glob', { pattern: '*', path: 'link-out' }, ctx());
    expect(result).toEqual({ output: 'glob failed: link-out is outside the working folder', isError: true });
  });

  it('reads patterns the way globs do', () => {
    const m = (p: string, s: string) => globMatcher(p).matches(s);
    expect(m('*.ts', 'a/b/c.ts')).toBe(true);
    expect(m('src/*.ts', 'src/a/b.ts')).toBe(false);
    expect(m('src/**/*.ts', 'src/b.ts')).toBe(true);
    expect(m('src/**/*.ts', 'src/a/b/c.ts')).toBe(true);
    expect(m('file?.[ch]', 'file1.c')).toBe(true);
    expect(m('file[!0-9].c', 'file1.c')).toBe(false);
    expect(m('*.{js,jsx}', 'x.jsx')).toBe(true);
    expect(m('a+b(1).txt', 'a+b(1).txt')).toBe(true);
    expect(() => globMatcher('{a,b')).toThrow(/unclosed/);
  });
});

describe('list', () => {
  it('shows a tree with sizes, skips .git and node_modules, shows links without following them', async () => {
    fs.mkdirSync(path.join(root, '.git'), { recursive: true });
    fs.writeFileSync(path.join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    const result = await runTool('list', { depth: 1 }, ctx());
    expect(result.isError).toBe(false);
    const lines = result.output.split('\n');
    expect(lines[0]).toBe('./');
    expect(lines).toContain('  src/');
    expect(lines).toContain('    a.ts  68 B');
    expect(lines).toContain('  huge.txt  21 MB');
    expect(lines).toContain(`  link-out -> ${outside}`);
    expect(result.output).not.toContain('node_modules');
    expect(result.output).not.toContain('.git/');
    // The link is shown, what it points to is not listed.
    expect(result.output).not.toMatch(/^\s+secret\.txt/m);
    // Depth 1: the folders inside src are named but not opened.
    expect(lines).toContain('    nested/');
    expect(result.output).not.toContain('c.ts');
    const all = await runTool('list', { path: 'node_modules', all: true }, ctx());
    expect(all.output).toBe('node_modules/\n  pkg/\n    index.js  23 B');
  });

  it('caps the entries with a notice and refuses outside folders and files', async () => {
    const capped = await runTool('list', { limit: 2, depth: 5 }, ctx());
    expect(capped.output.split('\n')).toHaveLength(4);
    expect(capped.output).toMatch(/\[\d+ more entries not shown/);
    expect((await runTool('list', { path: 'link-out' }, ctx())).output).toBe('list failed: link-out is outside the working folder');
    expect((await runTool('list', { path: 'src/a.ts' }, ctx())).output).toContain('is not a folder');
  });
});

describe('registration', () => {
  it('the search tools and update_plan are read-only tools the model gets', () => {
    for (const name of ['glob', 'grep', 'list', 'update_plan']) {
      const tool = TOOLS.find((t) => t.spec.name === name);
      expect(tool?.readOnly, name).toBe(true);
    }
    expect(globTool.spec.inputSchema).toMatchObject({ required: ['pattern'] });
    expect(listTool.spec.inputSchema).toMatchObject({ type: 'object' });
  });
});
