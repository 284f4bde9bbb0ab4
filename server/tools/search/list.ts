// list: a folder as an indented tree with file sizes, to a depth. `.git` and
// `node_modules` are left out unless asked for (they are rarely what the
// model wants and can be huge); symbolic links are shown with their target
// and never followed.
import fs from 'node:fs/promises';
import { ToolInputError, type Tool } from '../tool.js';
import { clampLimit } from './glob.js';
import { searchRoot, Walker, type WalkEntry } from './walk.js';

export const LIST_DEFAULT_DEPTH = 2;
export const LIST_MAX_DEPTH = 10;
export const LIST_DEFAULT_LIMIT = 500;
export const LIST_MAX_LIMIT = 5000;
const SKIPPED = new Set(['node_modules']);

export const listTool: Tool = {
  readOnly: true,
  spec: {
    name: 'list',
    description:
      'List a folder as a tree with file sizes (.git and node_modules left out unless `all`).',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string' },
        depth: { type: 'integer', description: `Default ${LIST_DEFAULT_DEPTH}` },
        limit: { type: 'integer', description: `Default ${LIST_DEFAULT_LIMIT}` },
        all: { type: 'boolean' },
      },
    },
  },
  async run(input, ctx) {
    const from = await searchRoot(ctx, input.path);
    if (!from.stat.isDirectory()) throw new ToolInputError(`${from.rel || '.'} is not a folder (read_file reads a file)`);
    const depth = typeof input.depth === 'number' && Number.isFinite(input.depth) ? Math.max(0, Math.min(LIST_MAX_DEPTH, Math.floor(input.depth))) : LIST_DEFAULT_DEPTH;
    const limit = clampLimit(input.limit, LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT);
    const walker = new Walker(from, { gitignore: false, skip: input.all === true ? undefined : SKIPPED, maxDepth: depth }, ctx.signal);
    const rows: string[] = [`${from.rel || '.'}/`];
    let total = 0;
    for await (const entry of walker.entries()) {
      total++;
      if (rows.length > limit) continue;
      rows.push(`${'  '.repeat(entry.depth + 1)}${await describe(entry)}`);
    }
    if (total === 0) rows.push('  (empty)');
    if (total > limit) rows.push(`[${total - limit} more entries not shown; list a subfolder, lower depth or raise limit]`);
    if (walker.truncated) rows.push('[the listing stopped early: the folder has too many entries]');
    return { output: rows.join('\n'), isError: false };
  },
};

async function describe(entry: WalkEntry): Promise<string> {
  const name = entry.rel.slice(entry.rel.lastIndexOf('/') + 1);
  if (entry.kind === 'dir') return `${name}/`;
  if (entry.kind === 'link') {
    const target = await fs.readlink(entry.abs).catch(() => '?');
    return `${name} -> ${target}`;
  }
  const stat = await fs.lstat(entry.abs).catch(() => undefined);
  if (entry.kind === 'other') return `${name} (${stat?.isFIFO() ? 'FIFO' : stat?.isSocket() ? 'socket' : 'special file'})`;
  return `${name}  ${stat ? humanSize(stat.size) : '?'}`;
}

export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
