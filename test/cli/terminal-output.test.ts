// What `skein run` and `skein sessions` print for a person: on a terminal the
// agent's Markdown is rendered (headings, bold, code, lists, fences) with
// styles; in a pipe the text stays as the model wrote it, without a single
// escape code; --json is the same JSON lines either way (a contract); states
// are said in words. The terminal is a real one: util-linux `script` gives the
// CLI a pseudo-terminal as its stdout.
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentState, SkeinEvent } from '../../shared/protocol.js';
import { EXIT } from '../../server/cli/exit-codes.js';
import { TextRenderer } from '../../server/cli/render.js';
import { jsonEvents, runCli, SOURCE_CLI, startCli } from '../helpers/cli.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const SLOW = { timeout: 300_000 };
const ESC = '\x1b';
const dirs = () => ({ SKEIN_DATA_DIR: tempDir('cli-tty-data'), SKEIN_WORKDIR: tempDir('cli-tty-work') });

const ANSWER = ['# Plan', '', 'Some **bold** words and `npm test`.', '', '- first step', '- second step', '', '```sh', 'echo **not bold**', '```', 'Done.'].join('\n');

/** The CLI with a pseudo-terminal for stdin and stdout (what a person at a terminal has); CRLF back to LF. */
async function onTerminal(args: string[], env: Record<string, string>) {
  const quoted = [...SOURCE_CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = await runCli([], env, { command: ['script', '-qfec', quoted, '/dev/null'] });
  return { ...r, stdout: r.stdout.replace(/\r\n/g, '\n') };
}

describe('skein run in text mode', () => {
  it('on a terminal renders the Markdown: heading, bold and code styled, bullets, the fence gone and its lines indented', SLOW, async () => {
    const r = await onTerminal(['run', `echo: ${ANSWER}`], dirs());
    expect(r.code, r.stdout).toBe(EXIT.ok);
    const lines = r.stdout.split('\n');
    expect(lines).toContain(`${ESC}[1;4mPlan${ESC}[22;24m`);
    expect(lines).toContain(`Some ${ESC}[1mbold${ESC}[22m words and ${ESC}[36mnpm test${ESC}[39m.`);
    expect(lines).toContain('• first step');
    expect(lines).toContain('• second step');
    expect(lines).toContain(`${ESC}[2m  sh${ESC}[22m`);
    // Inside a fence nothing is a mark: the asterisks stay.
    expect(lines).toContain(`  ${ESC}[36mecho **not bold**${ESC}[39m`);
    expect(lines).toContain('Done.');
    expect(lines.some((l) => l.startsWith('```') || l.startsWith('# ') || l.startsWith('- '))).toBe(false);
  });

  it('in a pipe prints the answer as the model wrote it, with no escape code', SLOW, async () => {
    const r = await runCli(['run', `echo: ${ANSWER}`], dirs());
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(r.stdout).toContain(`${ANSWER}\n`);
    expect(r.stdout).not.toContain(ESC);
  });

  it('--json on a terminal is the same event lines as in a pipe, without styles', SLOW, async () => {
    const env = dirs();
    const tty = await onTerminal(['run', '--json', `echo: ${ANSWER}`], env);
    expect(tty.code, tty.stdout).toBe(EXIT.ok);
    // The terminal also shows stderr (the session line): the JSON lines are the ones that start with "{".
    const events = jsonEvents(tty.stdout.split('\n').filter((l) => l.startsWith('{')).join('\n'));
    expect(events.find((e) => e.kind === 'agent')).toMatchObject({ kind: 'agent', text: ANSWER });
    expect(events.at(-1)).toMatchObject({ kind: 'state', to: 'WaitingForUserInput' });
    expect(tty.stdout).not.toContain(ESC);
  });
});

describe('states in words', () => {
  it('skein sessions says what each session is doing; skein run on a busy session says it joins the turn', SLOW, async () => {
    const server = await startTestServer();
    servers.push(server);
    const env = { SKEIN_TOKEN: server.token };
    const idle = server.sessions.create('predictable').session;
    const busy = server.sessions.create('predictable').session;
    busy.userMessage('delay: 120000');
    await expect.poll(() => busy.state, { timeout: 60_000 }).toBe('SendingToLLM');

    const list = await runCli(['sessions', '--server', server.url], env);
    expect(list.code, list.stderr).toBe(EXIT.ok);
    expect(list.stdout).toMatch(new RegExp(`^${idle.id} {2}waiting for you +  predictable`, 'm'));
    expect(list.stdout).toMatch(new RegExp(`^${busy.id} {2}thinking +  predictable`, 'm'));
    expect(list.stdout).not.toMatch(/WaitingForUserInput|SendingToLLM/);
    // The state column is as wide as its widest word: the model column starts at one place.
    const modelColumn = list.stdout.split('\n').filter(Boolean).map((l) => l.indexOf('predictable'));
    expect(new Set(modelColumn).size).toBe(1);

    const joining = startCli(['run', '--server', server.url, '--session', busy.id, 'echo: joined'], env);
    await expect.poll(() => joining.stderr(), { timeout: 60_000 }).toContain('skein: the session is busy (thinking): the task joins its current turn');
    await busy.cancel();
    const ended = await joining.result;
    expect(ended.stderr).not.toMatch(/SendingToLLM/);
  });
});

describe('TextRenderer', () => {
  const agent = (text: string): SkeinEvent => ({ seq: 1, ts: '2026-01-01T00:00:00.000Z', kind: 'agent', text }) as SkeinEvent;
  const state = (to: AgentState): SkeinEvent => ({ seq: 2, ts: '2026-01-01T00:00:00.000Z', kind: 'state', from: 'SendingToLLM', to, reason: 'x' }) as SkeinEvent;

  it("styles only the agent's text, after its own control characters are made visible", () => {
    const styled = new TextRenderer(undefined, { styled: true });
    const [line] = styled.lines(agent('**ok** \x1b[2J\x1b]0;pwn\x07 > [docs](https://example.com)'));
    expect(line).toBe(`${ESC}[1mok${ESC}[22m \\x1b[2J\\x1b]0;pwn\\x07 > docs (https://example.com)`);
    // Only the sequences added here remain: each ESC starts one of ours.
    expect(line!.split(ESC).slice(1).every((s) => /^\[(1|22)m/.test(s))).toBe(true);
    expect(styled.lines(state('Error'))).toEqual(['── turn failed']);
    expect(new TextRenderer().lines(agent('# Plan\n- **a**'))).toEqual(['# Plan\n- **a**']);
  });

  it('keeps snake_case, arithmetic and lone asterisks as written; a quote gets a bar; an unclosed fence stays code', () => {
    const styled = new TextRenderer(undefined, { styled: true });
    const [text] = styled.lines(agent('call my_var_name with 2 * 3 * 4\n> quoted *word*\n---\n```\nno end'));
    expect(text!.split('\n')).toEqual([
      'call my_var_name with 2 * 3 * 4',
      `${ESC}[2m│${ESC}[22m quoted ${ESC}[3mword${ESC}[23m`,
      `${ESC}[2m${'─'.repeat(40)}${ESC}[22m`,
      `  ${ESC}[36mno end${ESC}[39m`,
    ]);
  });
});
