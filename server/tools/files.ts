// read_file, write_file and edit_file (exact-string replace), confined to the working folder.
import fs from 'node:fs/promises';
import path from 'node:path';
import { resolveInside } from './paths.js';
import { capOutput, stringField, ToolInputError, type Tool, type ToolContext } from './tool.js';

/** read_file may also read the session's saved full outputs (named in capped results). */
function resolveReadable(ctx: ToolContext, requested: string): string {
  for (const root of ctx.readRoots ?? []) {
    if (path.isAbsolute(requested) && (requested === root || requested.startsWith(root + path.sep))) return resolveInside(root, requested);
  }
  return resolveInside(ctx.workDir, requested);
}

const pathProp = { path: { type: 'string', description: 'File path, relative to the working folder' } };

export const readFileTool: Tool = {
  spec: {
    name: 'read_file',
    description: 'Read a text file in the working folder. Optional 1-based `offset` line and `limit` lines.',
    inputSchema: {
      type: 'object',
      properties: { ...pathProp, offset: { type: 'integer' }, limit: { type: 'integer' } },
      required: ['path'],
    },
  },
  async run(input, ctx) {
    const file = resolveReadable(ctx, stringField(input, 'path'));
    const text = await fs.readFile(file, 'utf8');
    const offset = typeof input.offset === 'number' ? Math.max(1, Math.floor(input.offset)) : 1;
    const limit = typeof input.limit === 'number' ? Math.max(1, Math.floor(input.limit)) : undefined;
    const lines = text.split('\n');
    const slice = lines.slice(offset - 1, limit ? offset - 1 + limit : undefined).join('\n');
    return { output: capOutput(slice, ctx.outputLimit), isError: false };
  },
};

export const writeFileTool: Tool = {
  spec: {
    name: 'write_file',
    description: 'Create or overwrite a file in the working folder with `content`.',
    inputSchema: {
      type: 'object',
      properties: { ...pathProp, content: { type: 'string' } },
      required: ['path', 'content'],
    },
  },
  async run(input, ctx) {
    const requested = stringField(input, 'path');
    const content = stringField(input, 'content');
    const file = resolveInside(ctx.workDir, requested);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, content);
    return { output: `wrote ${Buffer.byteLength(content)} bytes to ${requested}`, isError: false };
  },
};

export const editFileTool: Tool = {
  spec: {
    name: 'edit_file',
    description:
      'Replace the exact string `old` with `new` in a file. `old` must occur exactly once unless `replace_all` is true.',
    inputSchema: {
      type: 'object',
      properties: { ...pathProp, old: { type: 'string' }, new: { type: 'string' }, replace_all: { type: 'boolean' } },
      required: ['path', 'old', 'new'],
    },
  },
  async run(input, ctx) {
    const requested = stringField(input, 'path');
    const oldText = stringField(input, 'old');
    const newText = stringField(input, 'new');
    if (oldText === '') throw new ToolInputError('"old" must not be empty');
    const file = resolveInside(ctx.workDir, requested);
    const text = await fs.readFile(file, 'utf8');
    const count = text.split(oldText).length - 1;
    if (count === 0) return { output: `"old" was not found in ${requested}; nothing changed`, isError: true };
    if (count > 1 && input.replace_all !== true) {
      return { output: `"old" occurs ${count} times in ${requested}; make it unique or set replace_all`, isError: true };
    }
    await fs.writeFile(file, text.split(oldText).join(newText));
    return { output: `replaced ${count} occurrence${count === 1 ? '' : 's'} in ${requested}`, isError: false };
  },
};
