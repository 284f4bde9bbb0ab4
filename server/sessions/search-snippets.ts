// The snippet of each search result (GET /api/sessions?q=): the words around
// the match in the user message the search index pointed at. Taken without
// loading a session that is not loaded (that would start its agent): from
// memory when it is, a page cut in SQL on PostgreSQL, else a read of its log
// file that stops at that message (or after SNIPPET_READ_BYTES: a message deep
// in a huge log gets none). Only when asked (?snippets=1: a plain search
// reads only the index), and only the first results: the list shows them
// first, and each costs a read.
import fs from 'node:fs';
import readline from 'node:readline';
import type { ListedSession, SkeinEvent } from '../../shared/protocol.js';
import { snippetAround } from '../../shared/search-snippet.js';
import type { Sessions } from './sessions.js';
import { pageOf } from '../http/event-page.js';

/** Results that get a snippet. */
export const SNIPPETS = 20;
/** Bytes of an unloaded log read at most to find the message. */
const SNIPPET_READ_BYTES = 16 * 1024 * 1024;

export async function addSnippets(sessions: Sessions, rows: ListedSession[], query: string): Promise<void> {
  for (const row of rows.filter((r) => r.match?.seq !== undefined).slice(0, SNIPPETS)) {
    const seq = row.match!.seq!;
    try {
      const text = await userTextAt(sessions, row.id, seq);
      if (text !== undefined) row.match = { ...row.match, snippet: snippetAround(text, query) };
    } catch {
      // A log that cannot be read now: that result has no snippet, the others do.
    }
  }
}

async function userTextAt(sessions: Sessions, id: string, seq: number): Promise<string | undefined> {
  const live = sessions.isLoaded(id) ? sessions.get(id) : undefined;
  const page = { before: seq + 1, limit: 1 };
  if (live) return textOf(pageOf(live.session.log.all(), page).events[0], seq);
  const db = sessions.store;
  if (db) return textOf((await db.page(id, page)).events[0], seq);
  return textOf(await eventInLog(sessions.logFile(id), seq), seq);
}

function textOf(event: SkeinEvent | undefined, seq: number): string | undefined {
  return event?.kind === 'user' && event.seq === seq ? event.text : undefined;
}

/** The event `seq` of a JSONL log, read line by line up to it. */
async function eventInLog(file: string, seq: number): Promise<SkeinEvent | undefined> {
  const lines = readline.createInterface({ input: fs.createReadStream(file, { encoding: 'utf8', end: SNIPPET_READ_BYTES - 1 }), crlfDelay: Infinity });
  const mark = `"seq":${seq}`;
  try {
    for await (const line of lines) {
      if (!line.includes(mark)) continue;
      let event: SkeinEvent;
      try {
        event = JSON.parse(line) as SkeinEvent;
      } catch {
        continue; // a damaged line
      }
      if (event.seq === seq) return event;
      if (typeof event.seq === 'number' && event.seq > seq) return undefined;
    }
    return undefined;
  } finally {
    lines.close();
  }
}
