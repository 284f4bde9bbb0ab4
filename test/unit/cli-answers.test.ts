// Every answer a user can give at the CLI's questions on a terminal, and the
// decision it makes: `skein run`'s approval question (each answer word, any
// case, Enter, blank, garbage: asked again; Ctrl-D: nothing decided) and
// `skein trust`'s [y/N] (only y or yes trusts; Enter, blank, garbage, no and
// Ctrl-D leave the file untrusted). The decision is read where it is recorded:
// the decision sent to the server, trust.json.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApprovalRequestEvent } from '../../shared/protocol.js';
import { approvalAnswer, trustAnswer } from '../../server/cli/answers.js';
import type { Api } from '../../server/cli/api.js';
import { answerApproval } from '../../server/cli/approval-prompt.js';
import type { CliArgs } from '../../server/cli/args.js';
import { trustCommand } from '../../server/cli/trust.js';
import { TrustStore } from '../../server/trust/store.js';
import { tempDir } from '../helpers/temp-dir.js';

const WORDS = { a: 'approve', approve: 'approve', y: 'approve', yes: 'approve', s: 'approve_session', always: 'approve_session', d: 'deny', deny: 'deny', n: 'deny', no: 'deny' } as const;
const NOTHING = ['', ' ', '\t', '\n', 'x', 'ok', 'sure', 'ye', 'yess', 'ap', 'approved', 'al', 'never', 'q', 'y e s', 'a s', '1', 'constructor', 'toString', '__proto__', 'hasOwnProperty'];

describe('approval answers on a terminal', () => {
  it('each answer word names its decision, whatever its case and the blanks around it', () => {
    for (const [word, decision] of Object.entries(WORDS)) {
      expect(approvalAnswer(word), word).toBe(decision);
      expect(approvalAnswer(` ${word.toUpperCase()}\n`), word).toBe(decision);
    }
    expect(approvalAnswer('Always')).toBe('approve_session');
  });

  it('Enter, blanks and anything else decide nothing (no default)', () => {
    for (const typed of NOTHING) expect(approvalAnswer(typed), JSON.stringify(typed)).toBeUndefined();
  });

  const request = { kind: 'approval_request', seq: 4, ts: '', name: 'bash', callId: 'c1', input: { command: 'rm -rf build' }, preview: { kind: 'command', text: 'rm -rf build' }, rule: { tool: 'bash', command: 'rm -rf build' } } as ApprovalRequestEvent;

  /** Types each of `answers` in turn (an Error: Ctrl-D), and says what was sent and how often it asked. */
  async function prompt(answers: (string | Error)[]) {
    const sent: string[] = [];
    const asked: string[] = [];
    const api = { decide: async (session: string, callId: string, decision: string) => void sent.push(`${session}/${callId}:${decision}`) } as unknown as Api;
    const typed = [...answers];
    const result = answerApproval(request, { all: false, names: new Set() }, api, 's1', {
      err: () => {},
      ask: async (question) => {
        asked.push(question);
        const next = typed.shift();
        if (next === undefined) throw new Error('asked once more than the test answers');
        if (next instanceof Error) throw next;
        return next;
      },
    });
    return { result: await result.then((r) => r ?? 'sent', (err: Error) => err), sent, asked };
  }

  it('sends the decision typed, asking again until an answer names one', async () => {
    for (const [word, decision] of Object.entries(WORDS)) {
      const { result, sent, asked } = await prompt(['', '  ', 'maybe', word]);
      expect(result).toBe('sent');
      expect(sent, word).toEqual([`s1/c1:${decision}`]);
      expect(asked).toHaveLength(4);
    }
  });

  it('Ctrl-D decides nothing: the question fails (the run then cancels the turn)', async () => {
    const eof = new Error('stdin ended before an answer');
    const { result, sent, asked } = await prompt(['?', eof]);
    expect(result).toBe(eof);
    expect(sent).toEqual([]);
    expect(asked).toHaveLength(2);
  });

  it('the question says what "always" does for a call that always asks', async () => {
    const { asked } = await prompt(['a']);
    expect(asked[0]).toBe('Run bash `rm -rf build`? [a]pprove, [s] always (this session), [d]eny: ');
    const sent: string[] = [];
    const api = { decide: async (_s: string, _c: string, d: string) => void sent.push(d) } as unknown as Api;
    const questions: string[] = [];
    await answerApproval({ ...request, alwaysAsks: 'a protected path' }, { all: false, names: new Set() }, api, 's1', { err: () => {}, ask: async (q) => (questions.push(q), 's') });
    expect(questions).toEqual(['Run bash `rm -rf build`? [a]pprove, [s] always (this session, though it asks again), [d]eny: ']);
    expect(sent).toEqual(['approve_session']);
  });
});

describe('skein trust answers', () => {
  it('only y and yes trust, in any case and with blanks around', () => {
    for (const typed of ['y', 'yes', 'Y', 'YES', ' yes\n', 'Yes']) expect(trustAnswer(typed), typed).toBe(true);
    for (const typed of [...NOTHING.filter((t) => t !== 'y' && t !== 'yes'), 'n', 'no', 'N', 'trust', 'a', 'always']) expect(trustAnswer(typed), JSON.stringify(typed)).toBe(false);
  });

  const args = (dataDir: string, folder: string): CliArgs => ({ command: 'trust', positionals: [folder], settings: ['--data-dir', dataDir], yes: false, list: false, revoke: false } as unknown as CliArgs);

  /** `skein trust` on a folder with a .mcp.json, the user typing `typed`: what trust.json records and what was printed. */
  async function trustWith(typed: string | Error) {
    const dataDir = tempDir('cli-answers-data');
    const folder = tempDir('cli-answers-work');
    fs.writeFileSync(path.join(folder, '.mcp.json'), JSON.stringify({ mcpServers: { s: { command: 'node', args: ['server.js'] } } }));
    const out: string[] = [];
    const result = await trustCommand(args(dataDir, folder), {}, {
      out: (t: string) => void out.push(t),
      err: () => {},
      ask: async () => {
        if (typed instanceof Error) throw typed;
        return typed;
      },
    } as never).then((code) => code, (err: Error) => err);
    return { result, decision: new TrustStore(dataDir).get(fs.realpathSync(folder), '.mcp.json')?.decision, out: out.join('') };
  }

  it('y and yes record the file as trusted', async () => {
    for (const typed of ['y', 'YES ']) {
      const { result, decision, out } = await trustWith(typed);
      expect(result).toBe(0);
      expect(decision, typed).toBe('trusted');
      expect(out).toContain('Trusted ');
    }
  });

  it('Enter, blank, garbage and no record nothing', async () => {
    for (const typed of ['', '   ', 'sure', 'n', 'no', 'yess']) {
      const { result, decision, out } = await trustWith(typed);
      expect(result).toBe(0);
      expect(decision, JSON.stringify(typed)).toBeUndefined();
      expect(out).toContain('Not trusted.');
    }
  });

  it('Ctrl-D records nothing', async () => {
    const eof = new Error('stdin ended before an answer');
    const { result, decision } = await trustWith(eof);
    expect(result).toBe(eof);
    expect(decision).toBeUndefined();
  });
});
