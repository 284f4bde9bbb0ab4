// A project file's servers as text (for `skein trust` and the server log):
// each command line or URL as written, with the environment it sets and the
// header names it sends.
import type { ProjectFileTrust, ProjectServerPreview } from '../../shared/protocol.js';

/** One argument as a shell would need it quoted (only to show it; nothing runs this text). */
function quoted(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function describeServer(s: ProjectServerPreview): string[] {
  const shadow = s.shadowed ? ' (not run: your SKEIN_MCP_CONFIG has a server of this name)' : '';
  if (s.transport === 'http') {
    const lines = [`${s.name}: connects to ${s.url}${shadow}`];
    if (s.headerNames?.length) lines.push(`    sends headers: ${s.headerNames.join(', ')}`);
    return lines;
  }
  const lines = [`${s.name}: runs ${[s.command ?? '', ...(s.args ?? [])].map(quoted).join(' ')}${shadow}`];
  for (const [name, value] of Object.entries(s.env ?? {})) lines.push(`    with ${name}=${quoted(value)}`);
  return lines;
}

const STATUS_WORDS: Record<ProjectFileTrust['status'], string> = {
  untrusted: 'not trusted (never decided)',
  changed: 'not trusted: it changed since you decided on it',
  trusted: 'trusted',
  ignored: 'ignored (its servers do not run; you are not asked again for this content)',
};

export function describeFile(file: ProjectFileTrust): string {
  const lines = [`${file.path}`, `  sha256 ${file.sha256}`, `  ${STATUS_WORDS[file.status]}`];
  if (file.error) lines.push(`  cannot be trusted as it is: ${file.error}`);
  if (file.servers.length) {
    lines.push('  It would start (as written: ${VAR} is never filled in from your environment in a project file):');
    for (const s of file.servers) lines.push(...describeServer(s).map((l) => `    ${l}`));
  } else if (!file.error) lines.push('  It defines no server.');
  if (file.diff) lines.push('  Changes since you trusted it:', ...file.diff.split('\n').map((l) => `    ${l}`));
  return `${lines.join('\n')}\n`;
}
