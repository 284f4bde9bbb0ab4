// Stand-ins for protected paths that do not exist yet. A path is kept from the
// sandbox by a read-only mount on it, and a mount needs something to sit on:
// sandbox-runtime lets bwrap create an empty file there and removes it later.
// skein puts an empty *folder* there itself, before bwrap starts:
//  - git does not list an empty folder, and skein's own readers (instruction
//    files, .mcp.json) take only regular files, so nobody mistakes it for the
//    real file while it stands;
//  - it is removed with rmdir, which cannot remove anything that holds data:
//    if the user put something in it meanwhile, it stays;
//  - one counter per path: it stays while any sandbox (a bash call, an MCP
//    server) that mounted it runs, and goes with the last one. A list in the
//    data folder names those still standing, so that a server that was killed
//    removes them at its next start.
// Inside git metadata that a folder would break (config.worktree is read as a
// file), the stand-in is an empty file, removed only while it is still empty
// and still the same file.
import fs from 'node:fs';
import path from 'node:path';

export type PlaceholderKind = 'folder' | 'file';

interface Standing {
  kind: PlaceholderKind;
  dev: number;
  ino: number;
  users: number;
}

const standing = new Map<string, Standing>();
let listFile: string | undefined;

/** Where the list of standing placeholders is kept (the data folder); removes those a previous server left. */
export function usePlaceholderList(file: string): void {
  if (listFile === file) return;
  listFile = file;
  let left: { path: string; kind: PlaceholderKind; dev: number; ino: number }[] = [];
  try {
    left = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof left;
  } catch {
    /* none, or unreadable: nothing to remove */
  }
  for (const entry of Array.isArray(left) ? left : []) {
    if (!standing.has(entry.path)) removeIfStandIn(entry.path, entry);
  }
  saveList();
}

function saveList(): void {
  if (!listFile) return;
  const entries = [...standing].map(([p, s]) => ({ path: p, kind: s.kind, dev: s.dev, ino: s.ino }));
  try {
    fs.mkdirSync(path.dirname(listFile), { recursive: true });
    fs.writeFileSync(listFile, JSON.stringify(entries));
  } catch {
    /* the list is a safety net for crashes; the placeholders work without it */
  }
}

/**
 * Makes sure something exists at `target` for a read-only mount: nothing is
 * done when it exists; otherwise an empty folder (or file) is made and counted.
 * Returns a release function (a no-op for paths that existed).
 */
export function holdPlaceholder(target: string, kind: PlaceholderKind): () => void {
  const held = standing.get(target);
  if (held) {
    held.users++;
    return once(() => release(target));
  }
  try {
    if (kind === 'folder') fs.mkdirSync(target, { mode: 0o555 });
    else fs.closeSync(fs.openSync(target, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o444));
  } catch (err) {
    // Already there (the user's own, or made between our look and now): mounted read-only as it is.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return () => {};
    throw err;
  }
  const stat = fs.lstatSync(target);
  standing.set(target, { kind, dev: stat.dev, ino: stat.ino, users: 1 });
  saveList();
  return once(() => release(target));
}

function release(target: string): void {
  const held = standing.get(target);
  if (!held || --held.users > 0) return;
  standing.delete(target);
  removeIfStandIn(target, held);
  saveList();
}

/** Removes a stand-in only while it is still the one made here and still empty. */
function removeIfStandIn(target: string, made: { kind: PlaceholderKind; dev: number; ino: number }): void {
  try {
    const stat = fs.lstatSync(target);
    if (stat.dev !== made.dev || stat.ino !== made.ino) return;
    if (made.kind === 'folder' && stat.isDirectory()) fs.rmdirSync(target);
    else if (made.kind === 'file' && stat.isFile() && stat.size === 0) fs.unlinkSync(target);
  } catch {
    /* gone already, or not empty (then it is the user's now): left as it is */
  }
}

/** Placeholders standing now (tests). */
export function standingPlaceholders(): string[] {
  return [...standing.keys()];
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
