// The composer's slash commands: what each does, and the parse the chat box
// and the app share. `/compact` goes to the server as a message (the server
// parses it); the others act in the page. A message that only looks like a
// path (`/usr/bin is broken`) is not a command: only the names below are.
export interface SlashCommand {
  name: string;
  args: string;
  help: string;
}

export const COMMANDS: readonly SlashCommand[] = [
  { name: '/compact', args: '[focus]', help: 'fold older history into a summary now, optionally focused on something' },
  { name: '/clear', args: '', help: 'start a new session in the same folder (this one stays in the list)' },
  { name: '/model', args: '<name>', help: 'switch this session to another model at the next safe point' },
  { name: '/fork', args: '', help: 'copy this session up to now into a new one and open it' },
  { name: '/rewind', args: '', help: 'put the files back as they were before your last message (shows the diff first)' },
  { name: '/export', args: '', help: 'download this session as Markdown' },
  { name: '/help', args: '', help: 'list these commands' },
];

/** The command `text` invokes and its argument, or undefined when it is a plain message. */
export function parseSlash(text: string): { command: SlashCommand; arg: string } | undefined {
  const m = /^(\/[a-z]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  const command = m && COMMANDS.find((c) => c.name === m[1]);
  return command ? { command, arg: (m[2] ?? '').trim() } : undefined;
}
