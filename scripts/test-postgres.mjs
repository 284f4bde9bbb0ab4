// The integration suite again, on the PostgreSQL store (SKEIN_TEST_STORE=postgres:
// every test server gets its own database on a temporary cluster). Left out:
// the files whose tests read or write JSONL logs by hand (a torn last line, a
// version-1 log, exports compared byte for byte with the file, logs written to
// start from, child servers started without the database), and the PostgreSQL
// files themselves, which run on it anyway.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const JSONL_ONLY = new Set([
  'approvals', // a SIGKILLed child server (started on JSONL) and its log file
  'compaction', // a torn last line written into the log file
  'lazy-sessions', // 1,000 JSONL logs and the index beside them
  'lifecycle', // a version-1 log file from the first build
  'pending-compactions', // a queued compaction read back from the log file
  'session-management', // exports and forks compared with the log file byte for byte
  'shutdown', // the log file read after shutdown
  'token-masking', // the log file searched for the token
  'workspaces', // the log file's header read by hand
  'postgres-store',
  'postgres-cluster',
]);
const files = fs
  .readdirSync('test/integration')
  .filter((f) => f.endsWith('.test.ts') && !JSONL_ONLY.has(f.slice(0, -'.test.ts'.length)))
  .map((f) => `test/integration/${f}`);
// The package's own entry (its exports map does not list the bin file).
const vitest = path.join(path.dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const run = spawnSync(process.execPath, [vitest, 'run', ...files], { stdio: 'inherit', env: { ...process.env, SKEIN_TEST_STORE: 'postgres' } });
process.exit(run.status ?? 1);
