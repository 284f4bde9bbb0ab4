// The task of `skein run`: the words on the command line, with whatever is
// piped on stdin appended in a <stdin> block (`git diff | skein run "review
// this diff"`), as Codex `exec` does; stdin alone when no words are given.
import { MAX_MESSAGE_CHARS } from '../../shared/protocol.js';
import { CliError, EXIT } from './exit-codes.js';

/** How long stdin may stay silent before the user is told the CLI waits for it. */
const QUIET_STDIN_NOTE_MS = 1500;

/** stdin's text to its end; undefined when stdin is a terminal (nothing is piped). */
export async function readPipedStdin(stdin: NodeJS.ReadStream, note: (text: string) => void): Promise<string | undefined> {
  if (stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  let seen = false;
  // A pipe held open by a parent that writes nothing would wait for ever, silently: say what is awaited.
  const timer = setTimeout(() => {
    if (!seen) note('skein: reading stdin until it ends (it is added to the task); run with </dev/null to give none\n');
  }, QUIET_STDIN_NOTE_MS);
  timer.unref();
  try {
    for await (const chunk of stdin) {
      seen = true;
      chunks.push(chunk as Buffer);
    }
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The task from the command line's words and stdin's text (either may be missing). */
export function composeTask(words: string[], stdin: string | undefined): string {
  const given = words.join(' ').trim();
  const piped = stdin?.trim() ? stdin : undefined;
  let task: string;
  if (!given) task = piped?.trim() ?? '';
  else if (!piped) task = given;
  else task = `${given}\n\n<stdin>\n${piped.endsWith('\n') ? piped : `${piped}\n`}</stdin>`;
  if (!task) throw new CliError(EXIT.usage, 'no task: skein run "what to do" (or pipe it on stdin)');
  if (task.length > MAX_MESSAGE_CHARS) throw new CliError(EXIT.usage, `the task${given && piped ? ' with stdin' : ''} is ${task.length} characters; a message holds at most ${MAX_MESSAGE_CHARS}`);
  return task;
}
