// The slash commands and the approval modes an editor offers for a skein
// session, from the lists every client shares (shared/slash-commands.ts,
// shared/modes.ts): the same eight commands as the web composer. What each
// does over ACP is in slash.ts.
import type { AvailableCommand, SessionMode } from '@agentclientprotocol/sdk';
import { isApprovalMode, MODE_INFO } from '../../shared/modes.js';
import type { ApprovalMode } from '../../shared/protocol.js';
import { SLASH_COMMANDS } from '../../shared/slash-commands.js';

export type ModeId = ApprovalMode;

export const MODES: readonly SessionMode[] = MODE_INFO.map(({ id, name, description }) => ({ id, name, description }));

export const isModeId = isApprovalMode;

/**
 * The skein mode an ACP mode id stands for (`session/set_mode`, `/mode`'s
 * argument): each id is skein's own mode name, exactly (no case folding, no
 * spaces), or the words refusing it.
 */
export function modeFor(id: string): { mode: ModeId; said: string } | { error: string } {
  const found = MODE_INFO.find((m) => m.id === id);
  if (!found) return { error: `unknown mode ${JSON.stringify(id)}: one of ${MODES.map((m) => m.id).join(', ')}` };
  return { mode: found.id, said: `Approval mode: ${found.name}.` };
}

export type SlashName = 'compact' | 'clear' | 'model' | 'mode' | 'fork' | 'rewind' | 'export' | 'help';

/** The hint of each command's argument, as an editor shows it in the prompt box. */
const HINTS: Record<SlashName, string | undefined> = {
  compact: 'what the summary should keep (optional)',
  clear: undefined,
  mode: MODE_INFO.map((m) => m.id).join(' | '),
  model: 'a model name, e.g. claude-sonnet-4-5',
  fork: undefined,
  rewind: 'an event number from the list /rewind shows (add "fork" to fork there too)',
  export: undefined,
  help: undefined,
};

/** ACP's list: names without the slash, the hint of the argument as its input. */
export function availableCommands(): AvailableCommand[] {
  return SLASH_COMMANDS.map((c) => {
    const hint = HINTS[c.name.slice(1) as SlashName];
    return { name: c.name.slice(1), description: acpHelp(c.name, c.help), ...(hint && { input: { hint } }) };
  });
}

/** Where the web UI's words describe what the page does, ACP's say what the editor gets. */
function acpHelp(name: string, help: string): string {
  if (name === '/export') return 'this session as Markdown, sent back as a resource';
  if (name === '/rewind') return 'list the points to rewind to; /rewind N puts the files back as they were at event N (shows the diff)';
  if (name === '/clear') return 'start a new session in the same folder and say its id (load it with session/load)';
  if (name === '/fork') return 'copy this session up to now into a new one and say its id';
  return help;
}

export type Slash = { name: SlashName; arg: string };

/** The command a prompt invokes, or undefined for a plain message (`/usr/bin is broken` is one). */
export function parseSlash(text: string): Slash | undefined {
  const m = /^(\/[a-z]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m || !SLASH_COMMANDS.some((c) => c.name === m[1])) return undefined;
  return { name: m[1]!.slice(1) as SlashName, arg: (m[2] ?? '').trim() };
}

/** `/rewind`'s argument: nothing lists the points; `N` or `N fork` rewinds to event N; anything else is refused (undefined). */
export function parseRewind(arg: string): { kind: 'list' } | { kind: 'rewind'; seq: number; fork: boolean } | undefined {
  if (!arg) return { kind: 'list' };
  const m = /^(\d+)(?:\s+(fork))?$/.exec(arg);
  return m ? { kind: 'rewind', seq: Number(m[1]), fork: m[2] !== undefined } : undefined;
}

export function helpText(): string {
  return ['skein commands:', ...SLASH_COMMANDS.map((c) => `- ${c.name}${c.args ? ` ${c.args}` : ''}: ${acpHelp(c.name, c.help)}`)].join('\n');
}
