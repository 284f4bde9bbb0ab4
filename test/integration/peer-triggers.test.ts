// Each peer of the shootout triggers where its source says (test/bench/policies/*.ts),
// on a small synthetic session replayed through the real server at a 32k window:
// 90 steps, each reading a file of about 900 tokens. At 32k a trigger above
// window - max output (8,192) never fires first (skein's runner makes room for
// the answer before that): Codex's and the Cline SDK's are checked at 100k.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeCode, claudeCodeThreshold } from '../bench/policies/claude-code.js';
import { cline, CLINE_TRIGGER, clineMaxInput } from '../bench/policies/cline.js';
import { AUTO_COMPACT_SHARE, codex } from '../bench/policies/codex.js';
import type { PolicyFor } from '../bench/policies/common.js';
import { goose, GOOSE_THRESHOLD } from '../bench/policies/goose.js';
import { MASK_KEEP, observationMasking } from '../bench/policies/masking.js';
import { openCode, openCodeUsable, pruneThrough } from '../bench/policies/opencode.js';
import { MAX_SIZE, openHands } from '../bench/policies/openhands.js';
import { sketch, sketchCut, SKETCH_THRESHOLD } from '../bench/policies/sketch.js';
import { replayThroughServer, type RunStats } from '../bench/survival.js';
import { tempDir } from '../helpers/temp-dir.js';

const WINDOW = 32_000;
const STEPS = 90;
const dir = tempDir('peer-triggers');
const FILE = path.join(dir, 'synthetic.jsonl');

/** About 900 tokens of distinct text per file. */
function fileText(i: number): string {
  const lines: string[] = [];
  for (let k = 0; k < 60; k++) lines.push(`def handler_${i}_${k}(value_${k}): return compute_${(i * 7 + k) % 97}(value_${k}) + ${i * k}`);
  return lines.join('\n');
}

function writeSynthetic(): void {
  const lines: unknown[] = [{ role: 'system', content: 'recorded agent' }, { role: 'user', content: 'Read every module and report.' }];
  for (let i = 1; i <= STEPS; i++) {
    const id = `call_${i}`;
    lines.push({ role: 'assistant', content: `THOUGHT: read module ${i}.\n\n\`\`\`bash\ncat module_${i}.py\n\`\`\``, tool_calls: [{ id, name: 'bash', arguments: JSON.stringify({ command: `cat module_${i}.py` }) }] });
    lines.push({ role: 'tool', content: `<returncode>0</returncode>\n<output>\n${fileText(i)}\n</output>`, tool_call_id: id });
  }
  lines.push({ role: 'assistant', content: 'Done.' });
  fs.writeFileSync(FILE, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
}
writeSynthetic();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const run = (make: PolicyFor, window = WINDOW): Promise<RunStats> => replayThroughServer(FILE, window, make(window));
const LARGE = 100_000;
/** One step adds a call, a result of about 900 tokens, and the model's short text. */
const STEP = 1_300;

function expectTokenTrigger(r: RunStats, trigger: number): void {
  expect(r.finished).toBe(true);
  expect(r.overflows).toBe(0);
  expect(r.compactions).toBeGreaterThanOrEqual(1);
  // Not before the trigger (3% for skein's estimate against the exact count), not a step after it.
  expect(r.before[0]!).toBeGreaterThanOrEqual(0.97 * trigger);
  expect(r.before[0]!).toBeLessThan(trigger + STEP);
}

describe('each peer triggers where its source says, on a synthetic 90-step session', () => {
  it('Codex: last total plus what was added since (pre-flight) at 90% of the window (100k)', async () => {
    expectTokenTrigger(await run(codex, LARGE), AUTO_COMPACT_SHARE * LARGE);
  }, 180_000);

  it('sketch: the last reported usage at 94% (one step later than a pre-flight count could be)', async () => {
    const r = await run(sketch);
    expect(r.compactions).toBeGreaterThanOrEqual(1);
    expect(r.before[0]!).toBeGreaterThanOrEqual(0.97 * SKETCH_THRESHOLD * WINDOW);
    // sketch's own cut: only above 131,072 bytes, to 4 KB head and tail.
    expect(sketchCut('x'.repeat(131_072))).toHaveLength(131_072);
    expect(sketchCut('x'.repeat(200_000)).length).toBeLessThan(8_400);
  }, 180_000);

  it('Goose: the last reported total at 80%', async () => {
    const r = await run(goose);
    expect(r.compactions).toBeGreaterThanOrEqual(1);
    expect(r.before[0]!).toBeGreaterThanOrEqual(0.97 * GOOSE_THRESHOLD * WINDOW);
    expect(r.before[0]!).toBeLessThan(GOOSE_THRESHOLD * WINDOW + 2 * STEP);
  }, 180_000);

  it('Cline SDK: the pre-flight estimate at 0.9 x (0.9 x window) (100k)', async () => {
    expectTokenTrigger(await run(cline, LARGE), CLINE_TRIGGER * clineMaxInput(LARGE));
  }, 180_000);

  it('OpenCode: the next request at window - max output - min(20k, max output); prune never fires in one user turn', async () => {
    expectTokenTrigger(await run(openCode), openCodeUsable(WINDOW));
  }, 180_000);

  it('Claude Code (an extrapolation at 32k): window - 21,192, old results cleared first', async () => {
    const policy = claudeCode(WINDOW);
    expect(policy.extrapolated).toBe(true);
    expect(claudeCode(200_000).extrapolated).toBe(false);
    const r = await run(claudeCode);
    expect(r.compactions).toBeGreaterThanOrEqual(1);
    expect(r.before[0]!).toBeGreaterThanOrEqual(0.97 * claudeCodeThreshold(WINDOW));
  }, 180_000);

  it('OpenHands: more than 80 events (system prompt + view messages) condenses, though no token limit is near (200k)', async () => {
    const r = await run(openHands, 200_000);
    expect(r.compactions).toBeGreaterThanOrEqual(1);
    // A step adds two messages (the call and its result): the first check past 80 sees 81 or 82 events.
    expect(r.messagesBefore[0]! + 1).toBeGreaterThan(MAX_SIZE);
    expect(r.messagesBefore[0]! + 1).toBeLessThanOrEqual(MAX_SIZE + 2);
  }, 180_000);

  it('observation masking: every observation older than the last 10 is masked at every turn', async () => {
    const r = await run(observationMasking);
    expect(r.overflows).toBe(0);
    // One masking per step once 10 observations are kept (the last step's result is never read again).
    expect(r.compactions).toBeGreaterThanOrEqual(STEPS - MASK_KEEP - 2);
    // Ten observations and the agent's own messages: the 90 steps (about 117k tokens) never come near the 32k window.
    expect(Math.max(...r.contexts)).toBeLessThan(WINDOW);
  }, 180_000);
});

describe('OpenCode prune (pure)', () => {
  it('clears old outputs past the newest 40k tokens only when more than 20k would go, and never within the last two user turns', () => {
    const big = 'word '.repeat(4000); // about 4,000 tokens
    const view = (users: number) => {
      const m: { role: 'user' | 'assistant' | 'tool'; content: string; seq: number; toolCallId?: string }[] = [{ role: 'user', content: 'task', seq: 1 }];
      let seq = 2;
      for (let u = 0; u < users; u++) {
        for (let k = 0; k < 8; k++) {
          m.push({ role: 'assistant', content: '', seq: seq++ });
          m.push({ role: 'tool', content: big, seq: seq++, toolCallId: `c${seq}` });
        }
        m.push({ role: 'user', content: `next ${u}`, seq: seq++ });
      }
      return m;
    };
    // One user turn: everything is in the protected last turns.
    expect(pruneThrough(view(1) as never)).toBeUndefined();
    // Many turns: about 20 outputs of 4k past the last two turns, 40k protected, the rest cleared.
    expect(pruneThrough(view(4) as never)).toBeGreaterThan(0);
  });
});
