// `npm run bench`: every benchmark in one run, one table. Writes the table and
// all raw numbers to test/bench/results/ (ignored by git) and the table into
// test/bench/README.md between its markers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchRow, BenchSection } from './types.js';

const SECTIONS = ['./survival.js', './shootout.js', './mismatch.js', './mismatch-llama.js', './overhead.js', './speed.js', './estimator.js', './fanout.js', './delegation.js', './ui.js', './memory.js', './scale.js', './scale-sessions.js', './scale-postgres.js', './cluster.js', './startup.js'];
const RESULTS = path.resolve('test/bench/results');
const README = path.resolve('test/bench/README.md');
const START = '<!-- bench:start -->';
const END = '<!-- bench:end -->';

function table(rows: BenchRow[]): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const lines = ['| bench | measure | value | goal | met |', '|---|---|---|---|---|'];
  for (const r of rows) lines.push(`| ${r.bench} | ${cell(r.measure)} | ${cell(r.value)} | ${cell(r.goal ?? '')} | ${r.met === undefined ? '' : r.met ? 'yes' : 'NO'} |`);
  return lines.join('\n');
}

const only = process.argv.slice(2);
const rows: BenchRow[] = [];
const details: Record<string, unknown> = {};
const started = Date.now();
for (const file of SECTIONS) {
  const { section } = (await import(file)) as { section: BenchSection };
  if (only.length && !only.some((o) => section.name.includes(o))) continue;
  const t = Date.now();
  process.stderr.write(`bench: ${section.name}...\n`);
  try {
    const result = await section.run();
    rows.push(...result.rows);
    details[section.name] = { seconds: (Date.now() - t) / 1000, ...((result.details as object) ?? {}) };
  } catch (err) {
    rows.push({ bench: section.name, measure: 'run', value: `failed: ${err instanceof Error ? err.message : String(err)}`, met: false });
    details[section.name] = { error: String(err instanceof Error ? err.stack : err) };
  }
  process.stderr.write(`bench: ${section.name} took ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
}

const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${((Date.now() - started) / 1000).toFixed(0)} s`;
const text = `${table(rows)}\n\nMeasured on ${machine}.`;
console.log(text);
fs.mkdirSync(RESULTS, { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const json = JSON.stringify({ machine, rows, details }, null, 2);
fs.writeFileSync(path.join(RESULTS, `bench-${stamp}.json`), json);
fs.writeFileSync(path.join(RESULTS, 'latest.json'), json);
if (!only.length && fs.existsSync(README)) {
  const readme = fs.readFileSync(README, 'utf8');
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a >= 0 && b > a) fs.writeFileSync(README, `${readme.slice(0, a + START.length)}\n${text}\n${readme.slice(b)}`);
}
process.exit(rows.some((r) => r.value.startsWith('failed')) ? 1 : 0);
