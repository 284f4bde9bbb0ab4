// The slash commands and the approval modes an editor offers for a skein
// session. Kept here until shared/ exports the lists every client uses (the
// web composer's commands, the modes of shared/modes.ts): the names and words
// are the same. Only the commands that make sense without skein's web page
// are offered: /compact (the server understands it as a message), /mode,
// /model, /help.
import type { AvailableCommand, SessionMode } from '@agentclientprotocol/sdk';

export const MODES = [
  { id: 'plan', name: 'Plan (read-only)', description: 'The agent reads, searches and plans; writes, bash and MCP tools are refused with a reason.' },
  { id: 'always', name: 'Ask every time', description: 'Every tool call waits for your approval.' },
  { id: 'on-write', name: 'Ask on write', description: 'Calls that change something (writes, edits, bash, MCP tools) wait for your approval; reads run.' },
  { id: 'never', name: 'Auto', description: 'Every tool call runs without asking.' },
] as const satisfies readonly SessionMode[];
export type ModeId = (typeof MODES)[number]['id'];

export function isModeId(value: unknown): value is ModeId {
  return MODES.some((m) => m.id === value);
}

export const COMMANDS: readonly (AvailableCommand & { args: string })[] = [
  { name: 'compact', args: '[focus]', description: 'fold older history into a summary now, optionally focused on something', input: { hint: 'what the summary should keep (optional)' } },
  { name: 'mode', args: `<${MODES.map((m) => m.id).join('|')}>`, description: "switch this session's approval mode (plan: read-only; always: ask every time; on-write: ask before changes; never: auto)", input: { hint: MODES.map((m) => m.id).join(' | ') } },
  { name: 'model', args: '<name>', description: 'switch this session to another model at the next safe point', input: { hint: 'a model name, e.g. claude-sonnet-4-5' } },
  { name: 'help', args: '', description: 'list these commands' },
];

/** The ACP list (without skein's own `args` field). */
export function availableCommands(): AvailableCommand[] {
  return COMMANDS.map(({ args: _args, ...command }) => command);
}

export type Slash = { name: 'compact'; arg: string } | { name: 'mode'; arg: string } | { name: 'model'; arg: string } | { name: 'help'; arg: string };

/** The command a prompt invokes, or undefined for a plain message (`/usr/bin is broken` is one). */
export function parseSlash(text: string): Slash | undefined {
  const m = /^\/([a-z]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m || !COMMANDS.some((c) => c.name === m[1])) return undefined;
  return { name: m[1] as Slash['name'], arg: (m[2] ?? '').trim() };
}

export function helpText(): string {
  return ['skein commands:', ...COMMANDS.map((c) => `- /${c.name}${c.args ? ` ${c.args}` : ''}: ${c.description}`)].join('\n');
}
