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
        'Search file contents with a regular expression (.gitignore honoured, binary files skipped). output_mode: lines (path:line:text, default), files or counts.',
      inputSchema: {
        type: 'object',
        properties: {
          pattern: { type: 'string' },
          path: { type: 'string', description: 'Folder or file (default: all)' },
          glob: { type: 'string', description: 'Only these files, e.g. *.py' },
          output_mode: { type: 'string', enum: [...MODES] },
          context: { type: 'integer', description: 'Lines around each match' },
          ignore_case: { type: 'boolean' },
          limit: { type: 'integer', description: `Default ${GREP_DEFAULT_LIMIT}` },
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
