// The sessions list on PostgreSQL: one row per session in skein_summaries
// (migration 3), what the JSONL store keeps in index.json. A row is written in
// the same transaction as the events it describes (insertBatch), so a start
// lists every session from this table without reading one event; a row whose
// last_seq is behind the session's (a database from before migration 3, a
// rename lost in a crash) is rebuilt from its event lines after the start,
// while the list is served (sessions/database-summary-build.ts).
import type pg from 'pg';
import { parseCompactCommand, type SkeinEvent } from '../../../shared/protocol.js';
import type { IndexEntry } from '../session-index.js';

/** The typed text a summary row keeps for search on PostgreSQL (lower-cased, joined by newlines). */
export const USER_TEXT_CAP = 8 * 1024;

/** A list entry with the user's typed text (the row's; search on PostgreSQL is fed from it). */
export interface SummaryEntry extends IndexEntry {
  userText?: string;
  /** False when userText was cut at USER_TEXT_CAP. */
  userTextComplete?: boolean;
}

/** A summary as written: the list entry and the seq it describes. */
export interface Summary {
  lastSeq: number;
  entry: SummaryEntry;
}

/** What the database says of each session at start. */
export interface ListedSession {
  id: string;
  /** skein_sessions.last_seq: what is committed. */
  lastSeq: number;
  /** The summary row, when it describes exactly that. */
  fresh?: SummaryEntry;
}

const COLUMNS = 'session, last_seq, title, state, mode, archived, last_activity, total_tokens, cost_usd, needs_start, user_text, user_text_complete, snapshot';

function values(session: string, { lastSeq, entry }: Summary): unknown[] {
  const s = entry.snapshot;
  return [
    session,
    lastSeq,
    s.title,
    s.state,
    entry.chosenMode ?? null,
    s.archived === true,
    s.lastActivity,
    Math.round(s.gauge?.totalTokens ?? 0),
    s.gauge?.totalCostUsd ?? 0,
    entry.needsStart,
    entry.userText ?? '',
    entry.userTextComplete ?? false,
    JSON.stringify(s),
  ];
}

const TYPES = ['text', 'bigint', 'text', 'text', 'text', 'boolean', 'text', 'bigint', 'double precision', 'boolean', 'text', 'boolean', 'text'];

/**
 * The statement that writes a summary (inside the events' transaction, or
 * alone after a rename); nothing when the session's row is gone (deleted).
 */
export function upsertSummary(session: string, summary: Summary): { text: string; params: unknown[] } {
  const params = values(session, summary);
  const selected = params.map((_, i) => `$${i + 1}::${TYPES[i]}`).join(', ');
  const updates = COLUMNS.split(', ')
    .slice(1)
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(', ');
  return {
    text: `INSERT INTO skein_summaries (${COLUMNS}) SELECT ${selected} WHERE EXISTS (SELECT 1 FROM skein_sessions WHERE id = $1) ON CONFLICT (session) DO UPDATE SET ${updates}, updated_at = now()`,
    params,
  };
}

/**
 * Writes summaries built from the events (a first start over sessions that
 * had none), in one statement; a row that describes more events already (the
 * session moved on meanwhile, on this instance or another) is kept.
 */
export async function saveBuiltSummaries(pool: pg.Pool, summaries: readonly { id: string; summary: Summary }[]): Promise<void> {
  if (!summaries.length) return;
  const params: unknown[] = [];
  const rows = summaries.map(({ id, summary }) => {
    const first = params.length;
    params.push(...values(id, summary));
    return `(${TYPES.map((type, i) => `$${first + i + 1}::${type}`).join(', ')})`;
  });
  const updates = COLUMNS.split(', ')
    .slice(1)
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(', ');
  await pool.query(
    `INSERT INTO skein_summaries (${COLUMNS}) SELECT * FROM (VALUES ${rows.join(', ')}) AS v (${COLUMNS})
     WHERE EXISTS (SELECT 1 FROM skein_sessions s WHERE s.id = v.session)
     ON CONFLICT (session) DO UPDATE SET ${updates}, updated_at = now() WHERE skein_summaries.last_seq < EXCLUDED.last_seq`,
    params,
  );
}

export async function saveSummary(pool: pg.Pool, session: string, summary: Summary): Promise<void> {
  const { text, params } = upsertSummary(session, summary);
  await pool.query(text, params);
}

interface Row {
  session: string;
  last_seq: string;
  mode: string | null;
  needs_start: boolean;
  /** Not read by listSessions. */
  user_text?: string;
  user_text_complete: boolean;
  snapshot: string;
}

function entryOf(row: Row): SummaryEntry {
  return {
    snapshot: JSON.parse(row.snapshot) as IndexEntry['snapshot'],
    size: -1,
    mtimeMs: -1,
    needsStart: row.needs_start,
    userText: row.user_text,
    userTextComplete: row.user_text_complete,
    ...(row.mode && { chosenMode: row.mode as NonNullable<IndexEntry['chosenMode']> }),
  };
}

/**
 * The sessions after `after` (by id), at most `limit`, each with its summary
 * when that is fresh, without its typed text (see readUserTexts: the search
 * file of the data folder has it, as a rule); no event is read. A start reads
 * the list a page at a time: all of it in one result held every row and its
 * typed text at once.
 */
export async function listSessions(pool: pg.Pool, after: string, limit: number): Promise<ListedSession[]> {
  const result = await pool.query<Row & { id: string; committed: string }>(
    `SELECT s.id, s.last_seq AS committed, m.session, m.last_seq, m.mode, m.needs_start, m.user_text_complete, m.snapshot
     FROM skein_sessions s LEFT JOIN skein_summaries m ON m.session = s.id WHERE s.id > $1 ORDER BY s.id LIMIT $2`,
    [after, limit],
  );
  return result.rows.map((row) => {
    const lastSeq = Number(row.committed);
    const fresh = row.session !== null && Number(row.last_seq) === lastSeq;
    return { id: row.id, lastSeq, ...(fresh && { fresh: entryOf(row) }) };
  });
}

/** The typed text of these sessions' summary rows. */
export async function readUserTexts(pool: pg.Pool, sessions: string[]): Promise<Map<string, string>> {
  const result = await pool.query<{ session: string; user_text: string }>('SELECT session, user_text FROM skein_summaries WHERE session = ANY($1)', [sessions]);
  return new Map(result.rows.map((row) => [row.session, row.user_text]));
}

/** The summaries of these sessions (made or changed on another instance), whatever their seq. */
export async function readSummaries(pool: pg.Pool, sessions: string[]): Promise<Map<string, SummaryEntry>> {
  if (!sessions.length) return new Map();
  const result = await pool.query<Row>(`SELECT ${COLUMNS} FROM skein_summaries WHERE session = ANY($1)`, [sessions]);
  return new Map(result.rows.map((row) => [row.session, entryOf(row)]));
}

/**
 * The summary's user text, kept up to date by reading only the events added
 * since the last call (a summary is taken with every batch of events: the
 * whole log must not be re-read each time). Same rules as userTextOf.
 */
export class UserTextTracker {
  private read = 0;
  private text = '';
  private complete = true;

  constructor(private readonly events: () => readonly SkeinEvent[]) {}

  now(): { userText: string; userTextComplete: boolean } {
    const all = this.events();
    // A copy reloaded with fewer events (cluster reread): start again.
    if (all.length < this.read) Object.assign(this, { read: 0, text: '', complete: true });
    for (; this.read < all.length && this.complete; this.read++) {
      const e = all[this.read]!;
      if (e.kind !== 'user' || parseCompactCommand(e.text)) continue;
      this.text += (this.text ? '\n' : '') + e.text.toLowerCase();
      if (this.text.length > USER_TEXT_CAP) {
        this.text = this.text.slice(0, USER_TEXT_CAP);
        this.complete = false;
      }
    }
    return { userText: this.text, userTextComplete: this.complete };
  }
}
