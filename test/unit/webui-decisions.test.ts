// What the web UI's components decide, as plain functions (webui/gauge-level.ts,
// diff-line-class.ts, approval-words.ts, mode-words.ts): the gauge's colour
// level and where its threshold tick stands, the words to auto-compact; how a
// diff line is coloured; how an approval reads (a multi-line command included)
// and how each decision is told; the mode picker's title.
import { describe, expect, it } from 'vitest';
import { gaugeFill } from '../../webui/gauge-fill.js';
import { gaugeLevel, NEAR, thresholdPercent, tickLeft, untilWords } from '../../webui/gauge-level.js';
import { diffLineClass } from '../../webui/diff-line-class.js';
import { decisionWords, previewLabel, ruleWords, sessionChoice } from '../../webui/approval-words.js';
import { modePickerTitle } from '../../webui/mode-words.js';
import { MODE_INFO, modeLabel } from '../../shared/modes.js';
import type { ApprovalDecisionEvent } from '../../shared/protocol.js';

describe('the gauge', () => {
  it('is ok below threshold - NEAR, near from there, over at and past the threshold', () => {
    expect(NEAR).toBe(0.15);
    expect(gaugeLevel({ ratio: 0.5, thresholdRatio: 0.8 })).toBe('ok');
    expect(gaugeLevel({ ratio: 0.64, thresholdRatio: 0.8 })).toBe('ok');
    expect(gaugeLevel({ ratio: 0.65, thresholdRatio: 0.8 })).toBe('near');
    expect(gaugeLevel({ ratio: 0.79, thresholdRatio: 0.8 })).toBe('near');
    expect(gaugeLevel({ ratio: 0.8, thresholdRatio: 0.8 })).toBe('over');
    expect(gaugeLevel({ ratio: 1.3, thresholdRatio: 0.8 })).toBe('over');
    expect(gaugeLevel({ ratio: 0, thresholdRatio: 0.5 })).toBe('ok');
    expect(gaugeLevel({ ratio: 0.4, thresholdRatio: 0.5 })).toBe('near');
  });

  it('is over the window when either the tokens pass the window or the ratio passes 1; exactly full is not over', () => {
    expect(gaugeFill({ contextTokens: 2100, contextWindow: 2000, ratio: 0.99 }).over).toBe(true);
    expect(gaugeFill({ contextTokens: 1000, contextWindow: 2000, ratio: 1.2 }).over).toBe(true);
    expect(gaugeFill({ contextTokens: 2000, contextWindow: 2000, ratio: 1 })).toMatchObject({ over: false, share: '100%', valueNow: 2000 });
  });

  it('draws the uncached input as what the cache does not account for, when the server did not say it', () => {
    const f = gaugeFill({ contextTokens: 1000, contextWindow: 2000, ratio: 0.5, cacheRead: 100, cacheWrite: 50 });
    expect(f).toMatchObject({ read: 5, write: 2.5, input: 42.5 });
  });

  it('puts the tick on the threshold, 1 px back to centre its 2 px', () => {
    expect(tickLeft(0.8)).toBe('calc(80% - 1px)');
    expect(tickLeft(0.5)).toBe('calc(50% - 1px)');
    expect(tickLeft(1)).toBe('calc(100% - 1px)');
  });

  it('gives the threshold in whole percent', () => {
    expect(thresholdPercent(0.8)).toBe(80);
    expect(thresholdPercent(0.755)).toBe(76);
    expect(thresholdPercent(0.754)).toBe(75);
  });

  it('says the distance to auto-compact, or that it comes at the next step', () => {
    expect(untilWords({ ratio: 0.5, thresholdRatio: 0.8 })).toBe('30% until auto-compact');
    expect(untilWords({ ratio: 0.786, thresholdRatio: 0.8 })).toBe('1% until auto-compact');
    expect(untilWords({ ratio: 0.796, thresholdRatio: 0.8 })).toBe('auto-compact at the next step');
    expect(untilWords({ ratio: 0.8, thresholdRatio: 0.8 })).toBe('auto-compact at the next step');
    expect(untilWords({ ratio: 1.2, thresholdRatio: 0.8 })).toBe('auto-compact at the next step');
  });
});

describe('diffLineClass', () => {
  it('tints added and removed lines, mutes hunks, leaves file headers and context plain', () => {
    expect(diffLineClass('+added')).toBe('add');
    expect(diffLineClass('+')).toBe('add');
    expect(diffLineClass('++ twice')).toBe('add');
    expect(diffLineClass('-removed')).toBe('del');
    expect(diffLineClass('-- twice')).toBe('del');
    expect(diffLineClass('+++ b/file')).toBe('');
    expect(diffLineClass('--- a/file')).toBe('');
    expect(diffLineClass('@@ -1,2 +1,3 @@')).toBe('hunk');
    expect(diffLineClass('@ not a hunk')).toBe('');
    expect(diffLineClass('@@ -1,2 +1,3 @@ function f() {')).toBe('hunk');
    expect(diffLineClass(' context @@')).toBe('');
    expect(diffLineClass(' context')).toBe('');
    expect(diffLineClass('')).toBe('');
  });
});

describe('approval wording', () => {
  it('a command rule: the command, cut after 57 characters when longer than 60', () => {
    expect(ruleWords({ tool: 'bash', command: 'npm test' })).toBe('`npm test`');
    expect(ruleWords({ tool: 'bash', command: 'x'.repeat(60) })).toBe(`\`${'x'.repeat(60)}\``);
    expect(ruleWords({ tool: 'bash', command: 'x'.repeat(61) })).toBe(`\`${'x'.repeat(57)}…\``);
    expect(ruleWords({ tool: 'bash', command: '' })).toBe('``');
  });

  it('a multi-line command shows only its first line, marked as cut', () => {
    expect(ruleWords({ tool: 'bash', command: 'echo safe\nrm -rf ~' })).toBe('`echo safe…`');
    expect(ruleWords({ tool: 'bash', command: `${'y'.repeat(58)}\nmore` })).toBe(`\`${'y'.repeat(57)}…\``);
    expect(ruleWords({ tool: 'bash', command: '\nrm -rf ~' })).toBe('`…`');
  });

  it('a path rule: "writes to" for the file tools, the tool named for others; an input rule; an old rule', () => {
    expect(ruleWords({ tool: 'write_file', path: 'src/a.ts' })).toBe('writes to src/a.ts');
    expect(ruleWords({ tool: 'edit_file', path: 'src/a.ts' })).toBe('writes to src/a.ts');
    expect(ruleWords({ tool: 'mcp__fs__write', path: 'src/a.ts' })).toBe('mcp__fs__write on src/a.ts');
    expect(ruleWords({ tool: 'mcp__db__query', input: { q: 1 } })).toBe('this exact mcp__db__query call');
    expect(ruleWords({ tool: 'bash' })).toBe('nothing (an old bash rule without its scope)');
    // The command wins over a path, a path over an input.
    expect(ruleWords({ tool: 'bash', command: 'ls', path: 'x', input: {} })).toBe('`ls`');
    expect(ruleWords({ tool: 'write_file', path: 'x', input: {} })).toBe('writes to x');
  });

  it('labels the preview by its kind', () => {
    expect(previewLabel('command')).toBe('Command to approve');
    expect(previewLabel('diff')).toBe('Diff to approve');
    expect(previewLabel('input')).toBe('Input to approve');
  });

  it('offers "Approve … for this session" with what it covers, or for a call that asks every time, a note', () => {
    expect(sessionChoice({ rule: { tool: 'bash', command: 'echo a\necho b' } })).toEqual({
      label: 'Approve `echo a…` for this session',
      title: 'Do not ask again in this session for `echo a…`',
    });
    expect(sessionChoice({ rule: { tool: 'write_file', path: '.env' }, alwaysAsks: '.env is a protected path' })).toEqual({ note: 'Asks every time: .env is a protected path' });
    expect(sessionChoice({ rule: { tool: 'write_file', path: 'a' }, alwaysAsks: '' })).toEqual({ label: 'Approve writes to a for this session', title: 'Do not ask again in this session for writes to a' });
  });

  const decided = (d: Partial<ApprovalDecisionEvent>) => decisionWords({ kind: 'approval_decision', seq: 1, ts: '', callId: 'c', name: 'bash', decision: 'approve', by: 'user', ...d } as ApprovalDecisionEvent);

  it('tells each decision: by the user, a rule, a cancel, a new message, a mode switch', () => {
    expect(decided({ by: 'user', decision: 'approve' })).toBe('Approved by you');
    expect(decided({ by: 'user', decision: 'approve_session', rule: { tool: 'bash', command: 'make\nmake install' } })).toBe('Approved for this session (`make…`)');
    expect(decided({ by: 'user', decision: 'approve_session' })).toBe('Approved for this session (bash)');
    expect(decided({ by: 'user', decision: 'deny' })).toBe('Denied by you');
    expect(decided({ by: 'user', decision: 'deny', reason: 'not now' })).toBe('Denied by you: not now');
    expect(decided({ by: 'rule', rule: { tool: 'bash', command: 'ls' } })).toBe('Approved by a session rule (`ls`)');
    expect(decided({ by: 'rule' })).toBe('Approved by a session rule (bash)');
    expect(decided({ by: 'cancel', decision: 'deny' })).toBe('Denied: the turn was cancelled');
    expect(decided({ by: 'cancel', decision: 'deny', reason: 'cancelled' })).toBe('Denied: the turn was cancelled');
    expect(decided({ by: 'cancel', decision: 'deny', reason: 'forked at 12' })).toBe('Denied: forked at 12');
    expect(decided({ by: 'message', decision: 'deny' })).toBe('Denied by your new message');
    expect(decided({ by: 'message', decision: 'deny', reason: 'do X instead' })).toBe('Denied by your new message: do X instead');
    expect(decided({ by: 'mode', decision: 'deny' })).toBe("Refused: the session's mode changed");
    expect(decided({ by: 'mode', decision: 'deny', reason: 'plan mode is read-only' })).toBe('Refused: plan mode is read-only');
    expect(decided({ by: 'mode', decision: 'approve', reason: 'mode never' })).toBe('Approved: mode never');
    expect(decided({ by: 'mode', decision: 'approve' })).toBe("Approved: the session's mode changed");
  });
});

describe('mode names', () => {
  it('the picker titles a known mode with its one name and meaning; an unknown one gets no title', () => {
    for (const m of MODE_INFO) {
      expect(modePickerTitle(m.id)).toBe(`${m.id}: ${m.description}\nAlso: /mode <name>`);
      expect(modeLabel(m).startsWith(`${m.id} · `)).toBe(true);
    }
    expect(modePickerTitle('yolo')).toBe('');
    expect(modePickerTitle('')).toBe('');
  });
});
