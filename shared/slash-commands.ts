// The slash commands a client offers (the web composer; ACP's
// available_commands), kept in one place so every client lists the same
// names, arguments and descriptions. `/compact` is also understood by the
// server when typed as a message; the others act in the client.
import { APPROVAL_MODES } from './protocol.js';
import { MODE_INFO } from './modes.js';

export interface SlashCommand {
  /** With its slash: `/compact`. */
  name: string;
  /** How its argument reads in help (`[focus]` optional, `<name>` required; '' none). */
  args: string;
  help: string;
  /** The values its argument takes, when it takes one of a fixed few (completed after the name). */
  choices?: readonly string[];
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: '/compact', args: '[focus]', help: 'fold older history into a summary now, optionally focused on something' },
  { name: '/clear', args: '', help: 'start a new session in the same folder (this one stays in the list)' },
  { name: '/model', args: '<name>', help: 'switch this session to another model at the next safe point' },
  { name: '/mode', args: `<${APPROVAL_MODES.join('|')}>`, help: `switch this session's approval mode (${MODE_INFO.map((m) => `${m.name}: ${m.gist}`).join('; ')})`, choices: APPROVAL_MODES },
  { name: '/fork', args: '', help: 'copy this session up to now into a new one and open it' },
  { name: '/rewind', args: '', help: 'put the files back as they were before your last message (shows the diff first)' },
  { name: '/export', args: '', help: 'download this session as Markdown' },
  { name: '/help', args: '', help: 'list these commands' },
];

/** The command `text` invokes and its argument, or undefined when it is a plain message. */
export function parseSlash(text: string): { command: SlashCommand; arg: string } | undefined {
  const m = /^(\/[a-z]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  const command = m && SLASH_COMMANDS.find((c) => c.name === m[1]);
  return command ? { command, arg: (m[2] ?? '').trim() } : undefined;
}
