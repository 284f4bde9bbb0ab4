// The project's import graph, read with the TypeScript compiler's own
// pre-processor (every import, export-from, `import type` and dynamic
// import()), and its circles: the strongly connected components (Tarjan).
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** A relative specifier as the file it names (`./x.js` is `./x.ts`); undefined for a package. */
function resolve(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, path.join(base, 'index.ts'), base]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** file -> the project files it imports (paths relative to `root`). */
export function importGraph(root: string, dirs: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of dirs.flatMap((d) => sources(path.join(root, d)))) {
    const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles.map((f) => resolve(file, f.fileName)).filter((t): t is string => t !== undefined && /\.tsx?$/.test(t));
    graph.set(path.relative(root, file), [...new Set(targets.map((t) => path.relative(root, t)))]);
  }
  return graph;
}

/** Every group of files that import each other, directly or around a circle (sorted, each group sorted). */
export function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || (graph.get(v) ?? []).includes(v)) groups.push(group.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return groups.sort((a, b) => a[0]!.localeCompare(b[0]!));
}
