// Project instructions: AGENTS.md (or CLAUDE.md in a folder without one) in
// the working folder and each parent up to the repository root (the nearest
// folder with a .git; without a repository, the working folder alone).
//
// Read once when a session is created and recorded in the log (`instructions`
// event, phase start): the system prompt is built from that event, so it is
// the same after a restart, byte for byte (prompt caching and Anthropic's
// thinking prefix check depend on it), and a compaction never touches it. A
// later change is noticed before a request and logged as a `changed` event
// whose note reaches the model as a new message at the end of the
// conversation, as status notes do.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { INSTRUCTIONS_NOTE_CLOSE, INSTRUCTIONS_NOTE_OPEN, type InstructionsEvent, type NewEvent } from '../../shared/protocol.js';
import { Door, DoorError, shownPath } from '../host/door.js';
import type { Session } from './session.js';

export const INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md'] as const;
/** All instruction files together are cut to this many characters (the system prompt is sent with every request). */
export const MAX_INSTRUCTIONS_CHARS = 32_000;
/** Only this much of a file is read (a larger one is cut anyway). */
const MAX_READ_BYTES = 1024 * 1024;

export interface InstructionFile {
  /** Relative to the working folder (`AGENTS.md`, `../AGENTS.md`). */
  path: string;
  text: string;
  sha256: string;
}

/** A file that is there but was not read (a link leaving the repository): the user is told, the model never sees it. */
export interface SkippedInstructionFile {
  path: string;
  reason: string;
}

/** The instruction files that apply to `workDir`, outermost folder first (the nearest, most specific one last). */
export function findInstructionFiles(workDir: string): InstructionFile[] {
  return readInstructionFiles(workDir).files;
}

/**
 * The instruction files, read through the door (host/door.ts) rooted at the
 * repository's root: a link is never followed out of the repository (an
 * AGENTS.md linked to ~/.ssh/id_ed25519 would be sent with every request); a
 * link to another file inside it (CLAUDE.md -> AGENTS.md) is read as that file.
 */
export function readInstructionFiles(workDir: string): { files: InstructionFile[]; skipped: SkippedInstructionFile[] } {
  const found: InstructionFile[] = [];
  const skipped: SkippedInstructionFile[] = [];
  let chain: string[];
  let door: Door;
  try {
    chain = foldersUpToRepoRoot(fs.realpathSync(workDir));
    door = new Door(chain[chain.length - 1]!);
  } catch {
    return { files: [], skipped: [] };
  }
  const shownFrom = chain[0]!;
  for (const dir of chain) {
    for (const name of INSTRUCTION_FILES) {
      const shown = toPosix(path.relative(shownFrom, path.join(dir, name)));
      const read = readThroughDoor(door, path.relative(door.root, path.join(dir, name)));
      if (read === undefined) continue;
      if ('reason' in read) skipped.push({ path: shown, reason: read.reason });
      else found.push({ path: shown, text: read.text, sha256: crypto.createHash('sha256').update(read.text).digest('hex') });
      break; // CLAUDE.md only where there is no AGENTS.md
    }
  }
  return { files: found.reverse(), skipped: skipped.reverse() };
}

/** The working folder, then its parents up to the nearest one holding .git; only the working folder when there is none. */
function foldersUpToRepoRoot(start: string): string[] {
  const chain: string[] = [];
  for (let dir = start; ; dir = path.dirname(dir)) {
    chain.push(dir);
    if (lstatExists(path.join(dir, '.git'))) return chain;
    if (path.dirname(dir) === dir) return [start];
  }
}

function lstatExists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** A regular file's text; a link inside the repository read as its target (one step, no link chains); undefined: not there or not a file. */
function readThroughDoor(door: Door, rel: string): { text: string } | { reason: string } | undefined {
  try {
    const entry = door.entry(rel);
    // A hard link is the same file under another name too, perhaps a key outside (git never makes one).
    if (entry.kind === 'file' && entry.links > 1) return { reason: 'a hard link (the same file has another name, perhaps outside the repository): not read' };
    if (entry.kind === 'file') return { text: door.readFile(rel, MAX_READ_BYTES)!.toString('utf8') };
    if (entry.kind !== 'link') return undefined;
    if (entry.outside) return { reason: `a symbolic link to ${shownPath(entry.target)}, outside the repository: not read` };
    const target = path.relative(door.root, path.resolve(door.root, path.dirname(rel), entry.target));
    const resolved = door.entry(target);
    if (resolved.kind !== 'file') return { reason: `a symbolic link to ${entry.target}, which is not a regular file: not read` };
    if (resolved.links > 1) return { reason: `a symbolic link to ${entry.target}, a hard link: not read` };
    return { text: door.readFile(target, MAX_READ_BYTES)!.toString('utf8') };
  } catch (err) {
    if (err instanceof DoorError) return { reason: `${err.message}: not read` };
    return undefined;
  }
}

/** The files' texts within MAX_INSTRUCTIONS_CHARS: the nearest files are kept whole first; what is cut is said. */
function capped(files: InstructionFile[], max = MAX_INSTRUCTIONS_CHARS): { sections: string[]; notice?: string } {
  let room = max;
  const shown = new Array<string>(files.length);
  const cuts: string[] = [];
  for (let i = files.length - 1; i >= 0; i--) {
    const f = files[i]!;
    const text = f.text.length <= room ? f.text : f.text.slice(0, room);
    room -= text.length;
    if (text.length < f.text.length) cuts.push(`${f.path}: ${text.length.toLocaleString('en-US')} of ${f.text.length.toLocaleString('en-US')} characters`);
    shown[i] = `## ${f.path}\n\n${text.trimEnd()}${text.length < f.text.length ? `\n\n[${f.path} is cut here; read_file reads the rest]` : ''}`;
  }
  const notice = cuts.length
    ? `Project instructions are capped at ${max.toLocaleString('en-US')} characters; shown: ${cuts.reverse().join('; ')}. read_file reads the whole files.`
    : undefined;
  return { sections: shown, ...(notice && { notice }) };
}

/** The `start` event for a new session, or undefined when there are no instruction files. */
export function startEvent(files: InstructionFile[], skipped: readonly SkippedInstructionFile[] = []): Extract<NewEvent, { kind: 'instructions' }> | undefined {
  if (!files.length && !skipped.length) return undefined;
  // Only files that were not read: nothing for the system prompt, a line for the user.
  if (!files.length) return { kind: 'instructions', phase: 'start', files: [], text: '', skipped: [...skipped] };
  const { sections, notice } = capped(files);
  const text =
    '# Project instructions\n\n' +
    "The project's instruction files (AGENTS.md or CLAUDE.md), as they were when this session started; follow them. " +
    `A later change to them arrives as a message wrapped in ${INSTRUCTIONS_NOTE_OPEN}, which replaces these.` +
    (notice ? `\n\n[${notice}]` : '') +
    `\n\n${sections.join('\n\n')}`;
  return { kind: 'instructions', phase: 'start', files: fingerprint(files), text, ...(notice && { notice }), ...(skipped.length && { skipped: [...skipped] }) };
}

export function changedEvent(files: InstructionFile[], before: readonly { path: string }[], skipped: readonly SkippedInstructionFile[] = []): Extract<NewEvent, { kind: 'instructions' }> {
  const { sections, notice } = capped(files);
  const gone = before.filter((b) => !files.some((f) => f.path === b.path)).map((b) => b.path);
  const body = files.length ? sections.join('\n\n') : '(there are no instruction files any more)';
  const text =
    `${INSTRUCTIONS_NOTE_OPEN}Automatic note from skein (not a message from the user): the project instructions changed. ` +
    'Follow these from now on; they replace the ones in the system prompt and any earlier note.' +
    (gone.length ? ` Removed: ${gone.join(', ')}.` : '') +
    (notice ? ` [${notice}]` : '') +
    `\n\n${body}${INSTRUCTIONS_NOTE_CLOSE}`;
  return { kind: 'instructions', phase: 'changed', files: fingerprint(files), text, ...(notice && { notice }), ...(skipped.length && { skipped: [...skipped] }) };
}

function fingerprint(files: InstructionFile[]): InstructionsEvent['files'] {
  return files.map((f) => ({ path: f.path, chars: f.text.length, sha256: f.sha256 }));
}

function sameFiles(a: readonly { path: string; sha256: string }[], b: readonly { path: string; sha256: string }[]): boolean {
  return a.length === b.length && a.every((f, i) => f.path === b[i]!.path && f.sha256 === b[i]!.sha256);
}

function sameSkipped(a: readonly SkippedInstructionFile[], b: readonly SkippedInstructionFile[]): boolean {
  return a.length === b.length && a.every((f, i) => f.path === b[i]!.path && f.reason === b[i]!.reason);
}

/** A session's instructions: the system prompt's section, and changes noticed before each request. */
export class ProjectInstructions {
  /** The part of the system prompt fixed at session start ('' when the session started without instructions). */
  readonly systemSection: string;

  constructor(
    private readonly session: Session,
    private readonly workDir: string,
  ) {
    // A new session (nothing logged yet) reads the files now; an existing one keeps what its log says.
    if (session.log.lastSeq === 0) {
      const { files, skipped } = readInstructionFiles(workDir);
      const event = startEvent(files, skipped);
      if (event) session.append(event);
    }
    const start = session.log.kinds.eventsOf('instructions').find((e) => e.phase === 'start');
    this.systemSection = start?.text ?? '';
  }

  /** At the safe point before a request: logs a note when the files differ from the last ones the model saw. */
  beforeRequest(): void {
    const { files, skipped } = readInstructionFiles(this.workDir);
    const last = this.session.log.last('instructions');
    const known = last?.files ?? [];
    // A file that became a link leaving the repository is a change too: the model is told it is gone, the user why.
    if (sameFiles(known, fingerprint(files)) && sameSkipped(last?.skipped ?? [], skipped)) return;
    this.session.append(changedEvent(files, known, skipped));
  }
}

function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}
