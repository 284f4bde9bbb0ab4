// glob: files whose path matches a pattern, newest first (the files the
// model is working on come first), capped with a notice saying how many more.
import fs from 'node:fs/promises';
import { stringField, type Tool } from '../tool.js';
import { globMatcher } from './glob-pattern.js';
import { searchRoot, Walker } from './walk.js';

export const GLOB_DEFAULT_LIMIT = 200;
export const GLOB_MAX_LIMIT = 2000;

export const globTool: Tool = {
  readOnly: true,
  spec: {
    name: 'glob',
    description:
      'Find files by glob pattern, newest first, .gitignore honoured. `**` spans folders; a pattern without a slash matches file names anywhere (`*.ts`).',
    inputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string' },
        path: { type: 'string', description: 'Folder to search (default: all)' },
        limit: { type: 'integer', description: `Default ${GLOB_DEFAULT_LIMIT}` },
      },
      required: ['pattern'],
    },
  },
  async run(input, ctx) {
    const matcher = globMatcher(stringField(input, 'pattern'));
    const limit = clampLimit(input.limit, GLOB_DEFAULT_LIMIT, GLOB_MAX_LIMIT);
    const from = await searchRoot(ctx, input.path);
    const walker = new Walker(from, { gitignore: true }, ctx.signal);
    const found: { rel: string; mtime: number }[] = [];
    const prefix = from.rel ? `${from.rel}/` : '';
    for await (const entry of walker.entries()) {
      if (entry.kind !== 'file') continue;
      // Patterns are read relative to the folder searched; results are shown relative to the working folder.
      const relToStart = entry.rel.startsWith(prefix) ? entry.rel.slice(prefix.length) : entry.rel;
      if (!matcher.matches(relToStart)) continue;
      // lstat: the entry's own time, not that of whatever a link swapped in since the walk points at.
      const stat = await fs.lstat(entry.abs).catch(() => undefined);
      if (stat) found.push({ rel: entry.rel, mtime: stat.mtimeMs });
    }
    if (!found.length) {
      const where = from.rel || 'the working folder';
      return { output: `no files match ${matcher.pattern} in ${where}${walker.truncated ? ' (the search stopped early: too many files)' : ''}`, isError: false };
    }
    // Newest first; the same time falls back to the path, so the order is stable.
    found.sort((a, b) => b.mtime - a.mtime || (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
    const shown = found.slice(0, limit).map((f) => f.rel);
    const notes: string[] = [];
    if (found.length > limit) notes.push(`[${found.length - limit} more files not shown (${found.length} match); narrow the pattern or path, or raise limit]`);
    if (walker.truncated) notes.push('[the search stopped early: the folder has too many files; search a subfolder]');
    return { output: [...shown, ...notes].join('\n'), isError: false };
  },
};

export function clampLimit(value: unknown, fallback: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.max(1, Math.min(max, Math.floor(value)));
}
