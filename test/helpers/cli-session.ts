// What a `skein run` left behind, read from its data folder: the session's
// events as logged, and where its embedded server listens while it runs.
import fs from 'node:fs';
import path from 'node:path';
import type { SkeinEvent } from '../../shared/protocol.js';
import { TOKEN_FILE } from '../../server/http/token-file.js';
import { readHolder } from '../../server/lock/data-dir-lock.js';
import { until } from './until.js';

/** The session id `skein run` printed on stderr. */
export function sessionIdOf(stderr: string): string {
  const id = /skein: session (\S+)/.exec(stderr)?.[1];
  if (!id) throw new Error(`no session id in: ${stderr}`);
  return id;
}

/** The session's events, as its JSONL log holds them (the first line is the header). */
export function loggedEvents(dataDir: string, id: string): SkeinEvent[] {
  return fs
    .readFileSync(path.join(dataDir, 'sessions', `${id}.jsonl`), 'utf8')
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((line) => JSON.parse(line) as SkeinEvent);
}

/** The last state the session was left in. */
export function lastState(events: readonly SkeinEvent[]): string | undefined {
  const last = events.filter((e) => e.kind === 'state').at(-1);
  return last?.kind === 'state' ? last.to : undefined;
}

/** The URL and token of the server a running `skein run` embeds (its lock file says where). */
export async function embeddedServer(dataDir: string): Promise<{ url: string; token: string }> {
  const url = await until(() => readHolder(dataDir)?.url, 'the embedded server to listen', 60_000);
  return { url, token: fs.readFileSync(path.join(dataDir, TOKEN_FILE), 'utf8').trim() };
}
