// The choices of the cheap routine mutation run (`npm run test:mutation:changed`,
// run-changed.ts), as plain functions: which files of Stryker's scope a change
// touched, which tests of the mutation run reach them, and each file's score
// in Stryker's JSON report. No git, no file system here: the caller reads them.

/** A `mutate` entry without its line range (`server/x.ts:10-20` → `server/x.ts`). */
export function scopePath(entry: string): string {
  return entry.replace(/:\d+(-\d+)?(:\d+-\d+)?$/, '');
}

/** A glob of `*` (within a folder) and `**` (across folders) as a RegExp over posix paths. */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      // `**/` matches zero or more folders; a bare `**` anything at all.
      const slash = glob[i + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** The files of the `mutate` list (entries may be globs or carry a line range) that are among `changed`, in the list's order. */
export function changedInScope(mutate: readonly string[], changed: readonly string[]): string[] {
  const changedSet = new Set(changed.map((f) => f.split('\\').join('/')));
  const picked: string[] = [];
  for (const entry of mutate) {
    if (entry.startsWith('!')) continue;
    const pattern = globToRegExp(scopePath(entry));
    for (const file of changedSet) if (pattern.test(file) && !picked.includes(file)) picked.push(file);
  }
  // An exclusion (`!glob`) in the list takes its files out again.
  const excluded = mutate.filter((e) => e.startsWith('!')).map((e) => globToRegExp(scopePath(e.slice(1))));
  return picked.filter((file) => !excluded.some((pattern) => pattern.test(file)));
}

/** The test files (among `tests`) that import any of `targets`, directly or through other files of `graph` (file → files it imports). */
export function coveringTests(targets: readonly string[], tests: readonly string[], graph: ReadonlyMap<string, readonly string[]>): string[] {
  // Walk the graph backwards from the targets: every file that imports one, then every file that imports those...
  const importers = new Map<string, string[]>();
  for (const [file, imports] of graph) for (const imported of imports) importers.set(imported, [...(importers.get(imported) ?? []), file]);
  const reaching = new Set(targets);
  const queue = [...targets];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const importer of importers.get(file) ?? []) {
      if (reaching.has(importer)) continue;
      reaching.add(importer);
      queue.push(importer);
    }
  }
  return tests.filter((test) => reaching.has(test));
}

/** The tests of the mutation run's `include` globs among `files`. */
export function testsOfConfig(include: readonly string[], files: readonly string[]): string[] {
  const patterns = include.map(globToRegExp);
  return files.filter((f) => patterns.some((p) => p.test(f))).sort();
}

/** Stryker's JSON report (mutation-testing-report-schema), the part read here. */
export interface MutationReport {
  files: Record<string, { mutants: { status: string }[] }>;
}

export interface FileScore {
  file: string;
  killed: number;
  survived: number;
  noCoverage: number;
  timeout: number;
  /** Stryker's mutation score: detected (killed, timeout) over valid mutants (detected, survived, no coverage); null with no valid mutant. */
  score: number | null;
}

/** Each file's score as Stryker computes it (compile and runtime errors and ignored mutants do not count). */
export function scoresByFile(report: MutationReport, files: readonly string[]): FileScore[] {
  return files.map((file) => {
    const mutants = report.files[file]?.mutants ?? [];
    const count = (status: string) => mutants.filter((m) => m.status === status).length;
    const [killed, timeout, survived, noCoverage] = [count('Killed'), count('Timeout'), count('Survived'), count('NoCoverage')];
    const valid = killed + timeout + survived + noCoverage;
    return { file, killed, survived, noCoverage, timeout, score: valid === 0 ? null : (100 * (killed + timeout)) / valid };
  });
}

/** The files below `threshold` (percent); a file with no valid mutant is not below it. */
export function belowThreshold(scores: readonly FileScore[], threshold: number): FileScore[] {
  return scores.filter((s) => s.score !== null && s.score < threshold);
}
