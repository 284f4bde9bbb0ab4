// The agents a session may hand work to: the built-in ones, the user's own
// agent files (<data dir>/agents/*.md), and the project's
// (<folder>/.skein/agents/*.md). A project's agent files are repository
// content: like .mcp.json (trust/), each defines nothing until the user
// trusts that exact content (its sha256 in trust.json, under the name
// `.skein/agents/NAME.md`); a changed file is untrusted again. Later sources
// win by name: project over user over built-in.
import fs from 'node:fs';
import path from 'node:path';
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
  for (const file of markdownFiles(path.join(folder, PROJECT_AGENTS_DIR))) {
    const read = readGated(file);
    if (!read) continue;
    if (read.error) {
      skipped.push({ path: file, why: read.error });
      continue;
    }
    const name = projectFileName(file);
    const status = trustOf(store, folder, name, read.content);
    if (status !== 'trusted') {
      skipped.push({ path: file, why: `${status}: a project's agent file defines nothing until you trust this content (its sha256, under "${name}" in the data folder's trust.json)` });
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
