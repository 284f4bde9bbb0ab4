// The fakes' tokenizers (test/fakes/tokenizers.ts) measured against skein's
// own estimate on each kind of text a session carries: every one lands within
// 0.5x-2x of skein's count (a real tokenizer's spread), none is skein's count
// in disguise (far from 1.0 on some kind, and leaning differently by kind),
// and the fakes of every family count with them (not with o200k).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tokensOf } from '../../server/llm/tokens.js';
import { FLAVOUR_TOKENIZER, FLAVOURS } from '../fakes/dialects.js';
import { countWith, ratioTokenizer, TOKENIZERS, type FakeTokenizer } from '../fakes/tokenizers.js';
import { TRAJECTORIES, trajectoryFiles } from '../helpers/trajectories.js';

const read = (file: string) => fs.readFileSync(path.resolve(file), 'utf8');

/** What the recorded sessions' tools answered (real command output: test runs, tracebacks, listings). */
function toolOutputs(): string {
  const out: string[] = [];
  for (const file of trajectoryFiles().slice(0, 6)) {
    for (const line of read(path.join(TRAJECTORIES, file)).split('\n')) {
      if (!line.trim()) continue;
      const m = JSON.parse(line) as { role?: string; content?: unknown };
      if (m.role === 'tool' && typeof m.content === 'string') out.push(m.content);
    }
  }
  return out.join('\n').slice(0, 60_000);
}

/** Log lines as servers write them: timestamps, levels, ids, durations. */
function logs(): string {
  const lines: string[] = [];
  for (let i = 0; i < 400; i++) {
    const ms = (i * 7919) % 1000;
    lines.push(`2026-11-21T13:${String(17 + (i % 40)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.${String(ms).padStart(3, '0')}Z ${i % 9 === 0 ? 'WARN' : 'INFO'} [worker-${i % 8}] GET /api/v1/items/${100000 + i * 37} status=${i % 13 === 0 ? 404 : 200} bytes=${(i * 131) % 9000} took ${(i * 17) % 300}ms`);
  }
  return lines.join('\n');
}

/** Prose, code and JSON frozen in test/fixtures (skein's own files would move the ratios with every edit). */
const frozen = (name: string) => read(path.join('test/fixtures/tokenizer-samples', name));

const SAMPLES: Record<string, string> = {
  prose: frozen('prose.txt'),
  code: frozen('code.txt'),
  logs: logs(),
  'tool output': toolOutputs(),
  repeated: Array.from({ length: 300 }, () => '    at Object.<anonymous> (/srv/app/node_modules/jest-circus/build/utils.js:298:28)').join('\n'),
  JSON: frozen('json.txt'),
};

const ratio = (t: FakeTokenizer, text: string) => countWith(t, text) / tokensOf(text);

describe("the fakes' tokenizers against skein's estimate", () => {
  const table: Record<string, Record<string, string>> = {};
  for (const [name, tokenizer] of Object.entries(TOKENIZERS)) {
    it(`${tokenizer.name}: within 0.5x-2x of skein's count on every kind of text, and not skein's count`, () => {
      const ratios = Object.fromEntries(Object.entries(SAMPLES).map(([kind, text]) => [kind, ratio(tokenizer, text)]));
      table[name] = Object.fromEntries(Object.entries(ratios).map(([k, r]) => [k, r.toFixed(2)]));
      if (process.env.SHOW_RATIOS) console.log(tokenizer.name, JSON.stringify(table[name]));
      for (const [kind, r] of Object.entries(ratios)) {
        expect(r, `${tokenizer.name} on ${kind}`).toBeGreaterThanOrEqual(0.5);
        expect(r, `${tokenizer.name} on ${kind}`).toBeLessThanOrEqual(2);
      }
      const values = Object.values(ratios);
      // Not skein's count: at least one kind off by 20% or more, and it leans (kinds differ from one another by 25% or more).
      expect(Math.max(...values.map((r) => Math.abs(r - 1))), JSON.stringify(ratios)).toBeGreaterThanOrEqual(0.2);
      expect(Math.max(...values) / Math.min(...values), JSON.stringify(ratios)).toBeGreaterThanOrEqual(1.25);
    });
  }

  it('the families differ from one another (no two lean the same way on every kind)', () => {
    const all = Object.values(TOKENIZERS).map((t) => Object.values(SAMPLES).map((s) => ratio(t, s)));
    for (let a = 0; a < all.length; a++) {
      for (let b = a + 1; b < all.length; b++) {
        const gap = Math.max(...all[a]!.map((r, i) => Math.abs(r - all[b]![i]!)));
        expect(gap, `${Object.keys(TOKENIZERS)[a]} vs ${Object.keys(TOKENIZERS)[b]}`).toBeGreaterThanOrEqual(0.1);
      }
    }
  });

  it("a ratio tokenizer counts about that ratio of skein's count on every kind (within 0.7x-1.4x of it)", () => {
    for (const r of [0.5, 0.75, 1.33, 2]) {
      for (const [kind, text] of Object.entries(SAMPLES)) {
        const got = ratio(ratioTokenizer(r), text);
        expect(got / r, `ratio ${r} on ${kind}: ${got.toFixed(2)}`).toBeGreaterThanOrEqual(0.7);
        expect(got / r, `ratio ${r} on ${kind}: ${got.toFixed(2)}`).toBeLessThanOrEqual(1.4);
      }
    }
  });

  it('every flavour of OpenAI-compatible server counts with one of these', () => {
    const ours = new Set<FakeTokenizer>(Object.values(TOKENIZERS));
    for (const f of FLAVOURS) expect(ours.has(FLAVOUR_TOKENIZER[f]), f).toBe(true);
  });
});
