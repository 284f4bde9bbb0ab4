// The agents a session may hand work to: the built-in ones, the user's own
// agent files (<data dir>/agents/*.md), and the project's
// (<folder>/.skein/agents/*.md). A project's agent files are repository
// content: like .mcp.json (trust/), each defines nothing until the user
// trusts that exact content (its sha256 in trust.json, under the name
// `.skein/agents/NAME.md`); a changed file is untrusted again. Later sources
// win by name: project over user over built-in.
import fs from 'node:fs';
import path from 'node:path';
import { Door, DoorError } from '../host/door.js';
import { readGated } from '../trust/project-files.js';
import { sha256, TrustStore, TrustStoreError } from '../trust/store.js';
import { AgentFileError, BUILT_IN_AGENTS, parseAgentFile, type AgentDef } from './agent-defs.js';

export const PROJECT_AGENTS_DIR = path.join('.skein', 'agents');
export const USER_AGENTS_DIR = 'agents';

/** An agent file that defines nothing, and why (shown in the `task` tool's description is only the defined ones). */
export interface SkippedAgentFile {
  path: string;
  why: string;
}

export interface AgentCatalog {
  agents: Map<string, AgentDef>;
  skipped: SkippedAgentFile[];
}

/** At most this many files are read from each folder. */
const MAX_FILES = 50;

export function loadAgents(dataDir: string, folder: string): AgentCatalog {
  const agents = new Map<string, AgentDef>(BUILT_IN_AGENTS.map((a) => [a.name, a]));
  const skipped: SkippedAgentFile[] = [];
  for (const file of markdownFiles(path.join(dataDir, USER_AGENTS_DIR))) {
    const read = readGated(file);
    if (!read) continue;
    if (read.error) skipped.push({ path: file, why: read.error });
    else define(agents, skipped, read.content, file);
  }
  const store = new TrustStore(dataDir);
  for (const { file, read } of readProjectAgentFiles(folder)) {
    if (read.error) {
      skipped.push({ path: file, why: read.error });
      continue;
    }
    const name = projectFileName(file);
    const status = trustOf(store, folder, name, read.content);
    if (status !== 'trusted') {
      skipped.push({ path: file, why: `${status}: a project's agent file defines nothing until you trust this content (in the web UI, with \`skein trust\`, or POST /api/trust {"file": "${name}"})` });
      continue;
    }
    define(agents, skipped, read.content, file);
  }
  return { agents, skipped };
}

/** The name a project agent file is decided on in trust.json (relative to its folder, with `/`). */
export function projectFileName(file: string): string {
  return `${PROJECT_AGENTS_DIR.split(path.sep).join('/')}/${path.basename(file)}`;
}

function trustOf(store: TrustStore, folder: string, name: string, content: string): 'trusted' | 'untrusted' | 'changed since trusted' | 'ignored' {
  let decided;
  try {
    decided = store.get(folder, name);
  } catch (err) {
    if (!(err instanceof TrustStoreError)) throw err;
    return 'untrusted';
  }
  if (!decided) return 'untrusted';
  if (decided.sha256 !== sha256(content)) return 'changed since trusted';
  return decided.decision;
}

function define(agents: Map<string, AgentDef>, skipped: SkippedAgentFile[], content: string, file: string): void {
  try {
    const def = parseAgentFile(content, file, path.basename(file, '.md'));
    agents.set(def.name, def);
  } catch (err) {
    if (!(err instanceof AgentFileError)) throw err;
    skipped.push({ path: file, why: err.message });
  }
}

function markdownFiles(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((name) => name.endsWith('.md'))
      .sort()
      .slice(0, MAX_FILES)
      .map((name) => path.join(dir, name));
  } catch {
    return [];
  }
}

/** Above this, a project's agent file is not read. */
const MAX_PROJECT_FILE_BYTES = 256 * 1024;

/**
 * A project's agent files, through the door (host/door.ts): a `.skein` or
 * `agents` that is a symbolic link is not followed (a cloned repository could
 * point it at ~/.ssh), nor is a file that is one.
 */
export function readProjectAgentFiles(folder: string): { file: string; read: { content: string; error?: string } }[] {
  const dir = path.join(folder, PROJECT_AGENTS_DIR);
  const linked = (what: string) => `${what} is a symbolic link (or has one on the way): skein does not follow it`;
  let door: Door;
  try {
    door = new Door(folder);
    const entry = door.entry(PROJECT_AGENTS_DIR);
    if (entry.kind === 'link') return [{ file: dir, read: { content: '', error: linked(dir) } }];
    if (entry.kind !== 'dir') return [];
  } catch (err) {
    if (err instanceof DoorError) return [{ file: dir, read: { content: '', error: linked(dir) } }];
    return [];
  }
  return markdownFiles(path.join(door.root, PROJECT_AGENTS_DIR)).map((file) => {
    const rel = path.join(PROJECT_AGENTS_DIR, path.basename(file));
    try {
      const entry = door.entry(rel);
      if (entry.kind === 'link') return { file, read: { content: '', error: linked(file) } };
      if (entry.kind !== 'file') return { file, read: { content: '', error: `${file} is not a regular file` } };
      if (entry.size > MAX_PROJECT_FILE_BYTES) return { file, read: { content: '', error: `${file} is ${entry.size} bytes (more than ${MAX_PROJECT_FILE_BYTES}): not read` } };
      return { file, read: { content: door.readFile(rel, MAX_PROJECT_FILE_BYTES)?.toString('utf8') ?? '' } };
    } catch (err) {
      return { file, read: { content: '', error: err instanceof DoorError ? linked(file) : `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}` } };
    }
  });
}
