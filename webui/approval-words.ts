// How an approval reads in the UI: what a session rule covers, and how a call was decided.
import type { ApprovalDecisionEvent, ApprovalPreview, ApprovalRequestEvent, ApprovalRule } from '../shared/protocol.js';

/** What a session rule covers, in words: the exact command, the one file, or the exact input. */
export function ruleWords(rule: ApprovalRule): string {
  if (rule.command !== undefined) return `\`${short(rule.command)}\``;
  if (rule.path !== undefined) return rule.tool === 'write_file' || rule.tool === 'edit_file' ? `writes to ${rule.path}` : `${rule.tool} on ${rule.path}`;
  if (rule.input !== undefined) return `this exact ${rule.tool} call`;
  // Logged by an older version without its scope: it matches nothing now.
  return `nothing (an old ${rule.tool} rule without its scope)`;
}

/** The name a screen reader gives the call's preview. */
export function previewLabel(kind: ApprovalPreview['kind']): string {
  return kind === 'diff' ? 'Diff to approve' : kind === 'command' ? 'Command to approve' : 'Input to approve';
}

/**
 * The card's second answer: "Approve … for this session" with what it covers,
 * or, for a call that asks every time (a protected path), only a note why.
 */
export function sessionChoice(request: Pick<ApprovalRequestEvent, 'alwaysAsks' | 'rule'>): { note: string } | { label: string; title: string } {
  if (request.alwaysAsks) return { note: `Asks every time: ${request.alwaysAsks}` };
  const covers = ruleWords(request.rule);
  return { label: `Approve ${covers} for this session`, title: `Do not ask again in this session for ${covers}` };
}

/** A command's first line, cut at 57 characters with "…" when longer than 60 or followed by more lines. */
function short(text: string): string {
  const line = text.split('\n')[0]!;
  return line.length > 60 || line !== text ? `${line.slice(0, 57)}…` : line;
}

export function decisionWords(d: ApprovalDecisionEvent): string {
  const reason = d.reason ? `: ${d.reason}` : '';
  switch (d.by) {
    case 'rule':
      return `Approved by a session rule (${d.rule ? ruleWords(d.rule) : d.name})`;
    case 'cancel':
      // A fork closing the turn it cut gives its own reason.
      return d.reason && d.reason !== 'cancelled' ? `Denied: ${d.reason}` : 'Denied: the turn was cancelled';
    case 'message':
      return `Denied by your new message${reason}`;
    case 'mode':
      // The user switched the session's mode while the call waited: decided again under the new one.
      return `${d.decision === 'deny' ? 'Refused' : 'Approved'}: ${d.reason ?? 'the session\'s mode changed'}`;
    default:
      if (d.decision === 'approve') return 'Approved by you';
      if (d.decision === 'approve_session') return `Approved for this session (${d.rule ? ruleWords(d.rule) : d.name})`;
      return `Denied by you${reason}`;
  }
}
