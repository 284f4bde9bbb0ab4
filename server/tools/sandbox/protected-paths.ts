// Files in a working folder that skein (or git, for the user, later) trusts:
// whatever writes them decides what runs next time. The sandbox mounts each
// read-only, an absent one too (see placeholders.ts); other tools that write
// files for the agent (write_file, edit_file) can refuse them with the same list.
import path from 'node:path';

/**
 * Relative to the working folder (posix separators). `.git` is the whole
 * folder (or a worktree's `.git` file); the instruction files are those
 * server/agent/project-instructions.ts reads; `.mcp.json` is the project's
 * MCP configuration (server/mcp/config.ts).
 */
export const PROTECTED_PROJECT_PATHS = ['.git', '.mcp.json', 'AGENTS.md', 'CLAUDE.md'] as const;

/** True when `target` (absolute) is one of the protected paths of `workDir`, or inside one. */
export function isProtectedProjectPath(workDir: string, target: string): boolean {
  const rel = path.relative(path.resolve(workDir), path.resolve(target)).split(path.sep).join('/');
  // The folder itself ('') and anything outside it ('../…', another drive's absolute path) match no protected name.
  return PROTECTED_PROJECT_PATHS.some((p) => rel === p || rel.startsWith(`${p}/`));
}
