// What an editor's words pick over ACP (server/acp/commands.ts): the mode an
// ACP mode id stands for (session/set_mode and /mode), the command a prompt
// invokes (or none: a plain message), /rewind's argument, and the command
// list and help an editor shows. Every input that picks a branch, the invalid
// ones included. The same over a real connection: test/acp/acp-images-commands.test.ts.
import { describe, expect, it } from 'vitest';
import { availableCommands, helpText, isModeId, modeFor, MODES, parseRewind, parseSlash } from '../../server/acp/commands.js';

describe('acp modes', () => {
  it('each ACP mode id is the skein mode of that name, said back in words', () => {
    expect(MODES.map((m) => m.id)).toEqual(['plan', 'always', 'on-write', 'never']);
    for (const id of ['plan', 'always', 'on-write', 'never'] as const) {
      expect(modeFor(id), id).toEqual({ mode: id, said: `Approval mode: ${id}.` });
      expect(isModeId(id)).toBe(true);
    }
  });

  it('refuses any other id, naming it and the four there are (no case folding, no spaces, no near misses)', () => {
    for (const id of ['', 'PLAN', 'Plan', ' plan', 'plan ', 'onwrite', 'on_write', 'ask', 'auto', 'yolo', 'default', 'never!', 'constructor', 'toString', '__proto__']) {
      expect(modeFor(id), id).toEqual({ error: `unknown mode ${JSON.stringify(id)}: one of plan, always, on-write, never` });
      expect(isModeId(id), id).toBe(false);
    }
  });
});

describe('acp slash commands', () => {
  it('each of the eight commands, with and without an argument, trimmed', () => {
    for (const name of ['compact', 'clear', 'model', 'mode', 'fork', 'rewind', 'export', 'help']) {
      expect(parseSlash(`/${name}`), name).toEqual({ name, arg: '' });
      expect(parseSlash(`/${name}   `), name).toEqual({ name, arg: '' });
      expect(parseSlash(`  /${name} some words  `), name).toEqual({ name, arg: 'some words' });
    }
    expect(parseSlash('/compact keep the tests')).toEqual({ name: 'compact', arg: 'keep the tests' });
    expect(parseSlash('/compact\nkeep the file list\nand the plan ')).toEqual({ name: 'compact', arg: 'keep the file list\nand the plan' });
    expect(parseSlash('/compact\tkeep  two  spaces')).toEqual({ name: 'compact', arg: 'keep  two  spaces' });
    expect(parseSlash('/mode plan')).toEqual({ name: 'mode', arg: 'plan' });
    expect(parseSlash('/rewind 12 fork')).toEqual({ name: 'rewind', arg: '12 fork' });
  });

  it('a plain message is no command: a path, upper case, an unknown or glued name, a slash inside the text', () => {
    for (const text of ['/usr/bin is broken', '/usr', '/COMPACT', '/Compact keep', '/compactkeep', '/compact/now', '/unknown', '/', '/ compact', '//compact', 'compact', 'please /compact', '', '   ', '/help!', '/mode-plan']) {
      expect(parseSlash(text), JSON.stringify(text)).toBeUndefined();
    }
  });

  it("/rewind's argument: nothing lists, N or N fork rewinds, anything else is refused", () => {
    expect(parseRewind('')).toEqual({ kind: 'list' });
    expect(parseRewind('12')).toEqual({ kind: 'rewind', seq: 12, fork: false });
    expect(parseRewind('0')).toEqual({ kind: 'rewind', seq: 0, fork: false });
    expect(parseRewind('7 fork')).toEqual({ kind: 'rewind', seq: 7, fork: true });
    expect(parseRewind('7   fork')).toEqual({ kind: 'rewind', seq: 7, fork: true });
    for (const arg of ['fork', 'x', '12x', '-1', '1.5', '12 fork now', '12 forks', 'a12', '12fork', '12 FORK', ' 12']) {
      expect(parseRewind(arg), arg).toBeUndefined();
    }
  });

  it('the list an editor shows: names without the slash, ACP words, the hint of each argument', () => {
    expect(availableCommands()).toEqual([
      { name: 'compact', description: 'fold older history into a summary now, optionally focused on something', input: { hint: 'what the summary should keep (optional)' } },
      { name: 'clear', description: 'start a new session in the same folder and say its id (load it with session/load)' },
      { name: 'model', description: 'switch this session to another model at the next safe point', input: { hint: 'a model name, e.g. claude-sonnet-4-5' } },
      {
        name: 'mode',
        description: "switch this session's approval mode (plan: read-only; always: ask every time; on-write: ask before changes; never: never ask)",
        input: { hint: 'plan | always | on-write | never' },
      },
      { name: 'fork', description: 'copy this session up to now into a new one and say its id' },
      { name: 'rewind', description: 'list the points to rewind to; /rewind N puts the files back as they were at event N (shows the diff)', input: { hint: 'an event number from the list /rewind shows (add "fork" to fork there too)' } },
      { name: 'export', description: 'this session as Markdown, sent back as a resource' },
      { name: 'help', description: 'list these commands' },
    ]);
  });

  it('/help: every command with its argument and ACP words', () => {
    expect(helpText()).toBe(
      [
        'skein commands:',
        '- /compact [focus]: fold older history into a summary now, optionally focused on something',
        '- /clear: start a new session in the same folder and say its id (load it with session/load)',
        '- /model <name>: switch this session to another model at the next safe point',
        "- /mode <never|on-write|always|plan>: switch this session's approval mode (plan: read-only; always: ask every time; on-write: ask before changes; never: never ask)",
        '- /fork: copy this session up to now into a new one and say its id',
        '- /rewind: list the points to rewind to; /rewind N puts the files back as they were at event N (shows the diff)',
        '- /export: this session as Markdown, sent back as a resource',
        '- /help: list these commands',
      ].join('\n'),
    );
  });
});
