// The ledger as the model reads it: user messages verbatim, the paths as a
// trie (one line per folder), commands and distinct errors. And the reverse
// for paths, so a test can check that a path really is in the text.
import { renderPlan } from '../../shared/plan.js';
import type { Ledger } from '../../shared/protocol.js';
import { verbatimItem } from './verbatim.js';

const NO_FOLDER = '(no folder)';
const PATHS_HEADING = '### Paths by folder (r read, w written, e edited, l listed, g grepped; ×N times)';
const FIND_REST = 'search_history finds them';

export function renderLedger(l: Ledger): string {
  const lines = ['## Ledger (exact record of the folded history, built without an LLM)'];
  lines.push('### User messages, verbatim');
  if (l.omitted.userMessages) lines.push(`- (${l.omitted.userMessages} older user messages not shown; ${FIND_REST})`);
  else if (!l.userMessages.length) lines.push('- (none in the folded span)');
  for (const u of l.userMessages) {
    // Whole and byte for byte (line breaks too): see verbatim.ts.
    if (u.pointer) lines.push(`- ${u.text}`);
    // Only in logs of older versions: a lean ledger once kept the start of a long message.
    else if (u.truncated) lines.push(`- [event ${u.seq}, long message, start only; search_history reads it whole] ${u.text.replace(/\n/g, '\n  ')} …`);
    else lines.push(verbatimItem('', u.text));
  }
  const paths = l.paths ?? [...l.filesRead.map((path) => ({ path, how: 'r', count: 1 })), ...l.filesWritten.map((path) => ({ path, how: 'w', count: 1 }))];
  if (paths.length || l.omitted.files) {
    lines.push(PATHS_HEADING);
    for (const [dir, entries] of trie(paths)) {
      lines.push(`- ${dir || NO_FOLDER}: ${entries.map((e) => `${e.name}${annotation(e.how, e.count)}`).join(', ')}`);
    }
    if (l.omitted.files) lines.push(`- (${l.omitted.files} more paths not shown; ${FIND_REST})`);
  }
  if (l.commands.length || l.omitted.commands) {
    lines.push('### Commands (exit code 0 unless shown; ×N runs)');
    if (l.omitted.commands) lines.push(`- (${l.omitted.commands} older commands not shown; ${FIND_REST})`);
    for (const c of l.commands) {
      const status = c.status === 'ok' || c.status === 'exit code: 0' ? '' : ` -> ${c.status}`;
      lines.push(`- \`${c.command.replace(/\n/g, ' ⏎ ')}\`${status}${(c.count ?? 1) > 1 ? ` ×${c.count}` : ''}`);
    }
  }
  if (l.identifiers?.length) {
    lines.push('### Names seen in the folded history (paths, symbols, error codes; newest first)');
    lines.push(l.identifiers.join(', '));
  }
  if (l.plan) {
    // Re-injected after every fold, like Claude Code's todo list: the plan the agent was following.
    lines.push(`### Current plan (update_plan, event ${l.plan.seq}; a later update_plan call replaces it)`);
    lines.push(renderPlan(l.plan));
  }
  if (l.instructions) {
    lines.push(`### Project instructions as changed during the session (event ${l.instructions.seq}; they replace the ones in the system prompt)`);
    lines.push(l.instructions.text);
  }
  const errors = l.errorLines ?? l.errors.map((text) => ({ text, firstSeq: 0, lastSeq: 0, count: 1 }));
  if (errors.length || l.omitted.errors) {
    lines.push('### Errors (first … last event)');
    if (l.omitted.errors) lines.push(`- (${l.omitted.errors} older error lines not shown; ${FIND_REST})`);
    for (const e of errors) {
      const where = !e.firstSeq ? '' : e.count > 1 ? ` (events ${e.firstSeq} … ${e.lastSeq}, ×${e.count})` : ` (event ${e.firstSeq})`;
      lines.push(`- ${e.text}${where}`);
    }
  }
  return lines.join('\n');
}

function annotation(how: string, count: number): string {
  const letters = how === 'r' ? '' : how;
  const times = count > 1 ? `×${count}` : '';
  return letters || times ? ` (${letters}${times})` : '';
}

/**
 * Paths grouped by folder, one line per folder, folders in order. A folder
 * with a single path joins the line of its nearest listed ancestor
 * (`django/db/: models/query.py, utils.py`), so a deep tree stays a few lines.
 */
function trie(paths: readonly { path: string; how: string; count: number }[]): [string, { name: string; how: string; count: number }[]][] {
  const dirs = new Map<string, { path: string; how: string; count: number }[]>();
  for (const p of paths) {
    const dir = folderOf(p.path);
    dirs.set(dir, [...(dirs.get(dir) ?? []), p]);
  }
  const keys = [...dirs.keys()].sort((a, b) => b.length - a.length);
  for (const dir of keys) {
    const entries = dirs.get(dir)!;
    if (entries.length !== 1 || !dir) continue;
    const ancestor = keys.find((a) => a && a !== dir && dir.startsWith(a) && (dirs.get(a)?.length ?? 0) > 0);
    if (!ancestor) continue;
    dirs.get(ancestor)!.push(...entries);
    dirs.set(dir, []);
  }
  return [...dirs.entries()]
    .filter(([, entries]) => entries.length)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([dir, entries]) => [dir, entries.map((e) => ({ name: e.path.slice(dir.length), how: e.how, count: e.count }))]);
}

/** The folder part of a path (`a/b/` for `a/b/c.py`, and `a/` for the folder `a/b/`). */
export function folderOf(path: string): string {
  return path.slice(0, path.replace(/\/+$/, '').lastIndexOf('/') + 1);
}

/** Every path the rendered ledgers in `text` list (the inverse of the trie above). */
export function pathsInLedgerText(text: string): Set<string> {
  const out = new Set<string>();
  let inPaths = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) {
      inPaths = line === PATHS_HEADING;
      continue;
    }
    if (!inPaths || !line.startsWith('- ') || line.startsWith('- (')) continue;
    const colon = line.indexOf(': ');
    if (colon < 0) continue;
    const head = line.slice(2, colon);
    const dir = head === NO_FOLDER ? '' : head;
    for (const item of line.slice(colon + 2).split(', ')) {
      const name = /^(.*?)(?: \([rwelg]*(?:×\d+)?\))?$/.exec(item)![1]!;
      out.add(dir + name);
    }
  }
  return out;
}
