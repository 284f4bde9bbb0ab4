// The unified diff a write_file or edit_file result carries: what the model
// changed, for the tool card (and an approval prompt) to show. Capped, so a
// rewrite of a large file does not flood the model's context; the file itself
// is always there to read.
import { structuredPatch } from 'diff';

/** Most diff lines in a result (a diff past it is cut with a notice). */
export const DIFF_MAX_LINES = 200;
/** Most diff characters in a result. */
export const DIFF_MAX_CHARS = 12_000;
/** Files larger than this (before or after) get no diff, only a note: diffing them could stall the server. */
export const DIFF_MAX_INPUT_CHARS = 2_000_000;
/** Edit distance (in lines) past which the diff is not computed (Myers' algorithm is quadratic in it). */
const MAX_EDIT_LENGTH = 20_000;

/** `before` undefined: the file is new. Returns the diff text, starting with `--- ` (or a one-line note). */
export function unifiedDiff(file: string, before: string | undefined, after: string): string {
  if (before !== undefined && before === after) return '(no changes: the file already had this content)';
  if ((before?.length ?? 0) > DIFF_MAX_INPUT_CHARS || after.length > DIFF_MAX_INPUT_CHARS) return tooLargeToDiff();
  if (before !== undefined && before.includes('\0')) return '(no diff: the file was binary)';
  const patch = structuredPatch(`a/${file}`, `b/${file}`, before ?? '', after, undefined, undefined, { context: 3, maxEditLength: MAX_EDIT_LENGTH });
  if (!patch) return '(no diff: too many changes to compare; read the file)';
  const lines = [before === undefined ? '--- /dev/null' : `--- a/${file}`, `+++ b/${file}`];
  for (const h of patch.hunks) {
    // An empty side is numbered from the line before it (`-0,0` for a new file), as diff -u does.
    const oldStart = h.oldLines === 0 ? h.oldStart - 1 : h.oldStart;
    const newStart = h.newLines === 0 ? h.newStart - 1 : h.newStart;
    lines.push(`@@ -${oldStart},${h.oldLines} +${newStart},${h.newLines} @@`, ...h.lines);
  }
  return capDiff(lines);
}

export function tooLargeToDiff(): string {
  return `(no diff: the file is larger than ${DIFF_MAX_INPUT_CHARS.toLocaleString('en-US')} characters)`;
}

function capDiff(lines: string[]): string {
  const kept: string[] = [];
  let chars = 0;
  for (const line of lines) {
    if (kept.length >= DIFF_MAX_LINES || chars + line.length + 1 > DIFF_MAX_CHARS) break;
    kept.push(line);
    chars += line.length + 1;
  }
  if (kept.length < lines.length) kept.push(`[diff cut: ${lines.length - kept.length} more lines not shown; read_file shows the file]`);
  return kept.join('\n');
}
