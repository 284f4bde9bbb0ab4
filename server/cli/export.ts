// `skein export ID`: the session's events as JSONL, or (--markdown) a
// transcript. Reads the events endpoint; when the server grows its own export
// endpoint, only this file changes.
import { Api } from './api.js';
import type { CliArgs } from './args.js';
import { connect } from './connection.js';
import { CliError, EXIT, type ExitCode } from './exit-codes.js';
import { markdownTranscript } from './export-markdown.js';
import type { Io } from './run.js';
import { STATE_WIDTH, STATE_WORDS } from './state-words.js';
import { forTerminal, jsonForTerminal } from './terminal-text.js';

export async function exportCommand(args: CliArgs, env: NodeJS.ProcessEnv, io: Io): Promise<ExitCode> {
  const id = args.positionals[0];
  if (!id || args.positionals.length > 1) throw new CliError(EXIT.usage, 'usage: skein export ID [--markdown]');
  const connection = await connect(args, env);
  if (connection.note) io.err(connection.note);
  try {
    const api = new Api(connection);
    const snapshot = await api.session(id);
    const events = await api.events(id);
    // What a repository, a model or a tool wrote is in there: escaped, whether it goes to a terminal or a file a terminal shows later.
    io.out(args.markdown ? forTerminal(markdownTranscript(id, snapshot.title, events)) : events.map((e) => `${jsonForTerminal(e)}\n`).join(''));
    return EXIT.ok;
  } finally {
    await connection.close();
  }
}

export async function sessionsCommand(args: CliArgs, env: NodeJS.ProcessEnv, io: Io): Promise<ExitCode> {
  if (args.positionals.length) throw new CliError(EXIT.usage, 'usage: skein sessions [--json]');
  const connection = await connect(args, env);
  if (connection.note) io.err(connection.note);
  try {
    const sessions = await new Api(connection).sessions();
    if (args.json) io.out(`${jsonForTerminal(sessions)}\n`);
    // A title is anyone's text (typed, or made from a model's answer): one line, nothing a terminal would obey.
    else for (const s of sessions) io.out(`${forTerminal(`${s.id}  ${STATE_WORDS[s.state].padEnd(STATE_WIDTH)}  ${s.model.padEnd(18)}  ${s.lastActivity.slice(0, 19)}  ${s.title}`, { multiline: false })}\n`);
    return EXIT.ok;
  } finally {
    await connection.close();
  }
}
