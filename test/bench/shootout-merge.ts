// Builds the shootout's tables from the runs one or more shootout processes
// wrote (SKEIN_SHOOTOUT_RUNS_FILE, one JSON line per run; a long shootout can
// be split by window across processes) and writes them into README.md.
// Usage: npx tsx test/bench/shootout-merge.ts runs.jsonl [more.jsonl ...]
import fs from 'node:fs';
import { reportOf, writeTable, type SetRun } from './shootout.js';

const files = process.argv.slice(2);
if (!files.length) throw new Error('usage: shootout-merge.ts runs.jsonl [more.jsonl ...]');
const runs: SetRun[] = files.flatMap((f) => fs.readFileSync(f, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as SetRun));
const sets = [...new Set(runs.map((r) => r.set))].sort((a, b) => (a === 'shared' ? -1 : b === 'shared' ? 1 : a.localeCompare(b)));
const { rows, report } = reportOf(runs, sets, `${runs.length} runs merged from ${files.length} file(s)`);
writeTable(report);
process.stdout.write(`${report}\n\n| bench | measure | value | goal | met |\n|---|---|---|---|---|\n${rows.map((r) => `| ${r.bench} | ${r.measure} | ${r.value} | ${r.goal ?? ''} | ${r.met === undefined ? '' : r.met ? 'yes' : 'NO'} |`).join('\n')}\n`);
