// The files one session changed in a folder it shares with other sessions:
// the targets of its write_file and edit_file calls, and what its bash and
// MCP calls changed (recorded after each, checkpoints.ts `afterCall`). Paths
// relative to the repository's top, as `git diff` names them.
import fs from 'node:fs';
import path from 'node:path';
import type { SkeinEvent } from '../../shared/protocol.js';
import { isFileTool } from './plain-checkpoints.js';

export function sessionPaths(events: readonly SkeinEvent[], workDir: string, repoTop: string, touched: readonly string[]): Set<string> {
  const files = new Set(touched);
  // git names paths under the real top folder: a link in the way to the session's folder must not hide its files.
  const real = (dir: string) => {
    try {
      return fs.realpathSync(dir);
    } catch {
      return path.resolve(dir);
    }
  };
  const top = real(repoTop);
  const base = real(workDir);
  for (const e of events) {
    if (e.kind !== 'tool_call' || !isFileTool(e.name) || typeof e.input.path !== 'string') continue;
    const rel = path.relative(top, path.resolve(base, e.input.path));
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) files.add(rel.split(path.sep).join('/'));
  }
  return files;
}
