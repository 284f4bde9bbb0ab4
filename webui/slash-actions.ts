// The slash commands that act in the page (`/compact` is the server's) and
// "Edit and resend", for <skein-app>.
import type { SessionSnapshot, Workspace } from '../shared/protocol.js';
import * as api from './api.js';
import * as actions from './session-actions.js';
import { COMMANDS } from './slash-commands.js';
import type { TimelineModel } from './timeline-model.js';

export interface CommandHost extends actions.ListHost {
  snapshot: SessionSnapshot | undefined;
  info: string;
  readonly models: api.ModelChoice[];
  /** The rewind dialog's session and event (undefined: closed). */
  rewinding: { id: string; seq: number } | undefined;
  /** The events this page holds, in order, and the last seq it has. */
  held(): Pick<TimelineModel, 'events' | 'lastSeq'>;
  newSession(options?: api.NewSessionOptions): Promise<void>;
  switchModel(model: string, effort?: string): Promise<void>;
  /** Puts text in the message box. */
  fillInput(text: string): void;
  readonly updateComplete: Promise<boolean>;
}

/** The open session's folder and branch (the list's copy is the freshest). */
export function currentWorkspace(host: Pick<CommandHost, 'sessions' | 'currentId' | 'snapshot'>): Workspace | undefined {
  return (host.sessions.find((s) => s.id === host.currentId) ?? host.snapshot)?.workspace;
}

/** A new session where the open one works. */
function sameFolder(host: CommandHost): api.NewSessionOptions {
  const ws = currentWorkspace(host);
  return ws ? { folder: ws.folder } : {};
}

/** Edit and resend: the conversation forked just before the message, the message back in the box to change and send. */
export async function editAndResend(host: CommandHost, seq: number, text: string): Promise<void> {
  // The session's first event: nothing comes before it, so a new session in the same folder.
  if (seq <= 1) await host.newSession(sameFolder(host));
  else await actions.fork(host, seq - 1, true);
  await host.updateComplete;
  host.fillInput(text);
}

/** A slash command that acts in the page. */
export async function runCommand(host: CommandHost, name: string, arg: string): Promise<void> {
  const held = host.held();
  switch (name) {
    case '/clear':
      return host.newSession(sameFolder(host));
    case '/model': {
      const names = host.models.filter((m) => m.available).map((m) => m.name);
      if (!arg || !names.includes(arg)) {
        host.info = `${arg ? `No model ${arg}. ` : ''}/model <name> switches to one of: ${names.join(', ')}`;
        return;
      }
      return host.switchModel(arg);
    }
    case '/fork':
      return actions.fork(host, held.lastSeq || (host.snapshot?.lastSeq ?? 0));
    case '/export': {
      const link = document.createElement('a');
      link.href = api.exportUrl(host.currentId, 'md');
      link.download = `${host.currentId}.md`;
      link.click();
      return;
    }
    case '/rewind': {
      // To just before the last message you sent: its files back, and a fork there if you choose.
      const last = held.events.filter((e) => e.kind === 'user').at(-1);
      if (!last) {
        host.info = '/rewind: nothing to rewind yet (no message in this session).';
        return;
      }
      host.rewinding = { id: host.currentId, seq: Math.max(1, last.seq - 1) };
      return;
    }
    case '/mode':
      return actions.setMode(host, arg);
    case '/help':
      host.info = COMMANDS.map((c) => `${c.name}${c.args ? ` ${c.args}` : ''}: ${c.help}`).join('\n');
      return;
  }
}
