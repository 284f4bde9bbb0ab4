// Every file of a working folder the user decides on, as one list: its
// .mcp.json (project-files.ts) and its agent files `.skein/agents/NAME.md`
// (subagents/agent-files.ts). An agent file is shown as the agent it would
// define (name, tools, model, mode, instructions), with the diff from the
// content last trusted; it goes through the same store, UI prompt,
// POST /api/trust and `skein trust` as .mcp.json.
import type { ProjectAgentPreview } from '../../shared/protocol.js';
import { AgentFileError, parseAgentFile } from '../subagents/agent-defs.js';
import { projectFileName, readProjectAgentFiles } from '../subagents/agent-files.js';
import { unifiedDiff } from '../tools/diff.js';
import { inspectProjectFile, type InspectedFile } from './project-files.js';
import { folderKey, sha256, type FileDecision } from './store.js';

/** The name an agent file is decided on: `.skein/agents/NAME.md`. */
const AGENT_FILE = /^\.skein\/agents\/[^/\\]+\.md$/;

export function isAgentFileName(name: string): boolean {
  return AGENT_FILE.test(name);
}

/** A name POST /api/trust and `skein trust` accept. */
export function isGatedName(name: string): boolean {
  return name === '.mcp.json' || isAgentFileName(name);
}

/** The folder's gated files as the user is asked about them: .mcp.json first, then the agent files by name. */
export function inspectGatedFiles(folder: string, decisionOf: (name: string) => FileDecision | undefined, userServers: ReadonlySet<string> = new Set()): InspectedFile[] {
  const mcp = inspectProjectFile(folder, decisionOf('.mcp.json'), userServers);
  return [...(mcp ? [mcp] : []), ...inspectAgentFiles(folder, decisionOf)];
}

/** One gated file by its name; undefined when it does not exist (or the name is not a gated one). */
export function inspectGatedFile(folder: string, name: string, decided: FileDecision | undefined, userServers: ReadonlySet<string> = new Set()): InspectedFile | undefined {
  if (name === '.mcp.json') return inspectProjectFile(folder, decided, userServers);
  if (!isAgentFileName(name)) return undefined;
  return inspectAgentFiles(folder, () => decided).find((f) => f.file === name);
}

/** True when the file can be trusted as it is (it was read and it parses). */
export function trustable(file: InspectedFile): boolean {
  return file.error === undefined && (file.parsed !== undefined || file.agent !== undefined);
}

function inspectAgentFiles(folder: string, decisionOf: (name: string) => FileDecision | undefined): InspectedFile[] {
  const key = folderKey(folder);
  return readProjectAgentFiles(key).map(({ file: at, read }) => {
    const name = projectFileName(at);
    const decided = decisionOf(name);
    const hash = sha256(read.content);
    let agent: ProjectAgentPreview | undefined;
    let error = read.error;
    if (error === undefined) {
      try {
        const { source: _source, ...def } = parseAgentFile(read.content, at, name.slice(name.lastIndexOf('/') + 1, -'.md'.length));
        agent = def;
      } catch (err) {
        if (!(err instanceof AgentFileError)) throw err;
        error = err.message;
      }
    }
    const trusted = decided?.trusted;
    return {
      folder: key,
      file: name,
      path: at,
      sha256: hash,
      status: !decided ? 'untrusted' : decided.sha256 !== hash ? 'changed' : decided.decision,
      content: read.content,
      servers: [],
      ...(agent && { agent }),
      ...(error !== undefined && { error }),
      ...(trusted && trusted.sha256 !== hash && { diff: unifiedDiff(name, trusted.content, read.content) }),
    } satisfies InspectedFile;
  });
}
