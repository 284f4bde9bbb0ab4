// The composer's slash commands: the list and the parse live in
// shared/slash-commands.ts (ACP offers the same list). `/compact` goes to the
// server as a message (the server parses it); the others act in the page. A
// message that only looks like a path (`/usr/bin is broken`) is not a command.
export { SLASH_COMMANDS as COMMANDS, parseSlash, type SlashCommand } from '../shared/slash-commands.js';
