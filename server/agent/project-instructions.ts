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

/** The instruction files that apply to `workDir`, outermost folder first (the nearest, most specific one last). */
export function findInstructionFiles(workDir: string): InstructionFile[] {
  const found: InstructionFile[] = [];
  for (const dir of foldersUpToRepoRoot(workDir)) {
    for (const name of INSTRUCTION_FILES) {
      const file = readRegular(path.join(dir, name));
      if (file === undefined) continue;
      found.push({ path: toPosix(path.relative(workDir, path.join(dir, name))), text: file, sha256: crypto.createHash('sha256').update(file).digest('hex') });
      break; // CLAUDE.md only where there is no AGENTS.md
    }
  }
  return found.reverse();
}

/** The working folder, then its parents up to the nearest one holding .git; only the working folder when there is none. */
function foldersUpToRepoRoot(workDir: string): string[] {
  const start = path.resolve(workDir);
  const chain: string[] = [];
  for (let dir = start; ; dir = path.dirname(dir)) {
    chain.push(dir);
    if (fs.existsSync(path.join(dir, '.git'))) return chain;
    if (path.dirname(dir) === dir) return [start];
  }
}

function readRegular(file: string): string | undefined {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) return undefined;
    const fd = fs.openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(Math.min(stat.size, MAX_READ_BYTES));
      const n = fs.readSync(fd, buffer, 0, buffer.length, 0);
      return buffer.subarray(0, n).toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
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
export function startEvent(files: InstructionFile[]): Extract<NewEvent, { kind: 'instructions' }> | undefined {
  if (!files.length) return undefined;
  const { sections, notice } = capped(files);
  const text =
    '# Project instructions\n\n' +
    "The project's instruction files (AGENTS.md or CLAUDE.md), as they were when this session started; follow them. " +
    `A later change to them arrives as a message wrapped in ${INSTRUCTIONS_NOTE_OPEN}, which replaces these.` +
    (notice ? `\n\n[${notice}]` : '') +
    `\n\n${sections.join('\n\n')}`;
  return { kind: 'instructions', phase: 'start', files: fingerprint(files), text, ...(notice && { notice }) };
}

export function changedEvent(files: InstructionFile[], before: readonly { path: string }[]): Extract<NewEvent, { kind: 'instructions' }> {
  const { sections, notice } = capped(files);
  const gone = before.filter((b) => !files.some((f) => f.path === b.path)).map((b) => b.path);
  const body = files.length ? sections.join('\n\n') : '(there are no instruction files any more)';
  const text =
    `${INSTRUCTIONS_NOTE_OPEN}Automatic note from skein (not a message from the user): the project instructions changed. ` +
    'Follow these from now on; they replace the ones in the system prompt and any earlier note.' +
    (gone.length ? ` Removed: ${gone.join(', ')}.` : '') +
    (notice ? ` [${notice}]` : '') +
    `\n\n${body}${INSTRUCTIONS_NOTE_CLOSE}`;
  return { kind: 'instructions', phase: 'changed', files: fingerprint(files), text, ...(notice && { notice }) };
}

function fingerprint(files: InstructionFile[]): InstructionsEvent['files'] {
  return files.map((f) => ({ path: f.path, chars: f.text.length, sha256: f.sha256 }));
}

function sameFiles(a: readonly { path: string; sha256: string }[], b: readonly { path: string; sha256: string }[]): boolean {
  return a.length === b.length && a.every((f, i) => f.path === b[i]!.path && f.sha256 === b[i]!.sha256);
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
      const event = startEvent(findInstructionFiles(workDir));
      if (event) session.append(event);
    }
    const start = session.log.kinds.eventsOf('instructions').find((e) => e.phase === 'start');
    this.systemSection = start?.text ?? '';
  }

  /** At the safe point before a request: logs a note when the files differ from the last ones the model saw. */
  beforeRequest(): void {
    const files = findInstructionFiles(this.workDir);
    const last = this.session.log.last('instructions');
    const known = last?.files ?? [];
    if (sameFiles(known, files)) return;
    this.session.append(changedEvent(files, known));
  }
}

function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}
