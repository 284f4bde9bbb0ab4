// The deterministic ledger: built without an LLM from the folded span, so it
// cannot invent anything. User messages verbatim, files read and written,
// commands with their exit status, error lines. Carried forward: the ledger of
// an earlier summary that gets folded again is merged in.
import type { Ledger } from '../../shared/protocol.js';
import type { SourcedMessage } from './view.js';

/** A user message longer than this keeps its start and a pointer to its event. */
export const USER_MESSAGE_VERBATIM_CHARS = 2000;
const MAX_COMMANDS = 40;
const MAX_ERRORS = 15;
const MAX_FILES = 60;
const COMMAND_CHARS = 300;

const READ_TOOLS = new Set(['read_file']);
const WRITE_TOOLS = new Set(['write_file', 'edit_file']);

export function emptyLedger(): Ledger {
  return { userMessages: [], filesRead: [], filesWritten: [], commands: [], errors: [], omitted: { commands: 0, errors: 0, files: 0 } };
}

/** The ledger of `folded`, merged after the ledgers of any earlier summaries inside it. */
export function buildLedger(folded: readonly SourcedMessage[]): Ledger {
  const ledger = emptyLedger();
  const results = new Map<string, SourcedMessage>();
  for (const m of folded) if (m.role === 'tool' && m.toolCallId) results.set(m.toolCallId, m);
  // Sets while building: a long span names thousands of paths.
  const filesRead = new Set<string>();
  const filesWritten = new Set<string>();
  for (const m of folded) {
    if (m.summaryOf) {
      if (m.summaryOf.ledger) {
        mergeInto(ledger, m.summaryOf.ledger);
        for (const f of m.summaryOf.ledger.filesRead) filesRead.add(f);
        for (const f of m.summaryOf.ledger.filesWritten) filesWritten.add(f);
      }
      continue;
    }
    if (m.role === 'user') {
      ledger.userMessages.push(
        m.content.length > USER_MESSAGE_VERBATIM_CHARS
          ? { seq: m.seq, text: m.content.slice(0, 500), truncated: true }
          : { seq: m.seq, text: m.content },
      );
    }
    for (const call of m.toolCalls ?? []) {
      const result = results.get(call.id);
      const status = result ? statusOf(result.content) : 'no result';
      const path = typeof call.input.path === 'string' ? call.input.path : undefined;
      if (path && READ_TOOLS.has(call.name)) filesRead.add(path);
      if (path && WRITE_TOOLS.has(call.name)) filesWritten.add(path);
      const command = typeof call.input.command === 'string' ? call.input.command : `${call.name} ${JSON.stringify(call.input)}`;
      if (typeof call.input.command === 'string') {
        const paths = pathsInCommand(call.input.command);
        for (const p of paths.written) filesWritten.add(p);
        for (const p of paths.read) if (!paths.written.includes(p)) filesRead.add(p);
      }
      ledger.commands.push({ seq: m.seq, command: clip(command, COMMAND_CHARS), status });
      if (result && isErrorStatus(status)) ledger.errors.push(...errorLines(result.content));
    }
  }
  return capLedger({ ...ledger, filesRead: [...filesRead], filesWritten: [...filesWritten] });
}

/** Carries an earlier ledger's lists forward (its files are added by the caller). */
function mergeInto(target: Ledger, earlier: Ledger): void {
  target.userMessages.push(...earlier.userMessages);
  target.commands.push(...earlier.commands);
  target.errors.push(...earlier.errors);
  target.omitted.commands += earlier.omitted.commands;
  target.omitted.errors += earlier.omitted.errors;
  target.omitted.files += earlier.omitted.files;
}

function capLedger(l: Ledger): Ledger {
  const cut = <T>(list: T[], max: number): [T[], number] => (list.length > max ? [list.slice(-max), list.length - max] : [list, 0]);
  const [commands, droppedCommands] = cut(l.commands, MAX_COMMANDS);
  const [errors, droppedErrors] = cut(l.errors, MAX_ERRORS);
  const [filesRead, droppedRead] = cut(l.filesRead, MAX_FILES);
  const [filesWritten, droppedWritten] = cut(l.filesWritten, MAX_FILES);
  return {
    userMessages: l.userMessages,
    filesRead,
    filesWritten,
    commands,
    errors,
    omitted: {
      commands: l.omitted.commands + droppedCommands,
      errors: l.omitted.errors + droppedErrors,
      files: l.omitted.files + droppedRead + droppedWritten,
    },
  };
}

/** A shorter ledger for a tight budget: long user messages become pointers, fewer commands and errors. */
export function leanerLedger(l: Ledger): Ledger {
  return {
    userMessages: l.userMessages.map((u) => (u.text.length > 300 ? { seq: u.seq, text: u.text.slice(0, 300), truncated: true } : u)),
    filesRead: l.filesRead.slice(-20),
    filesWritten: l.filesWritten.slice(-20),
    commands: l.commands.slice(-10),
    errors: l.errors.slice(-5),
    omitted: {
      commands: l.omitted.commands + Math.max(0, l.commands.length - 10),
      errors: l.omitted.errors + Math.max(0, l.errors.length - 5),
      files: l.omitted.files + Math.max(0, l.filesRead.length - 20) + Math.max(0, l.filesWritten.length - 20),
    },
  };
}

export function renderLedger(l: Ledger): string {
  const lines = ['## Ledger (exact record of the folded history, built without an LLM)'];
  lines.push('### User messages, verbatim');
  if (!l.userMessages.length) lines.push('- (none in the folded span)');
  for (const u of l.userMessages) {
    lines.push(u.truncated ? `- [event ${u.seq}, long message, start only] ${u.text} …` : `- ${u.text}`);
  }
  if (l.filesRead.length || l.filesWritten.length || l.omitted.files) {
    lines.push('### Files');
    if (l.filesRead.length) lines.push(`- read or named: ${l.filesRead.join(', ')}`);
    if (l.filesWritten.length) lines.push(`- written: ${l.filesWritten.join(', ')}`);
    if (l.omitted.files) lines.push(`- (${l.omitted.files} older paths omitted)`);
  }
  if (l.commands.length) {
    lines.push('### Commands (exit status)');
    if (l.omitted.commands) lines.push(`- (${l.omitted.commands} older commands omitted)`);
    for (const c of l.commands) lines.push(`- \`${c.command.replace(/\n/g, ' ⏎ ')}\` -> ${c.status}`);
  }
  if (l.errors.length) {
    lines.push('### Errors');
    if (l.omitted.errors) lines.push(`- (${l.omitted.errors} older errors omitted)`);
    for (const e of l.errors) lines.push(`- ${e}`);
  }
  return lines.join('\n');
}

/** The status line tools put first ("exit code: 0", "killed: ...", "bash failed: ..."), else ok. */
function statusOf(output: string): string {
  const first = output.split('\n', 1)[0] ?? '';
  if (/^(exit code: -?\d+|killed: .*|\w+ failed: .*|interrupted: .*|cancelled.*)$/.test(first)) return clip(first, 120);
  const returncode = /<returncode>(-?\d+)<\/returncode>/.exec(output.slice(0, 200));
  return returncode ? `exit code: ${returncode[1]}` : 'ok';
}

function isErrorStatus(status: string): boolean {
  return !(status === 'ok' || status === 'exit code: 0');
}

/** Lines that look like errors, verbatim (a few per result; they are near the end, so only the tail is read). */
function errorLines(output: string): string[] {
  const tail = output.length > 4000 ? output.slice(-4000) : output;
  const lines = tail.split('\n').filter((l) => /(error|exception|traceback|failed|fatal|not found|denied)/i.test(l));
  const picked = (lines.length ? lines : [output.split('\n', 1)[0] ?? '']).slice(-3);
  return picked.map((l) => clip(l.trim(), 300));
}

const PATH = /^(?:\.{0,2}\/)?[\w.-]+(?:\/[\w.-]+)*\.[A-Za-z]\w{0,5}$/;
const VERSION = /^\d+(\.\d+)+$/;

/**
 * File paths a shell command writes (redirection, tee, sed -i) and the others
 * it names. A linear scan over words: a regex over the whole command
 * backtracks badly on long heredocs.
 */
export function pathsInCommand(full: string): { read: string[]; written: string[] } {
  // The files a command touches are named in its first and last lines; a long heredoc's body is code.
  const command = full.length > 1500 ? `${full.slice(0, 1000)}\n${full.slice(-500)}` : full;
  const read = new Set<string>();
  const written = new Set<string>();
  for (const segment of command.split(/[;&|\n]+/)) {
    const words = segment.split(/\s+/).filter(Boolean);
    const sedInPlace = words[0] === 'sed' && words.some((w) => w.startsWith('-i'));
    for (let i = 0; i < words.length; i++) {
      let word = words[i]!;
      let redirected = /^\d?>>?$/.test(words[i - 1] ?? '') || (words[i - 1] === 'tee') || (words[i - 2] === 'tee' && words[i - 1] === '-a');
      const glued = /^\d?>>?(.+)$/.exec(word);
      if (glued) {
        word = glued[1]!;
        redirected = true;
      }
      word = word.replace(/^['"(]+|['")]+$/g, '');
      if (word.length > 200 || !PATH.test(word) || VERSION.test(word) || word.startsWith('-')) continue;
      read.add(word);
      if (redirected || (sedInPlace && i === words.length - 1)) written.add(word);
    }
  }
  return { read: [...read], written: [...written] };
}


function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
