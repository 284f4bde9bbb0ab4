// How an approval reads in the UI: what a session rule covers, and how a call was decided.
import type { ApprovalDecisionEvent, ApprovalRule } from '../shared/protocol.js';

/** What a session rule covers, in words: the exact command, the one file, or the exact input. */
export function ruleWords(rule: ApprovalRule): string {
  if (rule.command !== undefined) return `\`${short(rule.command)}\``;
  if (rule.path !== undefined) return rule.tool === 'write_file' || rule.tool === 'edit_file' ? `writes to ${rule.path}` : `${rule.tool} on ${rule.path}`;
  if (rule.input !== undefined) return `this exact ${rule.tool} call`;
  // Logged by an older version without its scope: it matches nothing now.
  return `nothing (an old ${rule.tool} rule without its scope)`;
}

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
