// The events a test server stored for a session, read where its store keeps
// them: the JSONL log file, or the rows of skein_events on PostgreSQL.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { TestServer } from './server.js';

export async function storedEvents(server: TestServer, session: string): Promise<Record<string, unknown>[]> {
  return (await storedLines(server, session)).map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => 'seq' in e);
}

/** The stored lines as written (on JSONL with the header line). */
export async function storedLines(server: TestServer, session: string): Promise<string[]> {
  const url = server.config.databaseUrl;
  if (!url) return fs.readFileSync(path.join(server.dataDir, 'sessions', `${session}.jsonl`), 'utf8').split('\n').filter(Boolean);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ line: string }>('SELECT line FROM skein_events WHERE session = $1 ORDER BY seq', [session])).rows.map((r) => r.line);
  } finally {
    await client.end();
  }
}
