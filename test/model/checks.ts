// What must hold after every step of a sequence, and at its end. Each check
// returns the broken promises in words (empty: all hold).
import { parseCompactCommand, type ApprovalDecisionEvent, type SkeinEvent, type StateEvent } from '../../shared/protocol.js';
import { needsApproval } from '../../server/agent/approvals.js';
import { plain } from '../../server/compaction/view.js';
import { canTransition } from '../../server/agent/state-machine.js';
import { refusals } from '../fakes/rules/rejection.js';
import { takeRequestViolations } from '../helpers/request-rules.js';
import { checkInvariants } from '../helpers/invariants.js';
import { takeViolations, type System } from './system.js';

const ILLEGAL = 'illegal agent transition';

/** What the process said on the console and the promises nobody handled: filled by the test file. */
export interface Observed {
  console: string[];
  unhandled: unknown[];
}

/** The cheap checks, after every step. */
export function stepProblems(sys: System, observed: Observed, options: { afterClose?: boolean } = {}): string[] {
  const problems: string[] = [];
  for (const line of observed.console) if (line.includes(ILLEGAL)) problems.push(`console: ${line}`);
  const unhandled = new Map<string, number>();
  for (const reason of observed.unhandled) {
    const text = reason instanceof Error ? (reason.stack ?? reason.message) : String(reason);
    unhandled.set(text, (unhandled.get(text) ?? 0) + 1);
  }
  for (const [text, n] of unhandled) problems.push(`unhandled rejection${n > 1 ? ` (${n} times)` : ''}: ${text}`);
  observed.unhandled.length = 0;
  for (const v of takeRequestViolations()) problems.push(`predictable got a request a provider refuses: ${v}`);
  for (const v of takeViolations(sys.fakes)) problems.push(`the ${v.fake} fake refused a request: ${v.message}`);
  refusals.length = 0; // reported above, fake by fake
  if (options.afterClose) return problems;
  sys.collect();
  const events = sys.events;
  problems.push(...gapFree(events), ...stateChain(events, sys.fullAfter), ...deliveredOnce(sys, events), ...approvalsKept(sys, events));
  for (const e of events) if (e.kind === 'error' && e.message.includes(ILLEGAL)) problems.push(`log: ${e.message}`);
  return problems;
}

/** At the end, once the disk has space and the last message, `last`, was answered. */
export function finalProblems(sys: System, last: string): string[] {
  const problems: string[] = [];
  const events = sys.events;
  if (sys.state !== 'WaitingForUserInput') problems.push(`the agent ended in ${sys.state}`);
  const state = events.filter((e): e is StateEvent => e.kind === 'state').at(-1);
  if (state && state.to !== 'WaitingForUserInput') problems.push(`the last recorded state is ${state.to}, not WaitingForUserInput`);
  if (sys.live.session.compactions.size) problems.push(`${sys.live.session.compactions.size} compaction(s) still queued`);
  problems.push(...checkInvariants(events, plain(sys.live.session.view())).map((p) => `view: ${p}`));
  // Every message the user sent reached the model: the request that carried the last one holds each, as itself or folded into a summary.
  const final = sys.requests.filter((r) => !r.summary && r.userTexts.includes(last)).at(-1);
  if (!final) problems.push(`the last message ${JSON.stringify(last)} reached no model`);
  for (const text of userTexts(events)) {
    if (final && !final.allText.includes(text)) problems.push(`user message ${JSON.stringify(text)} is not in the last request (to ${final.provider})`);
  }
  return problems;
}

function gapFree(events: readonly SkeinEvent[]): string[] {
  const bad = events.findIndex((e, i) => e.seq !== i + 1);
  return bad < 0 ? [] : [`seq ${events[bad]!.seq} at position ${bad + 1}: the seqs have a gap or a repeat`];
}

/**
 * Each recorded transition is legal and starts where the previous one ended:
 * every turn goes back to WaitingForUserInput through the table. While the
 * disk was full a transition could not be recorded, so the chain may break
 * right after the event where it filled up.
 */
function stateChain(events: readonly SkeinEvent[], fullAfter: readonly number[]): string[] {
  const problems: string[] = [];
  let previous: StateEvent | undefined;
  for (const e of events) {
    if (e.kind !== 'state') continue;
    if (!canTransition(e.from, e.to)) problems.push(`event ${e.seq}: ${e.from} -> ${e.to} is not in the table`);
    const excused = previous !== undefined && fullAfter.some((seq) => seq >= previous!.seq && seq < e.seq);
    if (previous && previous.to !== e.from && !excused) problems.push(`event ${e.seq}: starts from ${e.from} but the agent was in ${previous.to} (event ${previous.seq})`);
    previous = e;
  }
  return problems;
}

/**
 * SKEIN_APPROVAL is never bypassed: a bash call that needs approval runs only
 * after an approve decision (by the user or a session rule), a denied call
 * never runs and its result says so, every decision answers its own call, and
 * while the agent waits there is exactly one open request.
 */
function approvalsKept(sys: System, events: readonly SkeinEvent[]): string[] {
  const problems: string[] = [];
  const mode = sys.config.approval;
  const requested = new Set<string>();
  const decided = new Map<string, ApprovalDecisionEvent>();
  for (const e of events) {
    if (mode === 'never' && (e.kind === 'approval_request' || e.kind === 'approval_decision')) problems.push(`event ${e.seq}: ${e.kind} with SKEIN_APPROVAL=never`);
    if (e.kind === 'approval_request') {
      if (!needsApproval(mode, e.name)) problems.push(`event ${e.seq}: ${e.name} asked for approval, which it does not need with ${mode}`);
      requested.add(e.callId);
    }
    if (e.kind === 'approval_decision') {
      if (decided.has(e.callId)) problems.push(`event ${e.seq}: a second decision for ${e.callId}`);
      if (e.by === 'user' && !requested.has(e.callId)) problems.push(`event ${e.seq}: the user decided on ${e.callId}, which never asked`);
      decided.set(e.callId, e);
    }
    if (e.kind !== 'tool_result' || e.name !== 'bash' || !needsApproval(mode, 'bash')) continue;
    const ran = /^(exit code: |killed: )/.test(e.output);
    const decision = decided.get(e.callId);
    if (ran && decision?.decision !== 'approve' && decision?.decision !== 'approve_session') problems.push(`event ${e.seq}: bash ${e.callId} ran without being approved (${decision ? decision.decision : 'no decision'})`);
    if (decision?.decision === 'deny' && !e.output.startsWith('denied')) problems.push(`event ${e.seq}: ${e.callId} was denied but its result is ${JSON.stringify(e.output.slice(0, 80))}`);
  }
  // One call waits at a time; right after the agent entered WaitingForApproval, exactly one does.
  const closed = new Set(events.flatMap((e) => (e.kind === 'tool_result' || e.kind === 'approval_decision' ? [e.callId] : [])));
  const open = [...requested].filter((id) => !closed.has(id));
  if (open.length > 1) problems.push(`${open.length} approval requests are open at once (${open.join(', ')})`);
  const last = events.at(-1);
  if (last?.kind === 'state' && last.to === 'WaitingForApproval' && open.length !== 1) problems.push(`event ${last.seq}: the agent waits for approval with no open request`);
  return problems;
}

/** The user's messages (not /compact commands) in the log. */
function userTexts(events: readonly SkeinEvent[]): string[] {
  return events.flatMap((e) => (e.kind === 'user' && !parseCompactCommand(e.text) ? [e.text] : []));
}

/**
 * No request carries a user message more often than the user sent it (after
 * merging, each message is still its own block), and none carries one the
 * log refused.
 */
function deliveredOnce(sys: System, events: readonly SkeinEvent[]): string[] {
  const sent = new Map<string, number>();
  for (const text of userTexts(events)) sent.set(text, (sent.get(text) ?? 0) + 1);
  const problems: string[] = [];
  for (const [i, request] of sys.requests.entries()) {
    if (request.summary) continue;
    const seen = new Map<string, number>();
    for (const text of request.userTexts) seen.set(text, (seen.get(text) ?? 0) + 1);
    for (const [text, n] of seen) {
      // A text the user never typed is skein's own (a notice in the view), not a message.
      if (!sent.has(text) && !sys.refused.includes(text)) continue;
      if (n > (sent.get(text) ?? 0)) problems.push(`request ${i} to ${request.provider} carries ${JSON.stringify(text)} ${n} time(s), the user sent it ${sent.get(text) ?? 0} time(s)`);
    }
  }
  return problems;
}
