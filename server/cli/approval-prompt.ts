// A tool call of `skein run`'s turn waits for approval (SKEIN_APPROVAL): the
// CLI answers it. --approve covers it: approved. stdin is a terminal: the
// user is asked (approve / always for this session / deny). Otherwise nobody
// can answer, and waiting would hang a script for ever: the turn is cancelled
// and the run fails with its own exit status, naming the call.
import type { ApprovalRequestEvent } from '../../shared/protocol.js';
import { approvalAnswer } from './answers.js';
import type { Api } from './api.js';
import { approves, type ApprovePolicy } from './approve.js';
import { CliError, EXIT } from './exit-codes.js';
import { toolSummary } from './render.js';
import { forTerminal } from './terminal-text.js';

export interface ApprovalIo {
  err: (text: string) => void;
  /** Asks on the terminal; undefined when stdin is not one. */
  ask?: (question: string) => Promise<string>;
}

/** The call in a few words, for messages: bash `ls -la`. The model wrote it: shown on one line, every control character escaped. */
export function describeCall(request: ApprovalRequestEvent): string {
  return forTerminal(`${request.name} \`${toolSummary(request.input).slice(0, 200)}\``, { multiline: false });
}

/**
 * Decides one request; resolves to a CliError when nobody can (the caller
 * cancels the turn and exits with it), else undefined once the decision is sent.
 */
export async function answerApproval(request: ApprovalRequestEvent, policy: ApprovePolicy, api: Api, session: string, io: ApprovalIo): Promise<CliError | undefined> {
  if (approves(policy, request.name)) {
    io.err(`skein: approved ${describeCall(request)} (--approve)\n`);
    await api.decide(session, request.callId, 'approve');
    return undefined;
  }
  if (!io.ask) {
    return new CliError(
      EXIT.approvalNeeded,
      `${describeCall(request)} needs approval and stdin is not a terminal to ask: the turn was cancelled. Allow it with --approve ${request.name.startsWith('mcp__') ? 'mcp' : request.name} (or --approve all), or run on a terminal`,
    );
  }
  // The preview (the command, a diff) is the model's and the repository's text: its lines kept, nothing raw.
  io.err(`\n${forTerminal(request.preview.text.trimEnd())}\n`);
  for (;;) {
    const decision = approvalAnswer(await io.ask(`Run ${describeCall(request)}? [a]pprove, [s] always (this session${request.alwaysAsks ? ', though it asks again' : ''}), [d]eny: `));
    if (decision) {
      await api.decide(session, request.callId, decision);
      return undefined;
    }
  }
}
