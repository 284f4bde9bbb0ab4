// Confines file tools to a folder. The path is resolved the way the kernel
// would, one component at a time: a symlink (dangling ones too, whose target
// does not exist yet) is followed to its target, `..` after a link goes to the
// parent of the link's target, and a missing tail is kept as plain names. The
// result has no links left in it and must be inside the folder.
import fs from 'node:fs';
import path from 'node:path';
import { ToolInputError } from './tool.js';

/** Links followed in one path before giving up (the kernel's limit is 40). */
const MAX_LINKS = 40;

/** The real path of `requested` (relative to `root`, or absolute); throws ToolInputError when it leaves `root`. */
export function resolveInside(root: string, requested: string): string {
  if (requested.includes('\0')) throw new ToolInputError('path contains a NUL byte');
  let realRoot: string;
  try {
    realRoot = fs.realpathSync(root);
  } catch {
    throw new ToolInputError(`${requested}: the folder ${root} does not exist`);
  }
  const real = resolveReal(realRoot, requested);
  if (real !== realRoot && !real.startsWith(realRoot + path.sep)) {
    throw new ToolInputError(`${requested} is outside the working folder`);
  }
  return real;
}

function resolveReal(realRoot: string, requested: string): string {
  let current = path.isAbsolute(requested) ? path.parse(realRoot).root : realRoot;
  const queue = components(requested);
  let links = 0;
  while (queue.length) {
    const part = queue.shift()!;
    // Stryker disable next-line ConditionalExpression,StringLiteral,BlockStatement: path.join(current, '..') is the same parent, and no part of `current` is a link.
    if (part === '..') {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, part);
    // Every component is checked, also below a missing one: `missing/../link` reaches a real link.
    if (isLink(next)) {
      if (++links > MAX_LINKS) throw new ToolInputError(`${requested}: too many symbolic links`);
      const target = fs.readlinkSync(next);
      queue.unshift(...components(target));
      if (path.isAbsolute(target)) current = path.parse(current).root;
      continue;
    }
    current = next;
  }
  return current;
}

function isLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false; // does not exist (yet): a plain name
    throw err;
  }
}

/** Windows takes both slashes; elsewhere a backslash is part of a name (`a\b` is one file). */
// Stryker disable next-line Regex: Windows' separators, never read on Linux or macOS (where a test keeps a backslash in a name).
const SEPARATORS = path.sep === '\\' ? /[\\/]+/ : /\/+/;

function components(p: string): string[] {
  // Stryker disable next-line all: path.join drops '' and '.' parts too; the filter only saves an lstat each.
  return p.split(SEPARATORS).filter((c) => c !== '' && c !== '.');
}
