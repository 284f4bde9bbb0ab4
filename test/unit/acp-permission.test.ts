// What an editor is asked about a call waiting for approval, and the decision
// each answer stands for: every offered option, option ids skein did not offer
// (approve_session on a call that always asks, a made-up id, a near miss),
// and `cancelled`. The editor's side of the same walk: test/acp/acp-permission-answers.test.ts.
import { describe, expect, it } from 'vitest';
import type { PermissionOption } from '@agentclientprotocol/sdk';
import type { ApprovalRequestEvent } from '../../shared/protocol.js';
import { permissionAnswer, permissionOptions, ruleWords } from '../../server/acp/permission.js';

function request(rule: ApprovalRequestEvent['rule'], alwaysAsks?: string): ApprovalRequestEvent {
  return { kind: 'approval_request', seq: 3, ts: '2026-11-29T00:00:00.000Z', callId: 'c1', name: rule.tool, input: {}, preview: { kind: 'command', text: 'x' }, rule, ...(alwaysAsks && { alwaysAsks }) } as ApprovalRequestEvent;
}

const selected = (optionId: string) => ({ outcome: 'selected' as const, optionId });
const BASH = request({ tool: 'bash', command: 'ls -la' });
const PROTECTED = request({ tool: 'write_file', path: '.git/config' }, 'a protected path');

describe('acp permission options', () => {
  it('offer allow once, always allow with the rule in words, and reject, each id its own decision', () => {
    expect(permissionOptions(BASH)).toEqual([
      { optionId: 'approve', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'approve_session', name: 'Always allow in this session (bash: ls -la)', kind: 'allow_always' },
      { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
    ]);
  });

  it('a call that always asks has no "always allow"', () => {
    expect(permissionOptions(PROTECTED)).toEqual([
      { optionId: 'approve', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
    ]);
  });

  it('say what "always allow" covers: the command (cut past 60 characters), the path, or this input', () => {
    expect(ruleWords(BASH)).toBe('bash: ls -la');
    const sixty = 'x'.repeat(60);
    expect(ruleWords(request({ tool: 'bash', command: sixty }))).toBe(`bash: ${sixty}`);
    expect(ruleWords(request({ tool: 'bash', command: `${sixty}y` }))).toBe(`bash: ${'x'.repeat(59)}…`);
    expect(ruleWords(request({ tool: 'bash', command: '' }))).toBe('bash: ');
    expect(ruleWords(request({ tool: 'write_file', path: 'src/a.ts' }))).toBe('write_file on src/a.ts');
    expect(ruleWords(request({ tool: 'write_file', path: '' }))).toBe('write_file on ');
    expect(ruleWords(request({ tool: 'mcp__s__t', input: { a: 1 } } as never))).toBe('mcp__s__t with this input');
  });
});

describe('acp permission answers', () => {
  const offered = permissionOptions(BASH);

  it('each offered option decides what it names: allow once approves this call only, always allow for the session, reject denies', () => {
    expect(permissionAnswer(selected('approve'), offered)).toEqual({ kind: 'decide', decision: 'approve' });
    expect(permissionAnswer(selected('approve_session'), offered)).toEqual({ kind: 'decide', decision: 'approve_session' });
    expect(permissionAnswer(selected('deny'), offered)).toEqual({ kind: 'decide', decision: 'deny' });
  });

  it('cancelled cancels the turn (it is no decision, and never leaves the call waiting)', () => {
    expect(permissionAnswer({ outcome: 'cancelled' }, offered)).toEqual({ kind: 'cancel' });
    expect(permissionAnswer({ outcome: 'cancelled' }, [])).toEqual({ kind: 'cancel' });
  });

  it('an option id skein did not offer decides nothing', () => {
    for (const id of ['allow', 'allow_once', 'allow_always', 'reject_once', 'Approve', 'approve ', '', 'approve_session_x', 'constructor', 'toString']) {
      expect(permissionAnswer(selected(id), offered), id).toEqual({ kind: 'unknown', optionId: id });
    }
    // Not offered on a call that always asks: "always allow" there would record a rule the user was never shown.
    expect(permissionAnswer(selected('approve_session'), permissionOptions(PROTECTED))).toEqual({ kind: 'unknown', optionId: 'approve_session' });
    const none: PermissionOption[] = [];
    expect(permissionAnswer(selected('approve'), none)).toEqual({ kind: 'unknown', optionId: 'approve' });
  });
});
