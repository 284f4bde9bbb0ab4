// A project file's servers as text (for `skein trust` and the server log):
// each command line or URL as written, with the environment it sets and the
// header names it sends. The file is the repository's: every argument and
// value is shown exactly as it will run (shellQuoted: `$'\r\x1b[2K'`, not a
// cleared line), and everything else through forTerminal.
import type { ProjectFileTrust, ProjectServerPreview } from '../../shared/protocol.js';
import { forTerminal, shellQuoted as quoted } from '../cli/terminal-text.js';

const line = (text: string) => forTerminal(text, { multiline: false });

export function describeServer(s: ProjectServerPreview): string[] {
  const shadow = s.shadowed ? ' (not run: your SKEIN_MCP_CONFIG has a server of this name)' : '';
  if (s.transport === 'http') {
    const lines = [`${line(s.name)}: connects to ${line(s.url ?? '')}${shadow}`];
    if (s.headerNames?.length) lines.push(`    sends headers: ${line(s.headerNames.join(', '))}`);
    return lines;
  }
  const lines = [`${line(s.name)}: runs ${[s.command ?? '', ...(s.args ?? [])].map(quoted).join(' ')}${shadow}`];
  for (const [name, value] of Object.entries(s.env ?? {})) lines.push(`    with ${quoted(name)}=${quoted(value)}`);
  return lines;
}

/** What the file's status means for the user (a switch, not a table: the mutation run reaches each wording). */
function statusWords(status: ProjectFileTrust['status'], agentFile: boolean): string {
  switch (status) {
    case 'untrusted':
      return 'not trusted (never decided)';
    case 'changed':
      return 'not trusted: it changed since you decided on it';
    case 'trusted':
      return 'trusted';
    case 'ignored':
      return agentFile ? 'ignored (the agent is not defined; you are not asked again for this content)' : 'ignored (its servers do not run; you are not asked again for this content)';
  }
}

/** An agent file: the agent it would define, its instructions whole (they go into a child's system prompt). */
function describeAgent(agent: NonNullable<ProjectFileTrust['agent']>): string[] {
  const lines = [`  It defines the agent ${line(agent.name)}: ${line(agent.description)}`];
  lines.push(`    tools: ${agent.tools ? line(agent.tools.join(', ')) || '(none)' : "the parent's"}`);
  lines.push(`    model: ${agent.model ? line(agent.model) : "the parent's"}; mode: ${agent.mode ?? "the parent's"}; may start children: ${agent.depth ? `${agent.depth} level(s)` : 'no'}`);
  if (agent.prompt) lines.push('    instructions:', ...agent.prompt.split('\n').map((l) => `      ${line(l)}`));
  return lines;
}

export function describeFile(file: ProjectFileTrust): string {
  const lines = [line(file.path), `  sha256 ${file.sha256}`, `  ${statusWords(file.status, file.agent !== undefined)}`];
  if (file.error) lines.push(`  cannot be trusted as it is: ${forTerminal(file.error)}`);
  if (file.agent) lines.push(...describeAgent(file.agent));
  else if (file.file !== undefined && file.file !== '.mcp.json') {
    // An agent file that does not parse: its error is above.
  } else if (file.servers.length) {
    lines.push('  It would start (as written: ${VAR} is never filled in from your environment in a project file):');
    for (const s of file.servers) lines.push(...describeServer(s).map((l) => `    ${l}`));
  } else if (!file.error) lines.push('  It defines no server.');
  if (file.diff) lines.push('  Changes since you trusted it:', ...file.diff.split('\n').map((l) => `    ${line(l)}`));
  return `${lines.join('\n')}\n`;
}
