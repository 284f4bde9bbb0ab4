// `skein migrate --from-jsonl DIR` / `skein migrate --to-jsonl DIR`, with
// SKEIN_DATABASE_URL naming the database.
import { migrateUsage } from './cli/usage.js';
import { exportJsonl, importJsonl } from './store/postgres/jsonl-transfer.js';

export async function runMigrate(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const url = env.SKEIN_DATABASE_URL;
  const [flag, dir] = args;
  if (!url || !/^postgres(ql)?:\/\//.test(url)) {
    process.stderr.write('skein migrate: set SKEIN_DATABASE_URL=postgres://… (the database to import into or export from)\n');
    return 2;
  }
  if ((flag !== '--from-jsonl' && flag !== '--to-jsonl') || !dir) {
    process.stderr.write(migrateUsage);
    return 2;
  }
  const report = flag === '--from-jsonl' ? await importJsonl(url, dir) : await exportJsonl(url, dir);
  for (const note of report.skipped) process.stderr.write(`skein migrate: skipped ${note}\n`);
  process.stdout.write(`${flag === '--from-jsonl' ? 'imported' : 'exported'} ${report.sessions} sessions, ${report.events} events\n`);
  return 0;
}
