// What the fake providers answer: the predictable model's deterministic logic
// (echo:, bash:, big:, error: ...), plus `parallel: A ;; B ;; C` for parallel
// bash calls, and the deterministic summary when asked to compact. The fakes
// only translate it to and from each provider's wire format.
import { IN_PLACE_OPEN } from '../../server/compaction/summarizer.js';
import { deterministicSummary } from '../../server/llm/deterministic-summary.js';
import { PredictableProvider } from '../../server/llm/predictable.js';
import { ContextOverflowError, ProviderError } from '../../server/llm/types.js';
import type { ViewMessage } from '../../shared/protocol.js';
import { UNCHECKED } from '../helpers/request-rules.js';

export interface Conversation {
  system: string;
  /** Tool calls carry the ids the wire gave them; tool results point at them. */
  messages: ViewMessage[];
  /** Summary requests come without tools. */
  hasTools: boolean;
}

export type Answer =
  | { kind: 'answer'; text: string; calls: { name: string; input: Record<string, unknown> }[]; summary: boolean }
  | { kind: 'overflow' }
  | { kind: 'fail'; status: number };

export class Brain {
  private readonly predictable = new PredictableProvider({ contextWindow: 100_000_000, maxOutputTokens: 100_000 });

  constructor() {
    // The fake checks the wire request by its provider's rules; this is its own reading of it.
    UNCHECKED.add(this.predictable);
  }

  async answer(c: Conversation): Promise<Answer> {
    // A compaction's summary request: no tools and the folded history as a <transcript>, or the
    // conversation itself ending in a summary request (server/compaction/summarizer.ts, inPlaceRequest).
    const inPlace = c.messages.at(-1)?.role === 'user' && c.messages.at(-1)!.content.includes(IN_PLACE_OPEN);
    if (inPlace || (!c.hasTools && c.messages.some((m) => m.role === 'user' && m.content.includes('<transcript>')))) {
      const text = deterministicSummary({ system: c.system, messages: c.messages, tools: [], maxOutputTokens: 2048, purpose: 'summary' });
      return { kind: 'answer', text, calls: [], summary: true };
    }
    const last = c.messages.at(-1);
    const parallel = last?.role === 'user' ? /^parallel:\s*([\s\S]+)$/i.exec(last.content.trim()) : null;
    if (parallel) {
      const commands = parallel[1]!.split(';;').map((s) => s.trim()).filter(Boolean);
      return { kind: 'answer', text: `Running ${commands.length} commands at once.`, calls: commands.map((command) => ({ name: 'bash', input: { command } })), summary: false };
    }
    try {
      const r = await this.predictable.complete({ system: c.system, messages: c.messages, tools: [], maxOutputTokens: 1000, purpose: 'turn' }, new AbortController().signal);
      return { kind: 'answer', text: r.text, calls: r.toolCalls.map(({ name, input }) => ({ name, input })), summary: false };
    } catch (err) {
      if (err instanceof ContextOverflowError) return { kind: 'overflow' };
      if (err instanceof ProviderError) return { kind: 'fail', status: err.status ?? 500 };
      throw err;
    }
  }
}

/**
 * Planned failures: each request takes the next one. A status; a stream that
 * breaks off mid-answer (`mid-stream`, Anthropic's error event); no answer at
 * all (`hang`, for timeouts); a body that is not JSON (`malformed`); a stream
 * that ends early without its last events (`truncated`, OpenAI's); the
 * connection dropped before any answer (`reset`). Every fake plays statuses,
 * `hang`, `malformed` and `reset`.
 */
export type Failure = number | 'mid-stream' | 'hang' | 'malformed' | 'truncated' | 'reset';

export class FailurePlan {
  private queue: Failure[] = [];

  next(...failures: Failure[]): void {
    this.queue.push(...failures);
  }

  take(): Failure | undefined {
    return this.queue.shift();
  }
}

/** What a fake reported for one successful response, in its own wire shape. */
export interface Reported<U> {
  usage: U;
  summary: boolean;
  streamed: boolean;
}
