// <data dir>/projects.json: the folders the user chose for skein to work in
// (mode 0600, replaced atomically). Absent until the list first changes: until
// then the list is SKEIN_WORKDIR's roots. A file that cannot be read is
// ignored with a log line (the list starts again from SKEIN_WORKDIR); a link
// is not followed.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { log } from '../log.js';

export const PROJECTS_FILE = 'projects.json';

/** The folders kept in the file, or undefined when there is no (readable) file. */
export function readProjectsFile(file: string): string[] | undefined {
  let text: string;
  try {
    if (!fs.lstatSync(file).isFile()) {
      log.warn(`ignored ${file}: not a regular file (a link or a folder); the projects are SKEIN_WORKDIR's roots and it is replaced at the next change`);
      return undefined;
    }
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log.warn(`ignored ${file}: cannot read it (${(err as Error).message})`);
    return undefined;
  }
  try {
    const data = JSON.parse(text) as { version?: unknown; projects?: unknown };
    if (data?.version !== 1 || !Array.isArray(data.projects)) throw new Error('expected {"version": 1, "projects": [{"folder": ...}]}');
    return data.projects.flatMap((p: unknown) => {
      const folder = (p as { folder?: unknown } | null)?.folder;
      return typeof folder === 'string' && path.isAbsolute(folder) ? [folder] : [];
    });
  } catch (err) {
    log.warn(`ignored ${file}: ${(err as Error).message.slice(0, 160)}; the projects are SKEIN_WORKDIR's roots until the next change rewrites it`);
    return undefined;
  }
}

export function writeProjectsFile(file: string, folders: readonly string[]): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(tmp, `${JSON.stringify({ version: 1, projects: folders.map((folder) => ({ folder })) }, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}
