// Confines file tools to the working folder, resolving symlinks so that a link
// pointing outside cannot be used to escape.
import fs from 'node:fs';
import path from 'node:path';
import { ToolInputError } from './tool.js';

export function resolveInside(workDir: string, requested: string): string {
  if (requested.includes('\0')) throw new ToolInputError('path contains a NUL byte');
  const root = fs.realpathSync(workDir);
  const absolute = path.resolve(root, requested);
  // The file may not exist yet (write_file): resolve its nearest existing ancestor.
  let existing = absolute;
  const rest: string[] = [];
  while (!fs.existsSync(existing)) {
    rest.unshift(path.basename(existing));
    const parent = path.dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  const real = path.join(fs.realpathSync(existing), ...rest);
  if (real !== root && !real.startsWith(root + path.sep)) {
    throw new ToolInputError(`${requested} is outside the working folder`);
  }
  return real;
}
