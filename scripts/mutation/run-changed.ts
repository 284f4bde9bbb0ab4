// `npm run test:mutation:changed [BASE]`: Stryker on only the files of its
// scope (stryker.config.mjs `mutate`) that changed since BASE, with only the
// tests of the mutation run (vitest.mutation.config.ts) that import them,
// directly or not. BASE defaults to the merge-base with `main`, or HEAD~1 when
// HEAD is on main itself (or there is no main); uncommitted changes count too.
// Prints each file's score; exits 1 when one is below 90% or a changed file
// has no test of the mutation run, 2 when Stryker itself fails.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { importGraph } from '../../test/helpers/import-graph.js';
import { belowThreshold, changedInScope, coveringTests, scoresByFile, testsOfConfig, type MutationReport } from './changed-scope.js';

const THRESHOLD = 90;
const CONFIG = 'stryker.changed.config.mjs';
const root = process.cwd();

const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const tryGit = (...args: string[]): string | undefined => {
  try {
    return git(...args);
  } catch {
    return undefined;
  }
};

function defaultBase(): string {
  const head = git('rev-parse', 'HEAD');
  const mergeBase = tryGit('merge-base', 'HEAD', 'main');
  return mergeBase !== undefined && mergeBase !== head ? mergeBase : 'HEAD~1';
}

const base = process.argv[2] ?? defaultBase();
if (tryGit('rev-parse', '--verify', '--quiet', `${base}^{commit}`) === undefined) {
  console.error(`test:mutation:changed: "${base}" is not a revision of this repository.`);
  process.exit(2);
}
// Committed since the base, staged and not (a working tree against a commit), and new files not yet added.
const changed = [...git('diff', '--name-only', base).split('\n'), ...git('ls-files', '--others', '--exclude-standard').split('\n')].filter(Boolean);

const load = async <T>(file: string) => ((await import(pathToFileURL(path.resolve(file)).href)) as { default: T }).default;
const stryker = await load<{ mutate: string[] }>(CONFIG);
const vitest = await load<{ test: { include: string[] } }>('vitest.mutation.config.ts');

const files = changedInScope(stryker.mutate, changed).filter((f) => fs.existsSync(f));
const label = `since ${base === process.argv[2] ? base : `${base.slice(0, 12)} (${process.argv[2] ?? 'default base'})`}`;
if (files.length === 0) {
  console.log(`test:mutation:changed: no file of Stryker's scope changed ${label}.`);
  process.exit(0);
}

const graph = importGraph(root, ['server', 'shared', 'webui', 'test']);
const tests = testsOfConfig(vitest.test.include, [...graph.keys()].map((f) => f.split(path.sep).join('/')));
const posixGraph = new Map([...graph].map(([f, imports]) => [f.split(path.sep).join('/'), imports.map((i) => i.split(path.sep).join('/'))]));
const uncovered = files.filter((f) => coveringTests([f], tests, posixGraph).length === 0);
const testFiles = coveringTests(files, tests, posixGraph);
console.log(`test:mutation:changed ${label}:\n  mutating ${files.join(', ')}\n  with ${testFiles.length} test file(s): ${testFiles.join(', ')}`);
for (const f of uncovered) console.error(`  ${f}: no test of the mutation run (vitest.mutation.config.ts) imports it`);

const report = 'reports/mutation-changed/mutation.json';
fs.rmSync(report, { force: true });
if (testFiles.length > 0) {
  const run = spawnSync('npx', ['stryker', 'run', CONFIG, '--mutate', files.join(','), '--testFiles', testFiles.join(',')], { stdio: 'inherit' });
  if (run.status !== 0 || !fs.existsSync(report)) {
    console.error(`test:mutation:changed: Stryker failed (exit ${run.status ?? run.signal}).`);
    process.exit(2);
  }
}

const scores = fs.existsSync(report) ? scoresByFile(JSON.parse(fs.readFileSync(report, 'utf8')) as MutationReport, files) : [];
console.log('\nscore per changed file:');
for (const s of scores) {
  const score = s.score === null ? 'no mutants' : `${s.score.toFixed(1)}%`;
  console.log(`  ${score.padStart(10)}  ${s.file}  (${s.killed} killed, ${s.timeout} timeout, ${s.survived} survived, ${s.noCoverage} no coverage)`);
}
const low = belowThreshold(scores, THRESHOLD);
for (const s of low) console.error(`test:mutation:changed: ${s.file} scores ${s.score!.toFixed(1)}%, below ${THRESHOLD}%.`);
process.exit(low.length > 0 || uncovered.length > 0 ? 1 : 0);
