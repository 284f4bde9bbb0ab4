// search_history, compact_history and status notes through the real agent
// loop and the predictable model, every request recorded.
import { describe, expect, it } from 'vitest';
import { STATUS_NOTE_OPEN, type StatusEvent } from '../../shared/protocol.js';
import { defaultStrategies } from '../../server/compaction/strategies/index.js';
import { plain } from '../../server/compaction/view.js';
import { PredictableProvider } from '../../server/llm/predictable.js';
import type { LlmRequest, Provider } from '../../server/llm/types.js';
import { startAgent } from '../helpers/agent.js';

function recording(provider: Provider): Provider & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  return {
    model: provider.model,
    limits: provider.limits,
    requests,
    complete(request, signal) {
      requests.push(structuredClone(request));
      return provider.complete(request, signal);
    },
  };
}

const WINDOW = 20_000;

async function session(statusUpdates: boolean) {
  const provider = recording(new PredictableProvider({ contextWindow: WINDOW, maxOutputTokens: 1000 }));
  // The context must only grow until 85%: no stale tool results cleared on the way (clear_stale_results).
  const run = startAgent(provider, { statusUpdates, policy: { thresholdRatio: 0.95, preflight: false, everyNCalls: 0 }, strategies: defaultStrategies(3, { clearStale: false }) });
  const say = async (text: string) => {
    run.session.userMessage(text);
    await run.idle();
  };
  return { provider, run, say };
}

describe('status notes (predictable model)', () => {
  it('come every 5 LLM calls and when usage first passes 50%, 70% and 85%, as the last message of the next request, logged, system prompt untouched', async () => {
    const { provider, run, say } = await session(true);
    await say('echo: hello');
    for (let i = 0; i < 30 && !run.events().some((e) => e.kind === 'status' && e.reason === '85%'); i++) await say('big: 900');
    const events = run.events();
    const notes = events.filter((e): e is StatusEvent => e.kind === 'status');
    expect(notes.filter((n) => n.reason !== 'calls').map((n) => n.reason)).toEqual(['50%', '70%', '85%']);
    // Every 5 calls: after calls 5, 10, 15... the next request carries a note (a threshold note may take that slot).
    const calls = events.filter((e) => e.kind === 'agent').length;
    for (let m = 5; m < calls; m += 5) expect(notes.filter((n) => n.calls === m)).toHaveLength(1);
    expect(notes.filter((n) => n.reason === 'calls').every((n) => n.calls % 5 === 0)).toBe(true);
    expect(calls).toBeGreaterThan(15);
    for (const note of notes) {
      // Appended at the safe point before a request: the agent event before it is call number `calls`.
      const before = events.filter((e) => e.kind === 'agent' && e.seq < note.seq).length;
      expect(note.calls).toBe(before);
      // The next request ends with exactly this note.
      const request = provider.requests.filter((r) => r.purpose === 'turn')[before]!;
      expect(request.messages.at(-1)).toEqual({ role: 'user', content: note.text });
      expect(note.text.startsWith(STATUS_NOTE_OPEN)).toBe(true);
      expect(note.text).toContain(`of ${WINDOW.toLocaleString('en-US')} tokens used`);
      expect(note.text).toMatch(/compact_history .* search_history/);
    }
    const threshold = notes.find((n) => n.reason === '50%')!;
    const usage = events.filter((e) => e.kind === 'usage' && e.seq < threshold.seq).at(-1)!;
    expect(usage.kind === 'usage' && usage.gauge.ratio).toBeGreaterThanOrEqual(0.5);
    // The system prompt and the tools are the same bytes in every request of the session.
    const turns = provider.requests.filter((r) => r.purpose === 'turn');
    expect(new Set(turns.map((r) => r.system)).size).toBe(1);
    expect(new Set(turns.map((r) => JSON.stringify(r.tools))).size).toBe(1);
    expect(turns[0]!.system).not.toContain('Automatic status note');
    // The model answered the user, not the note.
    expect(events.filter((e) => e.kind === 'agent').every((e) => e.kind === 'agent' && !e.text.includes("I'm **predictable**"))).toBe(true);
  });

  it('are off by default: no status event, no note in any request', async () => {
    const { provider, run, say } = await session(false);
    for (let i = 0; i < 8; i++) await say('big: 900');
    expect(run.events().some((e) => e.kind === 'status')).toBe(false);
    expect(provider.requests.some((r) => r.messages.some((m) => m.content.startsWith(STATUS_NOTE_OPEN)))).toBe(false);
  });
});

describe('search_history and compact_history (predictable model)', () => {
  it('the agent reads back output that a compaction folded, and asks for a compaction itself', async () => {
    const { run, say } = await session(true);
    await say('echo: start');
    await say("bash: printf 'needle-%s\\n' folded-31");
    for (let i = 0; i < 4; i++) await say(`bash: seq ${i} 500`);
    await say('/compact');
    const viewText = () => plain(run.session.view()).map((m) => m.content).join('\n');
    expect(viewText()).not.toContain('needle-folded-31');
    expect(viewText()).toMatch(/Events \d+-\d+ of this conversation were compacted/);
    await say('tool: search_history {"query":"needle-folded"}');
    const result = run.events().filter((e) => e.kind === 'tool_result' && e.name === 'search_history').at(-1)!;
    expect(result.kind === 'tool_result' && result.isError).toBe(false);
    expect(result.kind === 'tool_result' && result.output).toMatch(/^\d matches for "needle-folded"[\s\S]*tool_result bash[\s\S]*> *2\| needle-folded-31/);
    await say('tool: search_history {"query":"unclosed(","regex":true}');
    const bad = run.events().filter((e) => e.kind === 'tool_result' && e.name === 'search_history').at(-1)!;
    expect(bad.kind === 'tool_result' && [bad.isError, bad.output.startsWith('invalid regular expression unclosed(')]).toEqual([true, true]);
    await say('tool: compact_history {"preserveRecentGroups":1}');
    const agentCompaction = run.events().find((e) => e.kind === 'compaction' && e.trigger === 'agent' && e.phase === 'finished');
    expect(agentCompaction).toBeDefined();
  });
});
