// grep: a regular expression over the working folder's files, with ripgrep
// when it is installed and a Node implementation otherwise (same files, same
// output). Output modes: matching lines with context, file names, or counts.
import { stringField, ToolInputError, type Tool } from '../tool.js';
import { clampLimit } from './glob.js';
import { formatGrep, GrepPatternError, type GrepMode, type GrepOutcome, type GrepQuery } from './grep-engine.js';
import { grepWithNode } from './grep-node.js';
import { findRipgrep, grepWithRipgrep } from './grep-ripgrep.js';
import { searchRoot } from './walk.js';

export const GREP_DEFAULT_LIMIT = 250;
export const GREP_MAX_LIMIT = 5000;
export const GREP_MAX_CONTEXT = 20;
const MODES: readonly GrepMode[] = ['lines', 'files', 'counts'];

/** Which engine searches: `auto` uses ripgrep when `rg` is on PATH (tests pick one). */
export type GrepEngine = 'auto' | 'ripgrep' | 'node';

export function grepTool(engine: GrepEngine = 'auto'): Tool {
  return {
    readOnly: true,
    spec: {
      name: 'grep',
      description:
        'Search file contents in the working folder with a regular expression. output_mode "lines" (default: path:line:text, with `context` lines around each match), "files" (names of files that match) or "counts" (matching lines per file). Optional `path` (a folder or file), `glob` (only files matching it, e.g. *.ts), `ignore_case`, `limit` (default 250 lines or files). Honours .gitignore; skips binary files and files over 20 MB.',
      inputSchema: {
        type: 'object',
        properties: {
          pattern: { type: 'string', description: 'Regular expression' },
          path: { type: 'string', description: 'Folder or file to search, relative to the working folder (default: all of it)' },
          glob: { type: 'string', description: 'Only files matching this glob, e.g. *.py or src/**/*.ts' },
          output_mode: { type: 'string', enum: [...MODES], description: 'lines (default), files or counts' },
          context: { type: 'integer', description: `Lines of context before and after each match (lines mode, at most ${GREP_MAX_CONTEXT})` },
          ignore_case: { type: 'boolean' },
          limit: { type: 'integer', description: `Most lines or files to show (default ${GREP_DEFAULT_LIMIT})` },
        },
        required: ['pattern'],
      },
    },
    async run(input, ctx) {
      const query = queryOf(input);
      const from = await searchRoot(ctx, input.path);
      const rg = engine === 'node' ? undefined : findRipgrep();
      if (engine === 'ripgrep' && !rg) throw new ToolInputError('ripgrep (rg) is not on PATH');
      let outcome: GrepOutcome;
      try {
        outcome = rg ? await grepWithRipgrep(rg, query, from, ctx) : await grepWithNode(query, from, ctx);
      } catch (err) {
        if (err instanceof GrepPatternError) return { output: err.message, isError: true };
        throw err;
      }
      const where = from.rel || 'the working folder';
      return { output: formatGrep(outcome, query, where, { limit: clampLimit(input.limit, GREP_DEFAULT_LIMIT, GREP_MAX_LIMIT), maxChars: ctx.outputLimit }), isError: false };
    },
  };
}

function queryOf(input: Record<string, unknown>): GrepQuery {
  const pattern = stringField(input, 'pattern');
  if (pattern === '') throw new ToolInputError('"pattern" must not be empty');
  const mode = input.output_mode ?? 'lines';
  if (typeof mode !== 'string' || !MODES.includes(mode as GrepMode)) throw new ToolInputError(`"output_mode" must be one of ${MODES.join(', ')}`);
  if (input.glob !== undefined && (typeof input.glob !== 'string' || input.glob === '')) throw new ToolInputError('"glob" must be a non-empty string');
  const context = typeof input.context === 'number' && Number.isFinite(input.context) ? Math.max(0, Math.min(GREP_MAX_CONTEXT, Math.floor(input.context))) : 0;
  return {
    pattern,
    ignoreCase: input.ignore_case === true,
    context,
    mode: mode as GrepMode,
    ...(typeof input.glob === 'string' && { glob: input.glob }),
  };
}
