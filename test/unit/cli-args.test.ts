// The CLI's parsing, without a process: flags (unknown ones named), --approve
// and what it covers, and the task composed from the words and stdin.
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../server/cli/args.js';
import { approves, parseApprove } from '../../server/cli/approve.js';
import { EXIT } from '../../server/cli/exit-codes.js';
import { composeTask } from '../../server/cli/task.js';
import { MAX_MESSAGE_CHARS } from '../../shared/protocol.js';

describe('parseArgs', () => {
  it('names an unknown flag, with the nearest known one', () => {
    expect(() => parseArgs(['run', '--jsn', 'echo: x'])).toThrow('unknown flag --jsn (did you mean --json?)');
    expect(() => parseArgs(['run', '--frobnicate-everything', 'x'])).toThrow(/^unknown flag --frobnicate-everything; skein --help/);
    expect(() => parseArgs(['run', '-x', 'task'])).toThrow('unknown flag -x');
    const thrown = (() => {
      try {
        parseArgs(['run', '--jsn']);
      } catch (err) {
        return err;
      }
    })();
    expect(thrown).toMatchObject({ code: EXIT.usage });
  });

  it('keeps server settings for loadConfig, the task words as positionals, and migrate untouched', () => {
    const args = parseArgs(['run', '--json', '--port', '0', '--approve', 'bash', '--approve=write', 'fix', 'it']);
    expect(args).toMatchObject({ command: 'run', json: true, settings: ['--port', '0'], positionals: ['fix', 'it'] });
    expect([...args.approve.names]).toEqual(['bash', 'write']);
    expect(parseArgs(['migrate', '--from-jsonl', 'dir'])).toMatchObject({ command: 'migrate', raw: ['--from-jsonl', 'dir'], help: false });
    expect(parseArgs(['run', '--', '--not-a-flag'])).toMatchObject({ positionals: ['--not-a-flag'] });
  });
});

describe('--approve', () => {
  it('covers what it names and nothing more', () => {
    const policy = parseApprove(['write', 'mcp__files__read']);
    expect(approves(policy, 'write_file')).toBe(true);
    expect(approves(policy, 'edit_file')).toBe(true);
    expect(approves(policy, 'bash')).toBe(false);
    expect(approves(policy, 'mcp__files__read')).toBe(true);
    expect(approves(policy, 'mcp__files__write')).toBe(false);
    expect(approves(parseApprove(['mcp']), 'mcp__any__tool')).toBe(true);
    expect(approves(parseApprove(['all']), 'bash')).toBe(true);
    expect(approves(parseApprove([]), 'bash')).toBe(false);
    expect(() => parseApprove(['bsh'])).toThrow('--approve "bsh"');
    expect(() => parseApprove(['bash,'])).toThrow('--approve ""');
  });
});

describe('composeTask', () => {
  it('appends stdin in a <stdin> block, or takes it alone', () => {
    expect(composeTask(['review', 'this'], 'a\nb\n')).toBe('review this\n\n<stdin>\na\nb\n</stdin>');
    expect(composeTask(['review'], 'no newline')).toBe('review\n\n<stdin>\nno newline\n</stdin>');
    expect(composeTask([], '  the task\n')).toBe('the task');
    expect(composeTask(['just this'], ' \n')).toBe('just this');
    expect(composeTask(['just this'], undefined)).toBe('just this');
    expect(() => composeTask([], '')).toThrow('no task');
    expect(() => composeTask(['x'], 'y'.repeat(MAX_MESSAGE_CHARS))).toThrow(/the task with stdin is \d+ characters; a message holds at most/);
  });
});
