// read_file, write_file and edit_file (exact-string replace), confined to the
// working folder. Only regular files: a FIFO or device would block a thread
// of the server forever, a directory is not text.
import fsSync, { constants, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { DIFF_MAX_INPUT_CHARS, tooLargeToDiff, unifiedDiff } from './diff.js';
import { Door, DoorError } from '../host/door.js';
import { resolveInside } from './paths.js';
import { isProtectedProjectPath, PROTECTED_PROJECT_PATHS } from './sandbox/protected-paths.js';
import { stringField, ToolInputError, type Tool, type ToolContext } from './tool.js';

/** read_file reads this much at a time, checking for a cancel in between. */
const CHUNK_BYTES = 64 * 1024;
/** read_file scans at most this far into a file (an offset deep into a huge log is bash's job). */
export const MAX_SCAN_BYTES = 64 * 1024 * 1024;
/** edit_file holds the whole file in memory: larger ones are for bash (sed). */
export const MAX_EDIT_BYTES = 32 * 1024 * 1024;

/** O_NONBLOCK: opening a FIFO does not wait for a writer; O_NOFOLLOW: a link swapped in after resolving is refused. */
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_NONBLOCK | constants.O_NOFOLLOW;

/** A path the tool may use: its folder and the real path inside it (links inside the folder resolved, none leaving it). */
interface Resolved {
  root: string;
  file: string;
}

/** read_file may also read the session's saved full outputs (named in capped results). */
function resolveReadable(ctx: ToolContext, requested: string): Resolved {
  for (const root of ctx.readRoots ?? []) {
    if (path.isAbsolute(requested) && (requested === root || requested.startsWith(root + path.sep))) return { root, file: resolveInside(root, requested) };
  }
  return { root: ctx.workDir, file: resolveInside(ctx.workDir, requested) };
}

/**
 * Opens the resolved path through the door (host/door.ts): a folder or file
 * swapped for a link since it was resolved is refused, never followed.
 */
async function openThroughDoor({ root, file }: Resolved, flags: number): Promise<FileHandle> {
  const door = new Door(root);
  try {
    return await door.open(path.relative(door.root, file), flags);
  } catch (err) {
    if (err instanceof DoorError) throw new ToolInputError(err.message);
    throw err;
  }
}

function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** Opens a regular file; anything else is refused with what it is. */
async function openRegular(at: Resolved, requested: string, flags: number): Promise<{ handle: FileHandle; stat: Stats }> {
  let handle: FileHandle;
  try {
    handle = await openThroughDoor(at, flags);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // A directory cannot be opened for writing; a FIFO without a reader refuses a non-blocking writer.
    if (code === 'EISDIR') throw new ToolInputError(`${requested} is a directory, not a regular file`);
    if (code === 'ENXIO') throw new ToolInputError(`${requested} is a FIFO or socket, not a regular file`);
    throw err;
  }
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close();
    throw new ToolInputError(`${requested} is ${kindOf(stat)}, not a regular file`);
  }
  return { handle, stat };
}

const pathProp = { path: { type: 'string', description: 'File path, relative to the working folder' } };

export const readFileTool: Tool = {
  readOnly: true,
  spec: {
    name: 'read_file',
    description:
      'Read a text file in the working folder. Optional 1-based `offset` line and `limit` lines. A long read stops at the output limit and says which offset to continue from.',
    inputSchema: {
      type: 'object',
      properties: { ...pathProp, offset: { type: 'integer' }, limit: { type: 'integer' } },
      required: ['path'],
    },
  },
  async run(input, ctx) {
    const requested = stringField(input, 'path');
    const at = resolveReadable(ctx, requested);
    const offset = typeof input.offset === 'number' ? Math.max(1, Math.floor(input.offset)) : 1;
    const limit = typeof input.limit === 'number' ? Math.max(1, Math.floor(input.limit)) : undefined;
    const { handle } = await openRegular(at, requested, READ_FLAGS);
    try {
      return { output: await readLines(handle, offset, limit, ctx), isError: false };
    } finally {
      await handle.close();
    }
  },
};

/**
 * Lines offset..offset+limit-1 joined by '\n', read a chunk at a time: it
 * stops at the limit, at ctx.outputLimit characters, or MAX_SCAN_BYTES.
 */
async function readLines(handle: FileHandle, offset: number, limit: number | undefined, ctx: ToolContext): Promise<string> {
  const end = limit === undefined ? Infinity : offset + limit;
  const decoder = new StringDecoder('utf8');
  const buffer = Buffer.alloc(CHUNK_BYTES);
  let line = 1;
  let out = '';
  let position = 0;
  // Appends within the budget; false once the output is full.
  const append = (text: string): boolean => {
    if (out.length + text.length <= ctx.outputLimit) {
      out += text;
      return true;
    }
    out += text.slice(0, ctx.outputLimit - out.length);
    out += `\n\n[read_file stopped in line ${line}: the output is capped at ${ctx.outputLimit} characters. Continue with offset=${line + 1} (line ${line} is cut), or use bash (sed, cut) for long lines.]`;
    return false;
  };
  // Feeds decoded text; false when done.
  const feed = (text: string): boolean => {
    const parts = text.split('\n');
    for (let i = 0; i < parts.length; i++) {
      if (i > 0) {
        line++;
        if (line >= end) return false;
        if (line > offset && !append('\n')) return false;
      }
      if (line >= offset && !append(parts[i]!)) return false;
    }
    return true;
  };
  for (;;) {
    if (ctx.signal.aborted) throw new ToolInputError('cancelled');
    if (position >= MAX_SCAN_BYTES) {
      return `${out}\n\n[read_file stopped after reading ${MAX_SCAN_BYTES / 1024 / 1024} MiB of the file, in line ${line}. Use bash (grep, tail, sed -n) to reach further.]`;
    }
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) {
      feed(decoder.end());
      return out;
    }
    position += bytesRead;
    if (!feed(decoder.write(buffer.subarray(0, bytesRead)))) return out;
  }
}

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
    const at = { root: ctx.workDir, file: resolveInside(ctx.workDir, requested) };
    refuseSandboxProtected(ctx, at.file, requested);
    makeFolders(at);
    const before = await previousText(at);
    await writeRegular(at, requested, content);
    const diff = before === null ? tooLargeToDiff() : unifiedDiff(requested, before, content);
    return { output: `wrote ${Buffer.byteLength(content)} bytes to ${requested}\n${diff}`, isError: false };
  },
};

/** The file's text before a write, for the diff (undefined: new, or not a regular file, which the write then refuses; null: too large to diff). */
async function previousText(at: Resolved): Promise<string | undefined | null> {
  let handle: FileHandle;
  try {
    handle = await openThroughDoor(at, READ_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return undefined;
    if (stat.size > DIFF_MAX_INPUT_CHARS) return null;
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Under the sandbox, the files it mounts read-only (what writes them decides
 * what runs later: git's config and hooks, .mcp.json, the instructions) are
 * refused to the file tools too, which run in skein itself, outside bwrap.
 * A `.git` at any depth counts (a nested repository's hooks run as well).
 */
function refuseSandboxProtected(ctx: ToolContext, file: string, requested: string): void {
  if (!ctx.sandbox) return;
  const root = fsSync.realpathSync(ctx.workDir);
  const nested = path.relative(root, file).split(path.sep).some((part) => part.toLowerCase() === '.git');
  if (nested || isProtectedProjectPath(root, file)) {
    throw new ToolInputError(`${requested} is read-only under SKEIN_SANDBOX=workspace (${PROTECTED_PROJECT_PATHS.join(', ')} and any .git decide what runs later); the user can change it outside skein`);
  }
}

/** The file's folders, made one at a time through the door. */
function makeFolders({ root, file }: Resolved): void {
  const door = new Door(root);
  try {
    door.makeFolders(path.relative(door.root, path.dirname(file)));
  } catch (err) {
    if (err instanceof DoorError) throw new ToolInputError(err.message);
    throw err;
  }
}

/** Truncates only after checking it is a regular file. */
async function writeRegular(at: Resolved, requested: string, content: string): Promise<void> {
  const { handle, stat } = await openRegular(at, requested, WRITE_FLAGS);
  if (stat.nlink > 1) {
    // A hard link: the same file has another name, perhaps outside the folder (~/.bashrc, a package store).
    // It is replaced by a file of its own, as an editor's safe save does; the other name keeps its content.
    await handle.close();
    const door = new Door(at.root);
    door.writeFile(path.relative(door.root, at.file), content, stat.mode & 0o7777);
    return;
  }
  try {
    await handle.truncate(0);
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
}

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
    const at = { root: ctx.workDir, file: resolveInside(ctx.workDir, requested) };
    refuseSandboxProtected(ctx, at.file, requested);
    const { handle, stat } = await openRegular(at, requested, READ_FLAGS);
    let text: string;
    try {
      if (stat.size > MAX_EDIT_BYTES) throw new ToolInputError(`${requested} is ${stat.size} bytes; edit_file handles up to ${MAX_EDIT_BYTES} (use bash for larger files)`);
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
    const count = text.split(oldText).length - 1;
    if (count === 0) return { output: `"old" was not found in ${requested}; nothing changed`, isError: true };
    if (count > 1 && input.replace_all !== true) {
      return { output: `"old" occurs ${count} times in ${requested}; make it unique or set replace_all`, isError: true };
    }
    const after = text.split(oldText).join(newText);
    await writeRegular(at, requested, after);
    return { output: `replaced ${count} occurrence${count === 1 ? '' : 's'} in ${requested}\n${unifiedDiff(requested, text, after)}`, isError: false };
  },
};
