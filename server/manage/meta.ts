// What a person changes about a session after it started (its title, whether
// it is archived), kept beside its log in <id>.meta.json: the log itself is
// append-only and never rewritten.
import fs from 'node:fs';
import path from 'node:path';

export interface SessionMeta {
  title?: string;
  archived?: boolean;
}

export { MAX_TITLE_CHARS } from '../../shared/wire/constants.js';

export function metaFile(sessionsDir: string, id: string): string {
  return path.join(sessionsDir, `${id}.meta.json`);
}

/** The mtime of the session's meta file; undefined when it has none. */
export function metaMtime(sessionsDir: string, id: string): number | undefined {
  try {
    return fs.statSync(metaFile(sessionsDir, id)).mtimeMs;
  } catch {
    return undefined;
  }
}

export function readMeta(sessionsDir: string, id: string): SessionMeta {
  try {
    const raw = JSON.parse(fs.readFileSync(metaFile(sessionsDir, id), 'utf8')) as Record<string, unknown>;
    return {
      ...(typeof raw.title === 'string' && raw.title.trim() && { title: raw.title }),
      ...(raw.archived === true && { archived: true }),
    };
  } catch {
    // Missing (never changed) or unreadable: the defaults; the log is what matters.
    return {};
  }
}

/** Written whole to a temporary file, then renamed over the old one: a crash leaves the old or the new, never half. */
export function writeMeta(sessionsDir: string, id: string, meta: SessionMeta): void {
  const file = metaFile(sessionsDir, id);
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, JSON.stringify(meta) + '\n');
  fs.renameSync(tmp, file);
}
