// The rule the code review can see: file access on a repository's or a
// model's behalf goes through server/host/door.ts. Every server module that
// imports node:fs is listed here with what it touches; a new one fails this
// test until it is listed (and a reviewer reads why). Modules that work on
// paths inside the working folder (they use resolveInside or the door) may
// ask only about names there (lstat, readdir, realpath, readlink); reading,
// writing, opening, copying or removing goes through the door.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** Modules that import node:fs, and what they touch: nothing of a working folder's contents but through the door. */
const RAW_FS_ALLOWED: Record<string, string> = {
  'server/host/door.ts': 'the door itself',
  'server/acp/trust-hint.ts': 'realpath of the folder a session opens in (which project holds it)',
  'server/projects/projects-file.ts': "the data folder's projects.json",
  'server/projects/projects.ts': 'realpath and stat of the folders the user adds as projects',
  'server/subagents/agent-files.ts': "readdir of the user's agent folder (data folder) and of a project's .skein/agents entered through the door; a project's files are read through the door",
  'server/workspace/session-paths.ts': "realpath of the session's folder and the repository's top",
  'server/workspace/worktree-actions.ts': "a patch and a copy of a worktree's index in a temporary folder of its own (the index read without following links); whether the worktree still exists",
  'server/agent/approval-preview.ts': 'fs constants only; the file is opened through the door',
  'server/agent/approval-rules.ts': 'realpath and stat of the working folder itself (is the file system case-insensitive?)',
  'server/agent/project-instructions.ts': 'realpath of the working folder and lstat of .git on the way up; the files are read through the door',
  'server/agent/system-prompts.ts': "skein's own prompt files in its package",
  'server/cli/connection.ts': "the data folder's token and server files",
  'server/cluster/cluster-roles.ts': "the data folder's cluster files",
  'server/compaction/large-message.ts': "large messages saved in the session's folder (data folder)",
  'server/compaction/result-cap.ts': "full tool outputs saved in the session's folder (data folder)",
  'server/compaction/summarizer.ts': "skein's own summary prompt in its package",
  'server/config-check.ts': 'settings files the user names',
  'server/config/parse.ts': 'settings files the user names',
  'server/config/settings.ts': "the user's settings and the data folder",
  'server/http/app.ts': "the built web UI in skein's package",
  'server/http/manage-routes.ts': "a session's log in the data folder (export)",
  'server/http/openapi-route.ts': "skein's own package.json",
  'server/http/token-file.ts': "the data folder's token",
  'server/images/image-files.ts': "images of user messages in the session's folder (data folder)",
  'server/http/image-route.ts': "the real path of an image a session's log names (data folder), so a link out of the session's folder is not served",
  'server/llm/limits/learned-file.ts': "what the data folder learned about model servers (learned-limits.json)",
  'server/llm/replay.ts': 'a recorded session the user names',
  'server/lock/data-dir-check.ts': 'the data folder',
  'server/lock/lock-system.ts': "the data folder (the lock's file calls, which data-dir-lock.ts and data-dir-check.ts are given)",
  'server/manage/fork.ts': 'session folders (data folder)',
  'server/manage/meta.ts': 'session folders (data folder)',
  'server/manage/trash.ts': 'session folders (data folder)',
  'server/mcp/config.ts': "the user's own MCP config file (SKEIN_MCP_CONFIG); a project's .mcp.json is read by trust/project-files.ts",
  'server/sessions/list-index.ts': 'the data folder',
  'server/sessions/log-scan-runner.ts': 'the data folder',
  'server/sessions/search-snippets.ts': 'the data folder (a session log read up to a search match, for its snippet)',
  'server/sessions/sessions.ts': 'the data folder',
  'server/sessions/start-scan.ts': 'the data folder',
  'server/sessions/trash.ts': 'the data folder',
  'server/store/event-log.ts': 'the data folder',
  'server/store/index-journal.ts': 'the data folder',
  'server/store/log-reader.ts': 'the data folder',
  'server/store/log-scan.ts': 'the data folder',
  'server/store/postgres/jsonl-transfer.ts': 'the data folder',
  'server/store/search-feed.ts': 'the data folder',
  'server/store/search-index.ts': 'the data folder',
  'server/store/session-index.ts': 'the data folder',
  'server/tools/files.ts': 'fs constants and realpath of the working folder; files are opened through the door',
  'server/tools/paths.ts': 'lstat and readlink, one component at a time (resolving a path never opens it)',
  'server/tools/processes.ts': '/proc of the processes skein started',
  'server/tools/sandbox/git-metadata.ts': "a worktree's git metadata (outside the working folder), checked to be git's before it is mounted",
  'server/tools/sandbox/mounts.ts': 'lstat and realpath of the folders bubblewrap mounts',
  'server/tools/sandbox/placeholders.ts': 'empty stand-ins for read-only mounts, made with O_EXCL and removed only while still the ones made',
  'server/tools/search-history.ts': "the session's own saved outputs (data folder)",
  'server/tools/search/glob.ts': "lstat of the walk's entries (their times)",
  'server/tools/search/grep-node.ts': 'fs constants only; files are opened through the door',
  'server/tools/search/grep-ripgrep.ts': 'finding the rg program on PATH',
  'server/tools/search/list.ts': "lstat and readlink of the walk's entries (a link is shown as a link)",
  'server/tools/search/walk.ts': 'readdir and lstat; .gitignore files are opened through the door',
  'server/trust/project-trust.ts': "watching the trust store (data folder)",
  'server/trust/store.ts': 'the trust store (data folder)',
  'server/workspace/checkpoints.ts': "the session's checkpoint journal and git's temporary index; the user's index is read through the door",
  'server/workspace/git.ts': 'finding git on PATH; lstat of .git in submodules',
  'server/workspace/plain-checkpoints.ts': "copies in the session's folder (data folder); the working folder through the door",
  'server/workspace/workspace.ts': 'stat and realpath of the folder a session is opened in; worktrees made in the data folder',
};

/** Calls that read, write, open, copy or remove a file's contents. */
const CONTENT_CALLS = /\bfs(?:Sync|p|Promises)?\.(?:promises\.)?(readFile|readFileSync|writeFile|writeFileSync|appendFile|appendFileSync|open|openSync|copyFile|copyFileSync|cp|cpSync|rm|rmSync|unlink|unlinkSync|rename|renameSync|symlink|symlinkSync|createReadStream|createWriteStream|truncate|truncateSync|mkdir|mkdirSync)\(/g;

/** Modules that work on paths inside a working folder: they resolve one, or hold the door. */
const WORKSPACE_MARK = /\bresolveInside\b|from '(?:\.\.\/)+host\/door\.js'|from '\.\.\/\.\.\/host\/door\.js'/;

/** Modules that read a repository's files by name (no resolveInside): held to the same rule. */
const READ_FOR_THE_REPOSITORY = ['server/agent/project-instructions.ts', 'server/trust/project-files.ts'];

/** Modules that may still make content calls beside the door, and on what (never a working-folder path). */
const CONTENT_BESIDE_DOOR: Record<string, string> = {
  'server/workspace/worktree-actions.ts': 'a patch and a copy of the index in its own temporary folder',
  'server/workspace/checkpoints.ts': "the journal in the session's folder and git's temporary index",
  'server/workspace/plain-checkpoints.ts': "copies in the session's folder",
};

function serverFiles(dir = 'server'): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.posix.join(dir, e.name);
    return e.isDirectory() ? serverFiles(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

const FS_IMPORT = /from 'node:fs(?:\/promises)?'|from 'fs(?:\/promises)?'|require\('(?:node:)?fs'\)/;

describe('one door to the host', () => {
  const files = serverFiles();

  it('every module that imports node:fs is listed with what it touches', () => {
    const importing = files.filter((f) => FS_IMPORT.test(fs.readFileSync(f, 'utf8')));
    const unlisted = importing.filter((f) => !(f in RAW_FS_ALLOWED));
    expect(unlisted, 'these modules use node:fs directly: go through server/host/door.ts for working-folder files, or list them in one-door.test.ts with what they touch').toEqual([]);
    // A listed module that no longer imports fs leaves the list (it stays honest).
    expect(Object.keys(RAW_FS_ALLOWED).filter((f) => !importing.includes(f))).toEqual([]);
  });

  it('modules working on paths inside the folder read and write contents only through the door', () => {
    const offenders: string[] = [];
    for (const file of files) {
      if (file === 'server/host/door.ts' || file in CONTENT_BESIDE_DOOR) continue;
      const text = fs.readFileSync(file, 'utf8');
      if (!WORKSPACE_MARK.test(text) && !READ_FOR_THE_REPOSITORY.includes(file)) continue;
      for (const m of text.matchAll(CONTENT_CALLS)) offenders.push(`${file}: ${m[0]}`);
    }
    expect(offenders).toEqual([]);
  });

  it('the rule itself finds a raw read (it would fail on the code before the door)', () => {
    const before = "import { resolveInside } from './paths.js';\nconst text = fs.readFileSync(resolveInside(root, p), 'utf8');";
    expect(WORKSPACE_MARK.test(before)).toBe(true);
    expect([...before.matchAll(CONTENT_CALLS)].map((m) => m[1])).toEqual(['readFileSync']);
    expect([...'await fs.promises.mkdir(x); fsSync.copyFileSync(a, b); fs.stat(x)'.matchAll(CONTENT_CALLS)].map((m) => m[1])).toEqual(['mkdir', 'copyFileSync']);
  });
});
