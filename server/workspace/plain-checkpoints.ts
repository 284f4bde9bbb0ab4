// Checkpoints of a folder outside git: the file tools' targets are copied
// before they change, and put back by a rewind. Every access to the working
// folder goes through the door (host/door.ts): the path checked is the one the
// tool itself resolved (resolveInside, as write_file and edit_file do), a link
// is recorded and restored as a link (its target is never read), and a rewind
// replaces whatever is at a path now (a link to ~/.bashrc included) instead of
// writing through it. The copies live in the session's own folder.
import fs from 'node:fs';
import path from 'node:path';
import { Door, DoorError, shownPath, type DoorEntry } from '../host/door.js';
import { unifiedDiff } from '../tools/diff.js';
import { resolveInside } from '../tools/paths.js';
import type { RewindPreview } from '../../shared/protocol.js';
import { sentence } from '../../shared/sentence.js';

/** One checkpoint outside git: each file (true: copied, false: did not exist) and each link (its target) as it was. */
export interface PlainEntry {
  seq: number;
  tool: string;
  files: Record<string, boolean>;
  links?: Record<string, string>;
}

/** A path as it was at a checkpoint. */
type Then = { kind: 'file'; copy: string } | { kind: 'missing' } | { kind: 'link'; target: string };

export function isFileTool(tool: string): boolean {
  return tool === 'write_file' || tool === 'edit_file';
}

/** The checkpoint before a file tool's call: what its target (as the tool resolves it) is now. */
export function plainCheckpoint(workDir: string, store: string, tool: string, input: Record<string, unknown>, seq: number): PlainEntry {
  const entry: PlainEntry = { seq, files: {}, tool };
  const requested = typeof input.path === 'string' && isFileTool(tool) ? input.path : undefined;
  if (requested === undefined) return entry;
  let door: Door;
  let rel: string;
  try {
    // The tool's own check first: a path it will refuse (outside, through a link leaving the folder) is never read.
    door = new Door(workDir);
    rel = path.relative(door.root, resolveInside(workDir, requested));
  } catch {
    return entry;
  }
  try {
    const now = door.entry(rel);
    if (now.kind === 'link') (entry.links ??= {})[rel] = now.target;
    else if (now.kind === 'file') {
      const copy = path.join(store, String(seq), rel);
      fs.mkdirSync(path.dirname(copy), { recursive: true });
      fs.writeFileSync(copy, door.readFile(rel)!);
      entry.files[rel] = true;
    } else if (now.kind === 'missing') entry.files[rel] = false;
  } catch (err) {
    // A link on the way (swapped in since the tool's check): nothing is read; the tool refuses it too.
    if (!(err instanceof DoorError)) throw err;
  }
  return entry;
}

/** Each path the file tools touched after the rewind point, as it was then (the earliest checkpoint wins). */
export function plainStates(later: readonly PlainEntry[], store: string): Map<string, Then> {
  const states = new Map<string, Then>();
  for (const e of later) {
    for (const [rel, existed] of Object.entries(e.files)) {
      if (!states.has(rel)) states.set(rel, existed ? { kind: 'file', copy: path.join(store, String(e.seq), rel) } : { kind: 'missing' });
    }
    for (const [rel, target] of Object.entries(e.links ?? {})) if (!states.has(rel)) states.set(rel, { kind: 'link', target });
  }
  return states;
}

function describeNow(now: DoorEntry): string | undefined {
  if (now.kind === 'file' || now.kind === 'missing') return undefined;
  if (now.kind === 'link') return `a symbolic link to ${shownPath(now.target)}${now.outside ? ', outside the folder' : ''}`;
  return now.kind === 'dir' ? 'a folder' : 'not a regular file';
}

export function plainPreview(workDir: string, later: readonly PlainEntry[], store: string): RewindPreview {
  const door = new Door(workDir);
  const files: RewindPreview['files'] = [];
  const diffs: string[] = [];
  const notes: string[] = [];
  for (const [rel, then] of plainStates(later, store)) {
    let now: DoorEntry;
    try {
      now = door.entry(rel);
    } catch (err) {
      if (!(err instanceof DoorError)) throw err;
      notes.push(`${rel} cannot be rewound: ${sentence(err.message)} The rewind is refused as a whole while it is so: nothing would change.`);
      continue;
    }
    const nowText = now.kind === 'file' ? door.readFile(rel)!.toString('utf8') : undefined;
    const odd = describeNow(now);
    if (then.kind === 'link') {
      if (now.kind === 'link' && now.target === then.target) continue;
      files.push({ path: rel, change: now.kind === 'missing' ? 'recreate' : 'restore' });
      diffs.push(unifiedDiff(rel, nowText ?? (odd ? `(${odd})\n` : undefined), `(a symbolic link to ${then.target})\n`));
      continue;
    }
    const thenText = then.kind === 'file' ? fs.readFileSync(then.copy, 'utf8') : undefined;
    if (!odd && nowText === thenText) continue;
    files.push({ path: rel, change: then.kind === 'missing' ? 'delete' : now.kind === 'missing' ? 'recreate' : 'restore' });
    diffs.push(unifiedDiff(rel, nowText ?? (odd ? `(${odd})\n` : undefined), thenText ?? ''));
    // What is there now is named: a rewind replaces a link, never writes through it.
    if (odd) notes.push(`${rel} is now ${odd}: the rewind ${then.kind === 'missing' ? 'removes it' : 'replaces it with the file as it was'}; nothing is written through it.`);
  }
  return { files, diff: diffs.join('\n'), notes };
}

/** Puts each path back as it was; refuses the whole rewind, writing nothing, when a path cannot be reached without a link. */
export function plainRewind(workDir: string, later: readonly PlainEntry[], store: string): void {
  const door = new Door(workDir);
  const states = plainStates(later, store);
  for (const rel of states.keys()) {
    try {
      door.entry(rel);
    } catch (err) {
      throw err instanceof DoorError ? new DoorError(`rewind refused, nothing was changed: ${err.message}`, err.reason) : err;
    }
  }
  for (const [rel, then] of states) {
    const now = door.entry(rel);
    if (then.kind === 'file') door.writeFile(rel, fs.readFileSync(then.copy), now.kind === 'file' ? now.mode : undefined);
    else if (then.kind === 'link') door.makeLink(rel, then.target);
    else if (now.kind !== 'dir') door.remove(rel);
  }
}
