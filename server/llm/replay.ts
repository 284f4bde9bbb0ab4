// `replay`: plays a recorded session (the format of test/fixtures/trajectories, see its README).
// After the first user message it answers each request with the next recorded
// assistant message; tools return the recorded outputs instead of running; the
// recorded later user messages arrive at their places. Usage is counted like
// `predictable`; summaries are the deterministic ones.
import fs from 'node:fs';
import type { ViewMessage } from '../../shared/protocol.js';
import { deterministicSummary } from './deterministic-summary.js';
import { SimulatedCache, simulatedInputTokens } from './simulated-usage.js';
import { tokensOf } from './tokens.js';
import { ContextOverflowError, type LlmRequest, type LlmResponse, type ModelLimits, type Provider, type RecordedTools, type ScriptedUser } from './types.js';

export const REPLAY_FINISHED = '(replay finished: the recording has no more messages)';

interface RecordedLine {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: { id: string; name: string; arguments: string }[];
  tool_call_id?: string;
}

/** Reads a trajectory file into view messages (tool-call arguments parsed). */
export function loadTrajectory(file: string): ViewMessage[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => {
      const r = JSON.parse(line) as RecordedLine;
      return {
        role: r.role,
        content: r.content,
        ...(r.tool_calls && { toolCalls: r.tool_calls.map((c) => ({ id: c.id, name: c.name, input: JSON.parse(c.arguments) as Record<string, unknown> })) }),
        ...(r.tool_call_id && { toolCallId: r.tool_call_id }),
      };
    });
}

export class ReplayProvider implements Provider, RecordedTools, ScriptedUser {
  readonly model = 'replay';
  private readonly cache = new SimulatedCache();
  /** Index of the next recorded message to play (after system and the first user message). */
  private cursor: number;
  private readonly results = new Map<string, string>();

  constructor(
    readonly limits: ModelLimits,
    private readonly recording: ViewMessage[],
  ) {
    this.cursor = recording.findIndex((m) => m.role === 'user') + 1;
  }

  /** The recorded first user message, to start the session with. */
  get firstUserMessage(): string {
    return this.recording.find((m) => m.role === 'user')?.content ?? '';
  }

  get finished(): boolean {
    return this.cursor >= this.recording.length;
  }

  async complete(request: LlmRequest, signal: AbortSignal): Promise<LlmResponse> {
    signal.throwIfAborted();
    const inputTokens = simulatedInputTokens(request);
    if (inputTokens + request.maxOutputTokens > this.limits.contextWindow) {
      throw new ContextOverflowError(`prompt is too long: ${inputTokens} tokens + ${request.maxOutputTokens} max output > ${this.limits.contextWindow} maximum`);
    }
    const usage = this.cache.usage(request);
    if (request.purpose === 'summary') {
      const text = deterministicSummary(request);
      return { text, toolCalls: [], stopReason: 'end_turn', usage: { ...usage, output: tokensOf(text), costUsd: 0 } };
    }
    const next = this.recording[this.cursor];
    if (!next || next.role !== 'assistant') {
      return { text: REPLAY_FINISHED, toolCalls: [], stopReason: 'end_turn', usage: { ...usage, output: tokensOf(REPLAY_FINISHED), costUsd: 0 } };
    }
    this.cursor++;
    // The recorded results of this message's calls follow it.
    while (this.recording[this.cursor]?.role === 'tool') {
      const result = this.recording[this.cursor++]!;
      this.results.set(result.toolCallId ?? '', result.content);
    }
    const toolCalls = next.toolCalls ?? [];
    const output = tokensOf(next.content) + toolCalls.reduce((n, c) => n + tokensOf(JSON.stringify(c.input)), 0);
    return { text: next.content, toolCalls, stopReason: toolCalls.length ? 'tool_use' : 'end_turn', usage: { ...usage, output, costUsd: 0 } };
  }

  recordedToolResult(callId: string): { output: string; isError: boolean } | undefined {
    const output = this.results.get(callId);
    if (output === undefined) return undefined;
    const code = /<returncode>(-?\d+)<\/returncode>/.exec(output.slice(0, 100))?.[1];
    return { output, isError: code !== undefined && code !== '0' };
  }

  nextUserMessage(): string | undefined {
    const next = this.recording[this.cursor];
    if (next?.role !== 'user') return undefined;
    this.cursor++;
    return next.content;
  }
}
