// The slash commands and the approval modes an editor offers for a skein
// session, from the lists every client shares (shared/slash-commands.ts,
// shared/modes.ts). Only the commands that make sense without skein's web
// page are offered: /compact (the server reads it from the message itself),
// /mode, /model and /help; /clear, /fork, /rewind and /export act in the page.
import type { AvailableCommand, SessionMode } from '@agentclientprotocol/sdk';
import { isApprovalMode, MODE_INFO } from '../../shared/modes.js';
import type { ApprovalMode } from '../../shared/protocol.js';
import { SLASH_COMMANDS, type SlashCommand } from '../../shared/slash-commands.js';

export type ModeId = ApprovalMode;

export const MODES: readonly SessionMode[] = MODE_INFO.map(({ id, name, description }) => ({ id, name, description }));

export const isModeId = isApprovalMode;

const OFFERED = ['/compact', '/mode', '/model', '/help'] as const;
type Offered = (typeof OFFERED)[number];

const HINTS: Record<Offered, string | undefined> = {
  '/compact': 'what the summary should keep (optional)',
  '/mode': MODE_INFO.map((m) => m.id).join(' | '),
  '/model': 'a model name, e.g. claude-sonnet-4-5',
  '/help': undefined,
};

const COMMANDS: readonly SlashCommand[] = SLASH_COMMANDS.filter((c) => (OFFERED as readonly string[]).includes(c.name));

/** ACP's list: names without the slash, the hint of the argument as its input. */
export function availableCommands(): AvailableCommand[] {
  return COMMANDS.map((c) => {
    const hint = HINTS[c.name as Offered];
    return { name: c.name.slice(1), description: c.help, ...(hint && { input: { hint } }) };
  });
}

export type Slash = { name: 'compact' | 'mode' | 'model' | 'help'; arg: string };

/** The command a prompt invokes, or undefined for a plain message (`/usr/bin is broken` is one). */
export function parseSlash(text: string): Slash | undefined {
  const m = /^(\/[a-z]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m || !COMMANDS.some((c) => c.name === m[1])) return undefined;
  return { name: m[1]!.slice(1) as Slash['name'], arg: (m[2] ?? '').trim() };
}

export function helpText(): string {
  return ['skein commands:', ...COMMANDS.map((c) => `- ${c.name}${c.args ? ` ${c.args}` : ''}: ${c.help}`)].join('\n');
}
