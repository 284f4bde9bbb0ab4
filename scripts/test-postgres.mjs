// The integration suite again, on the PostgreSQL store (SKEIN_TEST_STORE=postgres:
// every test server gets its own database on a temporary cluster). Left out:
// the tests that read or write JSONL logs by hand (a torn last line, a
// version-1 log, exports compared byte for byte with the file, logs written to
// start from, a child server started without the database), named below, and
// the PostgreSQL files themselves, which run on it anyway.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Whole files about JSONL logs. */
const JSONL_FILES = new Set([
  'lazy-sessions', // 1,000 JSONL logs and the index beside them
  'token-masking', // the log file searched for the token
  'shutdown', // the log file read after shutdown
  'open-off-loop', // a 30 MB JSONL log written by hand, read in slices off the event loop
  'postgres-store',
  'postgres-cluster',
  'postgres-scale',
]);
/** Single tests about the JSONL file (the rest of their files runs on PostgreSQL). */
const JSONL_TESTS = [
  'while waiting keeps the request pending too', // approvals: a SIGKILLed child server, started on JSONL
  'closes a turn that was running as interrupted', // compaction: a torn last line written into the file
  'a version-1 log from the first build', // lifecycle: a log file from the first build
  'does not run during shutdown', // pending-compactions: the queue read back from the file
  'exports the JSONL log byte for byte', // session-management: compared with the file
  'the original log is byte-identical', // session-management: the original file after a fork
  'the copied turn is closed in the fork only', // session-management: the fork's file
  'two sessions with their own worktrees', // workspaces: the log header read from the file
  'reading only that tail', // search-index: a log file grown by hand after search.json was written
  'rebuilds from the logs when search.json is damaged', // search-index: JSONL logs written by hand
];
const files = fs
  .readdirSync('test/integration')
  .filter((f) => f.endsWith('.test.ts') && !JSONL_FILES.has(f.slice(0, -'.test.ts'.length)))
  .map((f) => `test/integration/${f}`);
// Every test whose name mentions none of JSONL_TESTS.
const pattern = `^(?!.*(?:${JSONL_TESTS.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})).*$`;
// The package's own entry (its exports map does not list the bin file).
const vitest = path.join(path.dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const run = spawnSync(process.execPath, [vitest, 'run', '-t', pattern, ...files], { stdio: 'inherit', env: { ...process.env, SKEIN_TEST_STORE: 'postgres' } });
process.exit(run.status ?? 1);
