// The trajectories' delegation analysis (test/bench/delegation-trajectories.ts):
// a run of read-only calls whose outputs are never quoted later counts as
// delegable and is replayed as one short answer; an output the agent quotes
// later, or a call that changes things, stays in the parent.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyseTrajectories } from '../../bench/delegation-trajectories.js';
import { tokensOf } from '../../../server/llm/tokens.js';
import { tempDir } from '../../helpers/temp-dir.js';

let id = 0;
const call = (command: string) => ({ role: 'assistant', content: `running ${command}`, tool_calls: [{ id: `c${++id}`, name: 'bash', arguments: JSON.stringify({ command }) }] });
const result = (content: string) => ({ role: 'tool', content, tool_call_id: `c${id}` });
const big = (tag: string) => Array.from({ length: 1500 }, (_, n) => `${tag} line ${n} of a long file that nobody quotes again`).join('\n');

describe('the delegation analysis of trajectories', () => {
  it('counts unquoted read runs as delegable, and the compactions they cost at 32k', () => {
    const dir = tempDir('delegation-traj');
    const quoted = big('quoted');
    const messages = [
      { role: 'system', content: 'you are an agent' },
      { role: 'user', content: 'fix the bug' },
      call('cat a.py'),
      result(big('a')),
      call('grep -rn foo .'),
      result(big('b')),
      call('sed -n 1,400p c.py'),
      result(quoted),
      { role: 'assistant', content: `I see: ${quoted.split('\n')[7]}` },
      call('python fix.py'),
      result(big('write')),
      { role: 'assistant', content: 'done' },
    ];
    fs.writeFileSync(path.join(dir, 't.jsonl'), messages.map((m) => JSON.stringify(m)).join('\n') + '\n');
    const figures = analyseTrajectories(dir);
    const size = (m: { content: string; tool_calls?: unknown }) => tokensOf(m.content) + (m.tool_calls ? tokensOf(JSON.stringify(m.tool_calls)) : 0);
    // The cat and the grep (calls and outputs): the quoted read and the command that changes things stay.
    const runTokens = messages.slice(2, 6).reduce((n, m) => n + size(m), 0);
    expect(figures.runs).toBe(1);
    expect(figures.delegableTokens).toBe(runTokens - 200);
    expect(figures.compactions).toBeGreaterThan(figures.compactionsDelegated);
    expect(figures.files).toBe(1);
  });
});
