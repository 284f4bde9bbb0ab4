// What both grep engines (ripgrep, Node) return and how it is shown: the same
// structure and one formatter, so the model reads the same text either way.

export type GrepMode = 'files' | 'lines' | 'counts';

export interface GrepQuery {
  pattern: string;
  ignoreCase: boolean;
  /** Lines of context before and after each match (lines mode). */
  context: number;
  /** Only files whose name (no slash) or path from the working folder (with a slash) matches. */
  glob?: string;
  mode: GrepMode;
}

export interface GrepLine {
  n: number;
  text: string;
  match: boolean;
}

export interface GrepFile {
  /** Relative to the working folder, `/`-separated. */
  path: string;
  /** Lines that match. */
  count: number;
  /** Matching and context lines in order (lines mode only). */
  lines: GrepLine[];
}

export interface GrepOutcome {
  files: GrepFile[];
  /** The search stopped before the end (too much output, too many files). */
  stoppedEarly?: string;
}

/** Files larger than this are not searched (both engines). */
export const MAX_GREP_FILE_BYTES = 20 * 1024 * 1024;
/** A line longer than this is shown cut, with how much is left out. */
export const MAX_LINE_CHARS = 500;

export interface FormatLimits {
  /** Most output lines (lines mode) or files (files, counts). */
  limit: number;
  /** Most characters in all. */
  maxChars: number;
}

/** The output the model reads: `path:n:text` matches, `path-n-text` context, `--` between groups. */
export function formatGrep(outcome: GrepOutcome, query: GrepQuery, where: string, limits: FormatLimits): string {
  const { files } = outcome;
  if (!files.length) return `no matches for /${query.pattern}/${query.ignoreCase ? 'i' : ''} in ${where}${outcome.stoppedEarly ? ` (${outcome.stoppedEarly})` : ''}`;
  const rows: string[] = [];
  if (query.mode === 'files') {
    for (const f of files) rows.push(f.path);
  } else if (query.mode === 'counts') {
    for (const f of files) rows.push(`${f.path}:${f.count}`);
  } else {
    for (const f of files) {
      let previous: number | undefined;
      for (const line of f.lines) {
        // Groups of context are separated, as grep and ripgrep do.
        if (query.context > 0 && rows.length && (previous === undefined || line.n !== previous + 1)) rows.push('--');
        rows.push(`${f.path}${line.match ? ':' : '-'}${line.n}${line.match ? ':' : '-'}${cutLine(line.text)}`);
        previous = line.n;
      }
    }
  }
  const shown: string[] = [];
  let chars = 0;
  for (const row of rows) {
    if (shown.length >= limits.limit || chars + row.length + 1 > limits.maxChars) break;
    shown.push(row);
    chars += row.length + 1;
  }
  const notes: string[] = [];
  const matchingLines = files.reduce((n, f) => n + f.count, 0);
  if (shown.length < rows.length) {
    const unit = query.mode === 'lines' ? 'lines' : 'files';
    notes.push(`[${rows.length - shown.length} more ${unit} not shown (${files.length} files, ${matchingLines} matching lines in all); narrow the pattern, path or glob, use output_mode "files" or "counts", or raise limit]`);
  }
  if (outcome.stoppedEarly) notes.push(`[${outcome.stoppedEarly}]`);
  return [...shown, ...notes].join('\n');
}

function cutLine(text: string): string {
  return text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}… [${text.length - MAX_LINE_CHARS} more characters]` : text;
}

/** The regular expression the Node engine uses; a clear error for a bad one. */
export function compilePattern(pattern: string, ignoreCase: boolean): RegExp {
  const flags = ignoreCase ? 'i' : '';
  try {
    // Unicode mode first (as ripgrep's regexes are), plain mode for patterns only it accepts (e.g. `\-`).
    return new RegExp(pattern, `${flags}u`);
  } catch {
    try {
      return new RegExp(pattern, flags);
    } catch (err) {
      throw new GrepPatternError(`invalid regular expression /${pattern}/: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

export class GrepPatternError extends Error {}
