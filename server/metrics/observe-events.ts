// Turns the events sessions append into metrics: one hook on append, no
// counting calls sprinkled through the agent. The only state kept is per
// session: when its current request was sent (for the latency).
import type { SkeinEvent, Usage } from '../../shared/protocol.js';
import { parseModelName } from '../llm/providers.js';
import type { SkeinMetrics } from './metrics.js';

export type EventObserver = (sessionId: string, event: SkeinEvent) => void;

export interface ObserverContext {
  /** The session's model now (the retry events name no model). */
  modelOf: (sessionId: string) => string | undefined;
  /** The model that writes summaries, when SKEIN_SUMMARIZER_MODEL sets one. */
  summarizerModel: string | undefined;
}

const TURN_OUTCOMES = { EndOfTurn: 'completed', Cancelled: 'cancelled', Error: 'error' } as const;

function providerOf(model: string): string {
  if (model === 'predictable' || model === 'replay') return model;
  return parseModelName(model)?.provider ?? 'unknown';
}

export function eventObserver(metrics: SkeinMetrics, context: ObserverContext): EventObserver {
  const sentAt = new Map<string, number>();
  const countUsage = (model: string, usage: Usage, purpose: 'turn' | 'summary') => {
    const labels = { provider: providerOf(model), model, purpose };
    const kinds: [string, number | undefined][] = [
      ['input', usage.input],
      ['output', usage.output],
      ['cache_read', usage.cacheRead],
      ['cache_write', usage.cacheWrite],
      ['reasoning', usage.reasoning],
    ];
    for (const [kind, n] of kinds) if (n) metrics.tokens.inc({ ...labels, kind }, n);
    if (usage.costUsd) metrics.cost.inc(labels, usage.costUsd);
  };

  return (sessionId, event) => {
    switch (event.kind) {
      case 'state':
        if (event.to === 'SendingToLLM') sentAt.set(sessionId, Date.parse(event.ts));
        if (event.to in TURN_OUTCOMES) metrics.turns.inc({ outcome: TURN_OUTCOMES[event.to as keyof typeof TURN_OUTCOMES] });
        return;
      case 'agent': {
        const labels = { provider: providerOf(event.model), model: event.model };
        metrics.llmRequests.inc(labels);
        const sent = sentAt.get(sessionId);
        if (sent !== undefined) metrics.llmLatency.observe(labels, Math.max(0, Date.parse(event.ts) - sent) / 1000);
        sentAt.delete(sessionId);
        if (event.usage) countUsage(event.model, event.usage, 'turn');
        return;
      }
      case 'compaction': {
        if (event.phase !== 'finished' && event.phase !== 'failed') return;
        const strategy = event.strategy ?? event.strategies?.at(-1) ?? event.fallback ?? 'none';
        metrics.compactions.inc({ trigger: event.trigger, strategy, outcome: event.phase });
        if (event.phase === 'finished' && event.tokensBefore !== undefined && event.tokensAfter !== undefined) {
          metrics.tokensSaved.inc({ trigger: event.trigger, strategy }, Math.max(0, event.tokensBefore - event.tokensAfter));
        }
        if (event.summariserUsage) countUsage(context.summarizerModel ?? context.modelOf(sessionId) ?? 'unknown', event.summariserUsage, 'summary');
        return;
      }
      case 'error': {
        if (event.code === 'retrying') {
          const model = context.modelOf(sessionId) ?? 'unknown';
          // The retry notice names the status, e.g. "gpt-4.1 (429): rate limited. Retrying in…".
          const status = /^\S+ \((\d{3})\):/.exec(event.message)?.[1] ?? 'none';
          metrics.retries.inc({ provider: providerOf(model), model, status });
        } else {
          metrics.errors.inc({ code: event.code ?? 'unknown' });
        }
        return;
      }
      case 'tool_result':
        metrics.toolCalls.inc({ tool: event.name, outcome: event.isError ? 'error' : 'ok' });
        metrics.toolDuration.observe({ tool: event.name }, event.durationMs / 1000);
        return;
      default:
        return;
    }
  };
}
