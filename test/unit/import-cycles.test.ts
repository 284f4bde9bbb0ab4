// No circles of imports: every arrow between the files of server/ (the CLI
// included), shared/ and webui/ points one way, type-only imports counted
// too (a shared type moves down into a types.ts of its folder instead).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { circles, importGraph } from '../helpers/import-graph.js';

// Circles still known, each to be broken and then deleted from this list
// (the list only shrinks: a circle that is gone must be removed from it). None is left.
const KNOWN: string[][] = [];

describe('the import graph', () => {
  const graph = importGraph(process.cwd(), ['server', 'shared', 'webui']);

  it('reads the whole project', () => {
    expect(graph.size).toBeGreaterThan(200);
    expect(graph.get('server/config.ts')).toContain('server/config/settings.ts');
  });

  it('has no circle beyond the known ones, and every known one still exists', () => {
    const found = circles(graph).map((c) => c.join(' <-> '));
    expect(found).toEqual(KNOWN.map((c) => [...c].sort().join(' <-> ')).sort());
  });

  it('counts type-only imports, re-exports and dynamic imports as arrows', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skein-cycles-'));
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src/a.ts'), "import type { B } from './b.js';\nexport const a: B = 1;\n");
    fs.writeFileSync(path.join(root, 'src/b.ts'), "export type B = 1;\nexport { c } from './c.js';\n");
    fs.writeFileSync(path.join(root, 'src/c.ts'), "export const c = () => import('./a.js');\nimport 'node:fs';\n");
    const g = importGraph(root, ['src']);
    expect(g.get('src/a.ts')).toEqual(['src/b.ts']);
    expect(circles(g)).toEqual([['src/a.ts', 'src/b.ts', 'src/c.ts']]);
    fs.rmSync(root, { recursive: true });
  });

  it('finds a circle of two and a longer one, not a file that only hangs off one', () => {
    const g = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['a.ts']],
      ['c.ts', ['d.ts']],
      ['d.ts', ['e.ts']],
      ['e.ts', ['c.ts', 'f.ts']],
      ['f.ts', []],
    ]);
    expect(circles(g)).toEqual([['a.ts', 'b.ts'], ['c.ts', 'd.ts', 'e.ts']]);
  });
});
