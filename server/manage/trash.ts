// Deleted sessions: moved whole (log, meta, saved outputs) to
// <data dir>/trash/<id>/, restorable for TRASH_DAYS days, purged at start.
import fs from 'node:fs';
import path from 'node:path';
import type { TrashedSession } from '../../shared/protocol.js';

export const TRASH_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;
const NOTE = 'trash.json';

interface TrashNote {
  title: string;
  deletedAt: string;
  worktree?: string;
}

/** The files of one session in the sessions folder: its log, its meta, its folder of saved outputs. */
function sessionFiles(id: string): string[] {
  return [`${id}.jsonl`, `${id}.meta.json`, id];
}

export class Trash {
  readonly dir: string;

  constructor(dataDir: string, private readonly sessionsDir: string) {
    this.dir = path.join(dataDir, 'trash');
  }

  /** Moves a session's files into the trash (renames: the same file system, nothing copied). */
  put(id: string, title: string, worktree: string | undefined, now = new Date()): void {
    const target = path.join(this.dir, id);
    fs.mkdirSync(target, { recursive: true });
    const note: TrashNote = { title, deletedAt: now.toISOString(), ...(worktree && { worktree }) };
    fs.writeFileSync(path.join(target, NOTE), JSON.stringify(note) + '\n');
    for (const name of sessionFiles(id)) {
      const from = path.join(this.sessionsDir, name);
      if (fs.existsSync(from)) fs.renameSync(from, path.join(target, name));
    }
  }

  list(): TrashedSession[] {
    if (!fs.existsSync(this.dir)) return [];
    return fs
      .readdirSync(this.dir)
      .flatMap((id) => {
        const note = this.note(id);
        if (!note) return [];
        const expiresAt = new Date(Date.parse(note.deletedAt) + TRASH_DAYS * DAY_MS).toISOString();
        return [{ id, title: note.title, deletedAt: note.deletedAt, expiresAt, ...(note.worktree && { worktree: note.worktree }) }];
      })
      .sort((a, b) => b.deletedAt.localeCompare(a.deletedAt));
  }

  has(id: string): boolean {
    return /^[\w-]+$/.test(id) && this.note(id) !== undefined;
  }

  /** Moves the files back; the caller loads the log. Refuses when a session with that id exists again. */
  restore(id: string): void {
    const source = path.join(this.dir, id);
    if (fs.existsSync(path.join(this.sessionsDir, `${id}.jsonl`))) throw new Error(`a session ${id} already exists`);
    for (const name of sessionFiles(id)) {
      const from = path.join(source, name);
      if (fs.existsSync(from)) fs.renameSync(from, path.join(this.sessionsDir, name));
    }
    fs.rmSync(source, { recursive: true, force: true });
  }

  /** Deletes for good what was deleted more than TRASH_DAYS days ago; returns notes for the server log. */
  purge(now = new Date()): string[] {
    const notes: string[] = [];
    for (const entry of this.list()) {
      if (Date.parse(entry.expiresAt) > now.getTime()) continue;
      fs.rmSync(path.join(this.dir, entry.id), { recursive: true, force: true });
      notes.push(`purged session ${entry.id} from the trash (deleted ${entry.deletedAt})${entry.worktree ? `; its worktree ${entry.worktree} was left in place` : ''}`);
    }
    return notes;
  }

  private note(id: string): TrashNote | undefined {
    try {
      const note = JSON.parse(fs.readFileSync(path.join(this.dir, id, NOTE), 'utf8')) as TrashNote;
      return typeof note.deletedAt === 'string' && !Number.isNaN(Date.parse(note.deletedAt)) ? note : undefined;
    } catch {
      return undefined;
    }
  }
}
