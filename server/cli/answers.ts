// What the user typed at a question on the terminal, as a decision. Nothing
// is decided by default: Enter, blank or anything not listed picks nothing
// (an approval is asked again; a trust question is a no). Ctrl-D ends the
// question before any answer (the asker rejects): nothing is decided either.
import type { ApprovalDecision } from '../../shared/protocol.js';

/** The decision an answer to an approval question names; undefined: none (ask again). */
export function approvalAnswer(typed: string): ApprovalDecision | undefined {
  // The words each decision takes (case and surrounding blanks ignored). A switch, not a table: no inherited name
  // (`constructor`) is an answer, and the mutation run reaches each word (it leaves module-level tables out).
  switch (typed.trim().toLowerCase()) {
    case 'a':
    case 'approve':
    case 'y':
    case 'yes':
      return 'approve';
    case 's':
    case 'always':
      return 'approve_session';
    case 'd':
    case 'deny':
    case 'n':
    case 'no':
      return 'deny';
    default:
      return undefined;
  }
}

/** `skein trust`'s [y/N]: only y or yes trusts. */
export function trustAnswer(typed: string): boolean {
  const answer = typed.trim().toLowerCase();
  return answer === 'y' || answer === 'yes';
}
