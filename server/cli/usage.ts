// `skein --help`: the commands, then every server setting (config.ts).
import { helpText } from '../config.js';
import { EXIT } from './exit-codes.js';

const COMMANDS_TEXT = `Usage: skein [command] [flags]

Commands:
  (none)                     start the server and web UI (as \`npm start\` does)
  run "TASK"                 run one turn headless and stream the timeline. Piped stdin is added
                             to TASK in a <stdin> block (git diff | skein run "review this diff"),
                             or is the task when none is given. Ctrl-C, SIGTERM, SIGHUP or a closed
                             stdout cancel the turn (and its tools' processes)
      --json                 print the session's events as JSON lines instead
      --session ID           continue that session instead of starting one
      --approve WHAT         approve, without asking, the calls SKEIN_APPROVAL holds: all, bash,
                             write (write_file, edit_file), mcp, or a tool name; comma-separated or
                             repeated. Others are asked on a terminal ([a]pprove, [s] always, [d]eny);
                             with stdin not a terminal the turn is cancelled, exit ${EXIT.approvalNeeded}
      --mode MODE            the session's approval mode from now on: plan (read-only), always,
                             on-write or never (default: SKEIN_APPROVAL for a new session)
  sessions                   list the sessions (id, state, model, last activity, title)
      --json                 as JSON
  export ID                  print a session's event log (JSONL)
      --markdown             as a readable Markdown transcript instead
  trust [FOLDER]             show what FOLDER's .mcp.json would run (default: the first
                             SKEIN_WORKDIR root, else this folder), with the diff since you
                             last trusted it, and ask to trust that exact content; stored in
                             <data dir>/trust.json, no server needed (a running one applies it)
      --yes                  trust without asking (scripts)
      --list                 list every decision, and whether the file changed since
      --revoke               forget the decision on FOLDER (a running skein stops its servers)
  migrate --from-jsonl DIR   import <id>.jsonl session logs into PostgreSQL (SKEIN_DATABASE_URL)
  migrate --to-jsonl DIR     export every session of that database as <id>.jsonl
  acp                        an Agent Client Protocol agent on stdin/stdout, for editors
                             (Zed, JetBrains, Neovim, Emacs); logs go to stderr

Every command:
  --server URL               drive a running server instead of an embedded one
                             (token: --token, SKEIN_TOKEN, or <data dir>/token)
  --token TOKEN              the access token (prefer SKEIN_TOKEN: a flag shows in \`ps\`)
  Without --server, the server running on the data folder (--data-dir, SKEIN_DATA_DIR)
  is driven if there is one (found through <data dir>/server.lock); else an embedded
  server runs in this process with the settings below (on a free port unless SKEIN_PORT
  or --port is given). With a running server, the approval mode, model and effort asked
  for (--mode, SKEIN_APPROVAL, SKEIN_MODEL, SKEIN_REASONING_EFFORT or their flags) are
  set on the session and read back before the task; a sandbox setting that is not the
  server's is refused (${EXIT.settingRefused}).

Exit status: ${EXIT.ok} done · ${EXIT.turnFailed} the turn failed · ${EXIT.usage} bad usage or setting · ${EXIT.server} server unreachable or refused
             ${EXIT.cancelled} cancelled (Ctrl-C, or another client) · ${EXIT.notFound} no such session · ${EXIT.turnLimit} the turn hit a turn limit
             ${EXIT.dataDirInUse} the data folder is in use by another skein · ${EXIT.approvalNeeded} a call needs approval and nobody can give it
             ${EXIT.cannotStart} the server cannot start (port in use, data folder unusable) · ${EXIT.settingRefused} a setting asked for cannot take effect
             ${EXIT.internal} a bug in skein
             ${EXIT.hangup} SIGHUP · ${EXIT.stdoutClosed} stdout closed (… | head) · ${EXIT.terminated} SIGTERM (each cancels the turn)

`;

export function usageText(): string {
  return COMMANDS_TEXT + helpText().replace(/^Usage: .*\n\n/, 'Server settings (flags and environment variables):\n\n');
}

export const migrateUsage = `usage: skein migrate --from-jsonl DIR   (import <id>.jsonl logs)
       skein migrate --to-jsonl DIR     (export every session as <id>.jsonl)
SKEIN_DATABASE_URL=postgres://… names the database.
`;
