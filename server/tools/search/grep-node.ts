// grep without ripgrep: the same walk as glob (.gitignore honoured, links not
// followed), files read whole up to MAX_GREP_FILE_BYTES, a file with a NUL
// byte taken as binary and skipped (as ripgrep does).
import { constants } from 'node:fs';
import { Door } from '../../host/door.js';
import type { ToolContext } from '../tool.js';
import { globMatcher } from './glob-pattern.js';
import { compilePattern, MAX_GREP_FILE_BYTES, type GrepFile, type GrepLine, type GrepOutcome, type GrepQuery } from './grep-engine.js';
import { Walker, type SearchRoot } from './walk.js';

/** Stops collecting once this many lines are kept (the formatter shows far fewer). */
const MAX_COLLECTED_LINES = 100_000;

export async function grepWithNode(query: GrepQuery, from: SearchRoot, ctx: ToolContext): Promise<GrepOutcome> {
  const re = compilePattern(query.pattern, query.ignoreCase);
  const only = query.glob ? globMatcher(query.glob) : undefined;
  const walker = new Walker(from, { gitignore: true, ...(only && { keepFile: (rel: string) => only.matches(rel) }) }, ctx.signal);
  const files: GrepFile[] = [];
  let collected = 0;
  const door = new Door(from.root);
  for await (const entry of walker.entries()) {
    if (entry.kind !== 'file') continue;
    if (only && !only.matches(entry.rel)) continue;
    const data = await readSmallFile(door, entry.rel);
    if (!data || data.includes(0)) continue;
    const found = searchText(data.toString('utf8'), re, query);
    if (!found) continue;
    files.push({ path: entry.rel, ...found });
    collected += found.lines.length;
    if (collected >= MAX_COLLECTED_LINES) return { files, stoppedEarly: 'the search stopped early: too many matching lines' };
  }
  return { files, ...(walker.truncated && { stoppedEarly: 'the search stopped early: the folder has too many files; search a subfolder' }) };
}

/** A regular file's bytes through the door (a link swapped in since the walk is not followed); undefined when larger than grep reads. */
async function readSmallFile(door: Door, rel: string): Promise<Buffer | undefined> {
  const handle = await door.open(rel, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > MAX_GREP_FILE_BYTES) return undefined;
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

function searchText(text: string, re: RegExp, query: GrepQuery): { count: number; lines: GrepLine[] } | undefined {
  const all = text.split('\n');
  // A final newline ends the last line; it does not start another.
  if (all.length > 1 && all[all.length - 1] === '') all.pop();
  const hits: number[] = [];
  for (let i = 0; i < all.length; i++) if (re.test(all[i]!)) hits.push(i);
  if (!hits.length) return undefined;
  if (query.mode !== 'lines') return { count: hits.length, lines: [] };
  const keep = new Map<number, boolean>();
  for (const i of hits) {
    for (let j = Math.max(0, i - query.context); j <= Math.min(all.length - 1, i + query.context); j++) if (!keep.has(j)) keep.set(j, false);
    keep.set(i, true);
  }
  const lines = [...keep.entries()].sort((a, b) => a[0] - b[0]).map(([i, match]) => ({ n: i + 1, text: all[i]!, match }));
  return { count: hits.length, lines };
}
