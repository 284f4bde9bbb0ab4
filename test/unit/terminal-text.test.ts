// forTerminal, shellQuoted and jsonForTerminal: every class of character a
// terminal would obey (or that hides or reorders text) comes out as a visible
// escape; ordinary text, tabs and (where kept) newlines come out as they are.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { ApprovalRequestEvent } from '../../shared/protocol.js';
import { answerApproval, describeCall } from '../../server/cli/approval-prompt.js';
import type { Api } from '../../server/cli/api.js';
import { forTerminal, jsonForTerminal, shellQuoted } from '../../server/cli/terminal-text.js';
import { TextRenderer } from '../../server/cli/render.js';
import { describeFile } from '../../server/trust/describe.js';
import { RAW_CONTROL } from '../helpers/raw-control.js';


const CASES: [string, string, string][] = [
  ['ESC (a CSI that clears the line)', '\x1b[2K', '\\x1b[2K'],
  ['CR (overwrites the line)', 'safe\rEVIL', 'safe\\rEVIL'],
  ['BEL (ends an OSC title)', '\x1b]0;title\x07', '\\x1b]0;title\\x07'],
  ['backspace', 'abc\b\b', 'abc\\b\\b'],
  ['DEL', 'a\x7fb', 'a\\x7fb'],
  ['NUL', 'a\0b', 'a\\0b'],
  ['vertical tab and form feed', 'a\vb\fc', 'a\\vb\\fc'],
  ['C1 CSI (0x9b)', 'a\x9b2Jb', 'a\\x9b2Jb'],
  ['C1 range ends (0x80, 0x9f)', '\x80\x9f', '\\x80\\x9f'],
  ['RLO bidi override', 'abc\u202edef', 'abc\\u202edef'],
  ['LRE..PDF', '\u202a\u202b\u202c\u202d', '\\u202a\\u202b\\u202c\\u202d'],
  ['bidi isolates', '\u2066\u2067\u2068\u2069', '\\u2066\\u2067\\u2068\\u2069'],
  ['LRM, RLM, ALM', '\u200e\u200f\u061c', '\\u200e\\u200f\\u061c'],
  ['zero-width space, word joiner, BOM, soft hyphen', '\u200b\u2060\ufeff\u00ad', '\\u200b\\u2060\\ufeff\\xad'],
  ['line and paragraph separators', '\u2028\u2029', '\\u2028\\u2029'],
  ['tag characters (invisible, astral)', 'x\u{e0041}\u{e007f}', 'x\\u{e0041}\\u{e007f}'],
];

describe('forTerminal', () => {
  it.each(CASES)('%s is shown as an escape', (_, raw, shown) => {
    expect(forTerminal(raw)).toBe(shown);
    expect(forTerminal(raw)).not.toMatch(RAW_CONTROL);
  });

  it('keeps ordinary text, tabs, emoji sequences (ZWJ) and newlines; a one-line context shows \\n', () => {
    const text = 'héllo wörld — 日本語 \\x1b literal\tcol\n👨‍👩‍👧 and نص';
    expect(forTerminal(text)).toBe(text);
    expect(forTerminal('a\nb', { multiline: false })).toBe('a\\nb');
    // A CRLF line ending overwrites nothing: kept as a newline; a lone CR is not.
    expect(forTerminal('a\r\nb\rc')).toBe('a\nb\\rc');
    expect(forTerminal('a\r\nb', { multiline: false })).toBe('a\\r\\nb');
  });
});

describe('shellQuoted: an argument exactly as it will run', () => {
  it.each([
    ['plain', 'plain'],
    ['a b', "'a b'"],
    ["it's", `'it'\\''s'`],
    ['\r\x1b[2K', "$'\\r\\x1b[2K'"],
    ["hid\x1b[8mden 'q' \\", "$'hid\\x1b[8mden \\'q\\' \\\\'"],
    ['tab\there', "$'tab\\there'"],
    ['x\u202ey', "$'x\\u202ey'"],
    ['tag\u{e0041}', "$'tag\\U000e0041'"],
  ])('%j is shown as %s, which bash reads back as the same argument', (arg, shown) => {
    expect(shellQuoted(arg)).toBe(shown);
    expect(shellQuoted(arg)).not.toMatch(RAW_CONTROL);
    expect(execFileSync('bash', ['-c', `printf %s ${shellQuoted(arg)}`]).toString()).toBe(arg);
  });
});

describe('jsonForTerminal', () => {
  it('escapes what JSON.stringify leaves raw (DEL, C1, bidi, tags) and parses back to the same value', () => {
    const value = { title: 'a\x7f\x9b\u202e\u2066\u{e0041}\x1b\n"b"' };
    const json = jsonForTerminal(value);
    expect(json).not.toMatch(RAW_CONTROL);
    expect(json).toContain('\\u202e');
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe('where skein prints untrusted text', () => {
  it("skein run's renderer: an answer keeps its lines, with no raw control or bidi character; tool errors and tool calls too", () => {
    const r = new TextRenderer();
    const agent = r.lines({ kind: 'agent', text: 'first\u202e line\n\x1b[8mhidden\x1b[0m\rshown' } as never);
    expect(agent).toEqual(['first\\u202e line\n\\x1b[8mhidden\\x1b[0m\\rshown']);
    const error = r.lines({ kind: 'tool_result', name: 'bash', isError: true, output: 'exit code: 1\n\x1b]52;c;cGF5bG9hZA==\x07' } as never);
    expect(error.join('')).not.toMatch(RAW_CONTROL);
    expect(error.join('')).toContain('\\x1b]52;c;cGF5bG9hZA==\\x07');
    const call = r.lines({ kind: 'tool_call', name: 'bash', input: { command: 'echo \u2067safe\u2069' } } as never);
    expect(call).toEqual(['• bash echo \\u2067safe\\u2069']);
  });

  it('an approval prompt on a terminal shows the preview and the call escaped, question included', async () => {
    const request = {
      kind: 'approval_request',
      name: 'bash',
      callId: 'c1',
      input: { command: 'rm -rf ~ \x1b[8m# harmless\x1b[0m' },
      preview: { text: 'rm -rf ~ \x1b[8m# harmless\x1b[0m\nsecond line\u202e' },
      alwaysAsks: false,
    } as unknown as ApprovalRequestEvent;
    const printed: string[] = [];
    const decided: string[] = [];
    const api = { decide: async (_s: string, _c: string, d: string) => void decided.push(d) } as unknown as Api;
    await answerApproval(request, { names: new Set(), all: false }, api, 's1', {
      err: (t) => void printed.push(t),
      ask: async (q) => (printed.push(q), 'd'),
    });
    expect(decided).toEqual(['deny']);
    const all = printed.join('');
    expect(all).not.toMatch(RAW_CONTROL);
    expect(all).toContain('rm -rf ~ \\x1b[8m# harmless\\x1b[0m\nsecond line\\u202e');
    expect(describeCall(request)).toBe('bash `rm -rf ~ \\x1b[8m# harmless\\x1b[0m`');
  });

  it("the trust prompt's description: arguments as they will run, the file's diff and error escaped", () => {
    const text = describeFile({
      path: '/work/repo\x1b[2K/.mcp.json',
      sha256: '0'.repeat(64),
      status: 'changed',
      error: 'bad \x1b[8m',
      diff: '+ "args": ["\x1b[8m"]',
      servers: [
        { name: 'x', transport: 'stdio', command: 'sh', args: ['-c', 'echo hi\r\x1b[2K', '\x1b[8m'], env: { K: 'v\u202e' } },
        { name: 'h', transport: 'http', url: 'http://h/\x1b[8m', headerNames: ['X-\x07'] },
      ],
    } as never);
    expect(text).not.toMatch(RAW_CONTROL);
    expect(text).toContain("x: runs sh -c $'echo hi\\r\\x1b[2K' $'\\x1b[8m'");
    expect(text).toContain("with K=$'v\\u202e'");
    expect(text).toContain('/work/repo\\x1b[2K/.mcp.json');
    expect(text).toContain('http://h/\\x1b[8m');
  });
});
