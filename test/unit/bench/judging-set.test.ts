// The judging set (test/bench/judging): sessions of other agents that skein
// is judged on and never tuned on. It is whole (every call answered once, in
// the replay format), large enough (30+ sessions, 2+ agents), apart from the
// shared and held-out sets, reported apart by the shootout only when asked,
// and read by no other code in the repository: the benches a tuning run uses
// (survival, cost, the shootout by default) and the test helpers read the
// shared set.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JUDGING, trajectorySets } from '../../bench/shootout.js';
import { TRAJECTORIES } from '../../helpers/trajectories.js';

const DIR = path.resolve('test/bench/judging/trajectories');
const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.jsonl')).sort();

interface Line {
  role: string;
  content: string;
  tool_calls?: { id: string; name: string; arguments: string }[];
  tool_call_id?: string;
}
const read = (file: string): Line[] =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Line);

describe('the judging set', () => {
  it('holds at least 30 whole sessions of at least two agents other than the shared set’s', () => {
    expect(files.length).toBeGreaterThanOrEqual(30);
    const agents = new Set(files.map((f) => f.split('__')[0]!.replace(/-.*$/, '')));
    expect(agents.size).toBeGreaterThanOrEqual(2);
    expect([...agents].some((a) => a.startsWith('mini'))).toBe(false);
  });

  it('is in the replay format: every call answered exactly once, right after it', { timeout: 60_000 }, () => {
    for (const f of files) {
      const lines = read(path.join(DIR, f));
      expect(lines.find((l) => l.role === 'user'), f).toBeDefined();
      const seen = new Set<string>();
      for (let i = 0; i < lines.length; i++) {
        expect(['system', 'user', 'assistant', 'tool'], f).toContain(lines[i]!.role);
        expect(typeof lines[i]!.content, f).toBe('string');
        if (lines[i]!.role === 'tool') expect.fail(`${f}:${i + 1}: a result without its call`);
        const ids = (lines[i]!.tool_calls ?? []).map((c) => c.id);
        for (const c of lines[i]!.tool_calls ?? []) expect(() => JSON.parse(c.arguments) as unknown, f).not.toThrow();
        for (const id of ids) {
          expect(seen.has(id), `${f}: ${id} twice`).toBe(false);
          seen.add(id);
        }
        const results: string[] = [];
        while (lines[i + 1]?.role === 'tool') results.push(lines[++i]!.tool_call_id ?? '');
        expect(results.sort(), `${f}:${i + 1}`).toEqual(ids.sort());
      }
    }
  });

  it('shares no session with the shared or held-out sets (no first user message in common)', { timeout: 60_000 }, () => {
    const firstUser = (file: string) => read(file).find((l) => l.role === 'user')!.content;
    const others = ['test/fixtures/trajectories', 'test/bench/heldout/trajectories'].flatMap((d) =>
      fs.readdirSync(d).filter((f) => f.endsWith('.jsonl')).map((f) => firstUser(path.join(d, f))),
    );
    for (const f of files) expect(others, f).not.toContain(firstUser(path.join(DIR, f)));
  });
});

describe('kept out of every tuning run', () => {
  it('the shootout reports it only when asked, and apart; the test helpers and benches default to the shared set', () => {
    expect(JUDGING).toBe(DIR);
    expect(trajectorySets({}).map((s) => s.name)).toEqual(['shared']);
    expect(trajectorySets({ SKEIN_TRAJECTORIES: 'test/bench/heldout/trajectories' }).map((s) => s.name)).toEqual(['shared', 'second (trajectories)']);
    expect(trajectorySets({ SKEIN_JUDGING: '1' }).map((s) => s.name)).toEqual(['shared', 'judging']);
    // Named through SKEIN_TRAJECTORIES it is still the judging set, never a second set that could be mistaken for held-out data.
    expect(trajectorySets({ SKEIN_TRAJECTORIES: DIR }).map((s) => s.name)).toEqual(['shared', 'judging']);
    expect(trajectorySets({ SKEIN_SHOOTOUT_SETS: 'judging' }).map((s) => s.name)).toEqual(['judging']);
    if (!process.env.SKEIN_TRAJECTORIES) expect(TRAJECTORIES).toBe(path.resolve('test/fixtures/trajectories'));
  });

  it('no code in the repository but the shootout reads its folder (skein, its defaults, the other benches, tests, scripts)', { timeout: 60_000 }, () => {
    const tracked = execFileSync('git', ['ls-files'], { encoding: 'utf8' }).split('\n').filter(Boolean);
    // Markdown may name it; the set's own folder and this test are about it; the shootout judges on it.
    const allowed = (f: string) => f.endsWith('.md') || f.startsWith('test/bench/judging/') || f === 'test/bench/shootout.ts' || f === 'test/unit/bench/judging-set.test.ts';
    const readers = tracked.filter((f) => !allowed(f) && /\.(ts|mts|js|mjs|cjs|py|sh|json|ya?ml)$/.test(f) && fs.existsSync(f) && /bench\/judging|judging\/trajectories/.test(fs.readFileSync(f, 'utf8')));
    expect(readers).toEqual([]);
  });
});
