// The files of a working folder that would make skein run something, read as
// the user would be asked about them: content, sha256, what each server
// would run (as written: a project file is never `${VAR}`-expanded), the
// user's decision on that exact content, and a diff from the content last
// trusted. The audit found one such file: .mcp.json (AGENTS.md / CLAUDE.md are
// only text for the model; git's own files are handled where skein runs git).
import path from 'node:path';
import type { ProjectFileTrust, ProjectServerPreview } from '../../shared/protocol.js';
import { McpConfigError, parseMcpConfig, type McpServerConfig } from '../mcp/config.js';
import { Door, DoorError } from '../host/door.js';
import { unifiedDiff } from '../tools/diff.js';
import { folderKey, sha256, type FileDecision } from './store.js';

/** Project files that start programs or connect anywhere: each needs the user's trust, pinned to its content. */
export const GATED_FILES = ['.mcp.json'] as const;
export type GatedFile = (typeof GATED_FILES)[number];

/** A larger .mcp.json is refused (and never parsed). */
const MAX_BYTES = 256 * 1024;

export interface InspectedFile extends ProjectFileTrust {
  /** The servers parsed from exactly `content` (undefined when it does not parse). */
  parsed?: Map<string, McpServerConfig>;
}

/** The folder's .mcp.json as the user is asked about it, given the decision stored for it; undefined when there is none. */
export function inspectProjectFile(folder: string, decided: FileDecision | undefined, userServers: ReadonlySet<string> = new Set(), file: GatedFile = '.mcp.json'): InspectedFile | undefined {
  const key = folderKey(folder);
  const at = path.join(key, file);
  const read = readGated(at);
  if (read === undefined) return undefined;
  const { content, error: readError } = read;
  const hash = sha256(content);
  const status: ProjectFileTrust['status'] = !decided ? 'untrusted' : decided.sha256 !== hash ? 'changed' : decided.decision;
  let parsed: Map<string, McpServerConfig> | undefined;
  let error = readError;
  if (!error) {
    try {
      parsed = parseMcpConfig(content, null);
    } catch (err) {
      error = err instanceof McpConfigError ? err.message : String(err);
    }
  }
  const trusted = decided?.trusted;
  return {
    folder: key,
    file,
    path: at,
    sha256: hash,
    status,
    content,
    servers: parsed ? [...parsed].map(([name, config]) => preview(name, config, userServers.has(name))) : [],
    ...(error !== undefined && { error }),
    ...(trusted && trusted.sha256 !== hash && { diff: unifiedDiff(file, trusted.content, content) }),
    ...(parsed && { parsed }),
  };
}

/** What the user sees and decides on: the inspected file without its parsed servers. */
export function shown(file: InspectedFile): ProjectFileTrust {
  const { parsed: _parsed, ...rest } = file;
  return rest;
}

function preview(name: string, config: McpServerConfig, shadowed: boolean): ProjectServerPreview {
  const common = { name, transport: config.type, ...(shadowed && { shadowed }) };
  if (config.type === 'http') return { ...common, url: config.url, headerNames: Object.keys(config.headers) };
  return { ...common, command: config.command, args: config.args, env: config.env };
}

/** The file's text; a symlink or anything but a regular file is shown as an error, never followed. */
export function readGated(file: string): { content: string; error?: string } | undefined {
  // Through the door (host/door.ts): a symlink swapped in after a check is not read either.
  const linked = `${file} is a symbolic link: skein does not follow it (put the file itself there to be asked about it)`;
  try {
    const door = new Door(path.dirname(file));
    const name = path.basename(file);
    const entry = door.entry(name);
    if (entry.kind === 'missing') return undefined;
    if (entry.kind === 'link') return { content: '', error: linked };
    if (entry.kind !== 'file') return { content: '', error: `${file} is not a regular file` };
    if (entry.size > MAX_BYTES) return { content: '', error: `${file} is ${entry.size} bytes (more than ${MAX_BYTES}): not read` };
    const bytes = door.readFile(name, MAX_BYTES + 1);
    if (bytes === undefined) return undefined;
    if (bytes.length > MAX_BYTES) return { content: '', error: `${file} is more than ${MAX_BYTES} bytes: not read` };
    return { content: bytes.toString('utf8') };
  } catch (err) {
    if (err instanceof DoorError) return { content: '', error: err.reason === 'link' ? linked : `${file}: ${err.message}` };
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return { content: '', error: `cannot read ${file}: ${code ?? String(err)}` };
  }
}
