// What skein asks an editor about a call waiting for approval
// (`session/request_permission`'s options) and what the editor's answer
// decides: each offered option id its own decision, `cancelled` cancels the
// turn, and an option id skein did not offer decides nothing (asked again).
import type { PermissionOption, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { ApprovalDecision, ApprovalRequestEvent } from '../../shared/protocol.js';

export type PermissionAnswer = { kind: 'decide'; decision: ApprovalDecision } | { kind: 'cancel' } | { kind: 'unknown'; optionId: string };

/** The options of the question: allow once, always allow (unless the call always asks), reject. */
export function permissionOptions(event: ApprovalRequestEvent): PermissionOption[] {
  return [
    { optionId: 'approve', name: 'Allow once', kind: 'allow_once' },
    ...(event.alwaysAsks ? [] : [{ optionId: 'approve_session', name: `Always allow in this session (${ruleWords(event)})`, kind: 'allow_always' as const }]),
    { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
  ];
}

/** The decision an answer stands for; only the ids of `offered` decide (their id is the decision's name). */
export function permissionAnswer(outcome: RequestPermissionResponse['outcome'], offered: readonly PermissionOption[]): PermissionAnswer {
  if (outcome.outcome === 'cancelled') return { kind: 'cancel' };
  const option = offered.find((o) => o.optionId === outcome.optionId);
  if (!option) return { kind: 'unknown', optionId: outcome.optionId };
  return { kind: 'decide', decision: option.optionId as ApprovalDecision };
}

/** What "always allow" covers, in words (the session rule skein records). */
export function ruleWords(event: ApprovalRequestEvent): string {
  const rule = event.rule;
  if (rule.command !== undefined) return `${rule.tool}: ${rule.command.length > 60 ? `${rule.command.slice(0, 59)}…` : rule.command}`;
  if (rule.path !== undefined) return `${rule.tool} on ${rule.path}`;
  return `${rule.tool} with this input`;
}
