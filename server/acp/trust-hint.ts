// A project `.mcp.json` that is not trusted runs nothing (docs/mcp-and-trust.md);
// the web UI asks about it above the timeline, but an editor would never know
// why the project's MCP tools are missing. So a session opened from an editor
// is told once, as the agent's message: which file, which servers did not
// start, and how to trust it (`skein trust`, or the web UI). Nothing from the
// file runs, and its text (the repository's) is only quoted.
import fs from 'node:fs';
import path from 'node:path';
import type { ProjectFileTrust } from '../../shared/protocol.js';
import type { Api } from '../cli/api.js';

/** The project files not trusted (never decided, or changed since) that concern a session working in `workDir`. */
export async function untrustedFilesFor(api: Api, workDir: string | undefined): Promise<ProjectFileTrust[]> {
  if (!workDir) return [];
  const { files } = await api.request<{ files: ProjectFileTrust[] }>('GET', '/api/trust');
  const here = realPath(workDir);
  return files.filter((f) => (f.status === 'untrusted' || f.status === 'changed') && inside(here, realPath(f.folder)));
}

/** The message the editor shows; `webUi`: the running server's address, when there is one to open. */
export function trustHint(files: readonly ProjectFileTrust[], webUi: string | undefined): string {
  const where = webUi ? `in skein's web UI (${webUi})` : `in skein's web UI (\`skein serve\`)`;
  return files
    .map((file) => {
      const why = file.status === 'changed' ? 'changed since you trusted it, so it is not trusted' : 'not trusted';
      const servers = file.servers.map((s) => `\`${quoted(s.name)}\``);
      const skipped = file.agent ? `its agent \`${quoted(file.agent.name)}\` is not defined` : servers.length ? `its MCP server${servers.length > 1 ? 's' : ''} ${servers.join(', ')} did not start` : 'nothing in it runs';
      const broken = file.error ? ` It cannot be trusted as it is: ${quoted(file.error)}.` : '';
      return (
        `\n\n· This project's \`${quoted(file.path)}\` is ${why}: ${skipped}.${broken} Nothing from it runs until you trust this content: ` +
        `run \`skein trust ${shellArg(file.folder)}\` in a terminal (it shows what would run and asks), or choose Trust above the timeline ${where}.\n\n`
      );
    })
    .join('');
}

/** The file's text shown inline: no backtick or line break from the repository can break out of the quote. */
function quoted(text: string): string {
  const flat = text.replace(/[`\r\n\u0000-\u001f\u007f]+/g, ' ');
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}

function shellArg(folder: string): string {
  return /^[\w./-]+$/.test(folder) ? folder : `'${quoted(folder).replace(/'/g, `'\\''`)}'`;
}

function realPath(folder: string): string {
  try {
    return fs.realpathSync(folder);
  } catch {
    return path.resolve(folder);
  }
}

function inside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
