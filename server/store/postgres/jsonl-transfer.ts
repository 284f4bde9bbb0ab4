// `skein migrate --from-jsonl DIR`: every <id>.jsonl log in DIR into the
// database (a session already there is skipped, never merged), each in one
// transaction; `skein migrate --to-jsonl DIR`: every session of the database
// back to <id>.jsonl files in the log format.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { EventLog } from '../event-log.js';
import { logLines } from '../jsonl-export.js';
import { migrate } from './migrations.js';
import { insertBatch } from './pg-event-log.js';

export interface TransferReport {
  sessions: number;
  events: number;
  skipped: string[];
}

const BATCH = 1000;

export async function importJsonl(url: string, dir: string): Promise<TransferReport> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const report: TransferReport = { sessions: 0, events: 0, skipped: [] };
  try {
    await migrate(pool);
    for (const name of fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort()) {
      // Read-only: EventLog.open would cut a torn tail; a copy in a temp file keeps DIR untouched.
      const tmp = path.join(fs.mkdtempSync(path.join(path.dirname(path.resolve(dir)), '.skein-import-')), name);
      fs.copyFileSync(path.join(dir, name), tmp);
      try {
        const { log } = EventLog.open(tmp);
        log.close();
        const id = log.header.session;
        if ((await pool.query('SELECT 1 FROM skein_sessions WHERE id = $1', [id])).rowCount) {
          report.skipped.push(`${name}: session ${id} is already in the database`);
          continue;
        }
        const events = log.all();
        await insertBatch(pool, id, events.slice(0, BATCH), log.header);
        for (let i = BATCH; i < events.length; i += BATCH) await insertBatch(pool, id, events.slice(i, i + BATCH));
        report.sessions++;
        report.events += events.length;
      } catch (err) {
        report.skipped.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        fs.rmSync(path.dirname(tmp), { recursive: true, force: true });
      }
    }
  } finally {
    await pool.end();
  }
  return report;
}

export async function exportJsonl(url: string, dir: string): Promise<TransferReport> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const report: TransferReport = { sessions: 0, events: 0, skipped: [] };
  try {
    fs.mkdirSync(dir, { recursive: true });
    for (const row of (await pool.query<{ id: string; header: string }>('SELECT id, header FROM skein_sessions ORDER BY id')).rows) {
      const file = path.join(dir, `${row.id}.jsonl`);
      if (fs.existsSync(file)) {
        report.skipped.push(`${row.id}.jsonl exists already: not overwritten`);
        continue;
      }
      const lines = (await pool.query<{ line: string }>('SELECT line FROM skein_events WHERE session = $1 ORDER BY seq', [row.id])).rows;
      fs.writeFileSync(file, logLines(JSON.parse(row.header), []) + lines.map((l) => l.line + '\n').join(''), { flag: 'wx' });
      report.sessions++;
      report.events += lines.length;
    }
  } finally {
    await pool.end();
  }
  return report;
}
