// Waiting for and answering approval requests in tests (SKEIN_APPROVAL).
import type { ApprovalDecisionEvent, ApprovalRequestEvent, SkeinEvent, ToolResultEvent } from '../../shared/protocol.js';
import type { TestClient } from './ws-client.js';

/** The approval requests with no decision and no result yet. */
export function openRequests(events: readonly SkeinEvent[]): ApprovalRequestEvent[] {
  const closed = new Set(events.flatMap((e) => (e.kind === 'approval_decision' || e.kind === 'tool_result' ? [e.callId] : [])));
  return events.filter((e): e is ApprovalRequestEvent => e.kind === 'approval_request' && !closed.has(e.callId));
}

/** Waits until a call waits for approval (its request logged and the agent in WaitingForApproval). */
export function untilAsked(client: TestClient, timeoutMs = 20_000): Promise<ApprovalRequestEvent> {
  return client.until(
    () => {
      const events = client.events;
      const state = events.filter((e) => e.kind === 'state').at(-1);
      return state?.kind === 'state' && state.to === 'WaitingForApproval' && openRequests(events)[0];
    },
    'a tool call to wait for approval',
    timeoutMs,
  );
}

export function decisionOf(events: readonly SkeinEvent[], callId: string): ApprovalDecisionEvent | undefined {
  return events.find((e): e is ApprovalDecisionEvent => e.kind === 'approval_decision' && e.callId === callId);
}

export function resultOf(events: readonly SkeinEvent[], callId: string): ToolResultEvent | undefined {
  return events.find((e): e is ToolResultEvent => e.kind === 'tool_result' && e.callId === callId);
}

/** The state transitions, as `from>to`. */
export function transitions(events: readonly SkeinEvent[]): string[] {
  return events.flatMap((e) => (e.kind === 'state' ? [`${e.from}>${e.to}`] : []));
}
