// Which instruction files apply (AGENTS.md, CLAUDE.md where there is none, up
// to the repository root), the size cap and its notice, change notes; the
// predictable model's commands for the new tools; the UI model's plan and
// instruction rows.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { changedEvent, findInstructionFiles, MAX_INSTRUCTIONS_CHARS, startEvent } from '../../server/agent/project-instructions.js';
import { PredictableProvider } from '../../server/llm/predictable.js';
import type { LlmRequest } from '../../server/llm/types.js';
import type { NewEvent, SkeinEvent } from '../../shared/protocol.js';
import { TimelineModel } from '../../webui/timeline-model.js';
import { tempDir } from '../helpers/temp-dir.js';

function tree(files: Record<string, string>, gitAt?: string): string {
  const root = tempDir('instr-unit');
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  if (gitAt !== undefined) fs.mkdirSync(path.join(root, gitAt, '.git'), { recursive: true });
  return root;
}

describe('finding instruction files', () => {
  it('reads AGENTS.md, else CLAUDE.md, in each folder up to the repository root, outermost first', () => {
    const root = tree({ 'AGENTS.md': 'above', 'repo/AGENTS.md': 'root', 'repo/CLAUDE.md': 'ignored: AGENTS.md wins', 'repo/a/CLAUDE.md': 'a', 'repo/a/b/AGENTS.md': 'b' }, 'repo');
    const files = findInstructionFiles(path.join(root, 'repo/a/b'));
    expect(files.map((f) => [f.path, f.text])).toEqual([
      ['../../AGENTS.md', 'root'],
      ['../CLAUDE.md', 'a'],
      ['AGENTS.md', 'b'],
    ]);
  });

  it('without a repository only the working folder counts', () => {
    const root = tree({ 'AGENTS.md': 'parent', 'work/AGENTS.md': 'mine' });
    expect(findInstructionFiles(path.join(root, 'work')).map((f) => f.text)).toEqual(['mine']);
    expect(findInstructionFiles(tree({}))).toEqual([]);
  });

  it('a directory named AGENTS.md is not a file', () => {
    const root = tree({ 'AGENTS.md/x': 'no', 'CLAUDE.md': 'yes' });
    expect(findInstructionFiles(root).map((f) => f.text)).toEqual(['yes']);
  });
});

describe('the size cap', () => {
  it('keeps the nearest file whole first, cuts the outer one, and says so in the prompt and the event', () => {
    const root = tree({ 'AGENTS.md': 'o'.repeat(30_000), 'w/AGENTS.md': 'n'.repeat(10_000) }, '');
    const files = findInstructionFiles(path.join(root, 'w'));
    const event = startEvent(files)!;
    expect(event.notice).toBe(`Project instructions are capped at 32,000 characters; shown: ../AGENTS.md: 22,000 of 30,000 characters. read_file reads the whole files.`);
    expect(event.text).toContain(`[${event.notice}]`);
    expect(event.text).toContain('n'.repeat(10_000));
    expect(event.text).toContain(`${'o'.repeat(22_000)}\n\n[../AGENTS.md is cut here; read_file reads the rest]`);
    expect(event.text).not.toContain('o'.repeat(22_001));
    expect(event.text.length).toBeLessThan(MAX_INSTRUCTIONS_CHARS + 1500);
    expect(event.files).toEqual([
      { path: '../AGENTS.md', chars: 30_000, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      { path: 'AGENTS.md', chars: 10_000, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);
  });

  it('a change note names removed files and wraps the new text', () => {
    const root = tree({ 'AGENTS.md': 'new rules' });
    const note = changedEvent(findInstructionFiles(root), [{ path: 'AGENTS.md' }, { path: '../CLAUDE.md' }]);
    expect(note.phase).toBe('changed');
    expect(note.text).toMatch(/^<skein-instructions>Automatic note from skein \(not a message from the user\): the project instructions changed\./);
    expect(note.text).toContain('Removed: ../CLAUDE.md.');
    expect(note.text).toMatch(/## AGENTS\.md\n\nnew rules<\/skein-instructions>$/);
    expect(changedEvent([], [{ path: 'AGENTS.md' }]).text).toContain('(there are no instruction files any more)');
  });
});

describe('predictable commands for the new tools', () => {
  const ask = async (text: string) => {
    const p = new PredictableProvider({ contextWindow: 100_000, maxOutputTokens: 100 });
    const request: LlmRequest = { system: 's', messages: [{ role: 'user', content: text }], tools: [], maxOutputTokens: 100, purpose: 'turn' };
    return (await p.complete(request, new AbortController().signal)).toolCalls[0];
  };
  it('glob:, grep: (with "in PATH"), list: and plan:', async () => {
    expect(await ask('glob: **/*.ts')).toMatchObject({ name: 'glob', input: { pattern: '**/*.ts' } });
    expect(await ask('grep: TODO')).toMatchObject({ name: 'grep', input: { pattern: 'TODO' } });
    expect(await ask('grep: fix(me)? in src/lib')).toMatchObject({ name: 'grep', input: { pattern: 'fix(me)?', path: 'src/lib' } });
    expect(await ask('list:')).toMatchObject({ name: 'list', input: {} });
    expect(await ask('list: src')).toMatchObject({ name: 'list', input: { path: 'src' } });
    expect(await ask('plan: [x] one; [>] two; [ ] three; four')).toMatchObject({
      name: 'update_plan',
      input: { steps: [{ step: 'one', status: 'done' }, { step: 'two', status: 'in_progress' }, { step: 'three', status: 'pending' }, { step: 'four', status: 'pending' }] },
    });
  });

  it('answers the user, not a note about changed instructions that follows', async () => {
    const p = new PredictableProvider({ contextWindow: 100_000, maxOutputTokens: 100 });
    const messages = [{ role: 'user' as const, content: 'echo: hi' }, { role: 'user' as const, content: '<skein-instructions>rules</skein-instructions>' }];
    expect((await p.complete({ system: 's', messages, tools: [], maxOutputTokens: 100, purpose: 'turn' }, new AbortController().signal)).text).toBe('hi');
  });
});

describe('the UI model', () => {
  function build(events: NewEvent[]): TimelineModel {
    const model = new TimelineModel();
    events.forEach((e, i) => model.ingest({ seq: i + 1, ts: new Date(0).toISOString(), ...e } as SkeinEvent));
    return model;
  }
  const call = (id: string, steps: unknown): NewEvent[] => [
    { kind: 'agent', text: '', model: 'm', endOfTurn: false },
    { kind: 'tool_call', callId: id, name: 'update_plan', input: { steps } },
  ];
  const result = (id: string, isError: boolean): NewEvent => ({ kind: 'tool_result', callId: id, name: 'update_plan', output: '', isError, durationMs: 1 });

  it('keeps the latest accepted plan; a refused one and a call without result change nothing', () => {
    const model = build([
      { kind: 'user', text: 'go' },
      ...call('a', [{ step: 'one', status: 'in_progress' }]),
      result('a', false),
      ...call('b', [{ step: 'x', status: 'in_progress' }, { step: 'y', status: 'in_progress' }]),
      result('b', true),
      ...call('c', [{ step: 'one', status: 'done' }]),
    ]);
    expect(model.plan).toEqual({ steps: [{ step: 'one', status: 'in_progress' }] });
    model.ingest({ seq: model.lastSeq + 1, ts: new Date(0).toISOString(), ...result('c', false) } as SkeinEvent);
    expect(model.plan).toEqual({ steps: [{ step: 'one', status: 'done' }] });
  });

  it('shows instruction events as notices, with the cap notice', () => {
    const model = build([
      { kind: 'instructions', phase: 'start', files: [{ path: 'AGENTS.md', chars: 5, sha256: 'x' }], text: 't', notice: 'capped' },
      { kind: 'instructions', phase: 'changed', files: [], text: 't' },
    ]);
    expect(model.rows.map((r) => r.kind === 'notice' && r.text)).toEqual([
      'Project instructions in the system prompt: AGENTS.md. capped',
      'Project instructions changed (none any more): sent to the agent',
    ]);
  });
});
