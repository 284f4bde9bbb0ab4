// The PostgreSQL cluster a test file's servers share under
// SKEIN_TEST_STORE=postgres (one database per data folder), stopped when the
// file ends (setup.ts): Vitest ends its workers without an 'exit' event, so a
// cluster stopped only then stayed running, one per file (40 after a CI run).
import { startTempPostgres, type TempPostgres } from './postgres.js';

const shared = globalThis as typeof globalThis & { skeinSharedPostgres?: Promise<TempPostgres>; skeinDatabases?: Map<string, Promise<string>> };

/** The database of a data folder (a restart with the same folder finds the same sessions). */
export function databaseFor(dataDir: string): Promise<string> {
  const cluster = (shared.skeinSharedPostgres ??= startTempPostgres());
  const databases = (shared.skeinDatabases ??= new Map());
  let url = databases.get(dataDir);
  if (!url) {
    url = cluster.then((pg) => pg.database());
    databases.set(dataDir, url);
  }
  return url;
}

/** Stops the file's shared cluster, if it started one. */
export async function stopSharedPostgres(): Promise<void> {
  const cluster = shared.skeinSharedPostgres;
  shared.skeinSharedPostgres = undefined;
  shared.skeinDatabases = undefined;
  if (!cluster) return;
  try {
    (await cluster).stop();
  } catch {
    // It never started: its start failed the test that needed it.
  }
}
