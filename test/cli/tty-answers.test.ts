// What a user can type at the CLI's questions on a real terminal: Enter, a
// blank line, garbage, Ctrl-D (EOF) and each valid answer. Garbage decides
// nothing (asked again) or is a no; the default is the safe one (not
// trusted, nothing approved); the decision recorded (the session log's
// approval_decision, trust.json) is asserted, not only its effect.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TRUST_FILE } from '../../server/trust/store.js';
import { loggedEvents, sessionIdOf } from '../helpers/cli-session.js';
import { stdioEntry, writeMcpJson } from '../helpers/mcp.js';
import { onTerminal, type TerminalRun } from '../helpers/terminal.js';
import { tempDir } from '../helpers/temp-dir.js';

const SLOW = { timeout: 300_000 };
const QUESTION = '[d]eny: ';
const terminals: TerminalRun[] = [];
afterEach(() => {
  for (const t of terminals.splice(0)) t.kill();
});

function start(args: string[], env: Record<string, string>): TerminalRun {
  const t = onTerminal(args, env);
  terminals.push(t);
  return t;
}

const dirs = () => ({ SKEIN_DATA_DIR: tempDir('tty-data'), SKEIN_WORKDIR: tempDir('tty-work'), SKEIN_APPROVAL: 'on-write' });
const decisions = (dataDir: string, output: string) => loggedEvents(dataDir, sessionIdOf(output)).filter((e) => e.kind === 'approval_decision');

describe('skein run: the approval question on a terminal', () => {
  it('Enter, a blank line and garbage decide nothing and ask again; then "no" denies', SLOW, async () => {
    const env = dirs();
    const t = start(['run', 'bash: touch made'], env);
    const typed = ['\r', '   \r', 'yess\r', 'approve it\r', 'ok\r'];
    for (const [i, keys] of typed.entries()) {
      await t.shown(QUESTION, i + 1);
      expect(decisions(env.SKEIN_DATA_DIR, t.output())).toEqual([]);
      t.type(keys);
    }
    await t.shown(QUESTION, typed.length + 1);
    expect(decisions(env.SKEIN_DATA_DIR, t.output())).toEqual([]);
    t.type('no\r');
    await t.exited;
    expect(fs.existsSync(path.join(env.SKEIN_WORKDIR, 'made'))).toBe(false);
    expect(decisions(env.SKEIN_DATA_DIR, t.output())).toEqual([expect.objectContaining({ decision: 'deny', by: 'user' })]);
  });

  it('Ctrl-D (stdin ends) approves nothing: the call is denied and nothing runs', SLOW, async () => {
    const env = dirs();
    const t = start(['run', 'bash: touch made'], env);
    await t.shown(QUESTION);
    t.type('\x04');
    await t.exited;
    expect(fs.existsSync(path.join(env.SKEIN_WORKDIR, 'made'))).toBe(false);
    expect(decisions(env.SKEIN_DATA_DIR, t.output()).map((e) => e.kind === 'approval_decision' && e.decision)).toEqual(['deny']);
  });

  // Each word the question takes, typed with the case and spaces a user adds, and the decision it sends.
  const answers: [string, 'approve' | 'approve_session' | 'deny'][] = [
    ['a', 'approve'],
    [' Yes ', 'approve'],
    ['always', 'approve_session'],
    ['D', 'deny'],
  ];
  for (const [typed, decision] of answers) {
    it(`"${typed}" sends ${decision}`, SLOW, async () => {
      const env = dirs();
      const t = start(['run', 'bash: touch made'], env);
      await t.shown(QUESTION);
      t.type(`${typed}\r`);
      await t.exited;
      expect(decisions(env.SKEIN_DATA_DIR, t.output())).toEqual([expect.objectContaining({ decision, by: 'user' })]);
      expect(fs.existsSync(path.join(env.SKEIN_WORKDIR, 'made'))).toBe(decision !== 'deny');
    });
  }
});

describe('skein trust: the question on a terminal', () => {
  const TRUST_QUESTION = '[y/N] ';
  // What is typed, and whether the folder ends up trusted: only y / yes (any case) trusts; Enter, blank, garbage, n and Ctrl-D do not.
  const answers: [string, boolean][] = [
    ['\r', false],
    ['   \r', false],
    ['sure\r', false],
    ['yess\r', false],
    ['n\r', false],
    ['\x04', false],
    ['Y\r', true],
    [' yes \r', true],
  ];
  for (const [typed, trusted] of answers) {
    it(`${JSON.stringify(typed)} ${trusted ? 'trusts the folder' : 'leaves the folder untrusted'}`, SLOW, async () => {
      const dataDir = tempDir('tty-trust-data');
      const folder = tempDir('tty-trust-work');
      writeMcpJson(folder, { local: stdioEntry() });
      const t = start(['trust', folder], { SKEIN_DATA_DIR: dataDir });
      await t.shown(TRUST_QUESTION);
      t.type(typed);
      await t.exited;
      const store = path.join(dataDir, TRUST_FILE);
      const recorded = fs.existsSync(store) ? fs.readFileSync(store, 'utf8') : '';
      expect(recorded.includes('"trusted"'), `${recorded}\n${t.output()}`).toBe(trusted);
      expect(t.output()).toMatch(trusted ? /Trusted .*\.mcp\.json/ : /Not trusted|stdin ended/);
    });
  }
});
