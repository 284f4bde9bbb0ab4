// The event observer behind /metrics: provider and model labels, cost,
// summary usage and latency, from events alone; and the strict parser the
// metrics tests rely on refuses what a scraper would.
import { describe, expect, it } from 'vitest';
import type { NewEvent, SkeinEvent } from '../../shared/protocol.js';
import { SkeinMetrics } from '../../server/metrics/metrics.js';
import { eventObserver } from '../../server/metrics/observe-events.js';
import { parsePrometheusText, total } from '../helpers/prom-text.js';

let seq = 0;
const at = (ms: number, e: NewEvent): SkeinEvent => ({ ...e, seq: ++seq, ts: new Date(Date.UTC(2026, 0, 1) + ms).toISOString() }) as SkeinEvent;
const usage = { input: 100, cacheRead: 50, cacheWrite: 10, output: 20, costUsd: 0.25, reasoning: 5 };

describe('metrics from events', () => {
  it('labels requests by provider and model, adds cost and tokens by kind and purpose, times requests from SendingToLLM', async () => {
    const metrics = new SkeinMetrics();
    const observe = eventObserver(metrics, { modelOf: () => 'gpt-4.1', summarizerModel: 'claude-haiku-4-5' });
    observe('s1', at(0, { kind: 'state', from: 'WaitingForUserInput', to: 'SendingToLLM', reason: '' }));
    observe('s1', at(0, { kind: 'error', code: 'retrying', message: 'gpt-4.1 (429): slow down. Retrying in 1.0 s (retry 1 of 4).' }));
    observe('s1', at(2500, { kind: 'agent', text: 'hi', model: 'gpt-4.1', endOfTurn: true, usage }));
    observe('s1', at(2600, { kind: 'compaction', phase: 'finished', trigger: 'threshold', strategy: 'summarize', tokensBefore: 9000, tokensAfter: 2000, summariserUsage: { ...usage, costUsd: 0.01 } }));
    observe('s1', at(2700, { kind: 'compaction', phase: 'failed', trigger: 'manual', error: 'no', fallback: 'deterministic' }));
    const m = parsePrometheusText(await metrics.text());
    const gpt = { provider: 'openai', model: 'gpt-4.1' };
    expect(total(m, 'skein_llm_requests_total', gpt)).toBe(1);
    expect(total(m, 'skein_llm_request_duration_seconds', gpt, 'skein_llm_request_duration_seconds_sum')).toBe(2.5);
    expect(total(m, 'skein_llm_cost_usd_total', { ...gpt, purpose: 'turn' })).toBe(0.25);
    expect(total(m, 'skein_llm_cost_usd_total', { provider: 'anthropic', model: 'claude-haiku-4-5', purpose: 'summary' })).toBe(0.01);
    expect(total(m, 'skein_llm_tokens_total', { ...gpt, kind: 'reasoning' })).toBe(5);
    expect(total(m, 'skein_llm_retries_total', { ...gpt, status: '429' })).toBe(1);
    expect(total(m, 'skein_compaction_tokens_saved_total', { trigger: 'threshold', strategy: 'summarize' })).toBe(7000);
    expect(total(m, 'skein_compactions_total', { trigger: 'manual', outcome: 'failed', strategy: 'deterministic' })).toBe(1);
  });

  it('the strict parser refuses a sample without TYPE, a bad escape, a duplicate series and non-cumulative buckets', () => {
    expect(() => parsePrometheusText('x 1\n')).toThrow(/no TYPE/);
    expect(() => parsePrometheusText('# TYPE x counter\nx{a="\\q"} 1\n')).toThrow(/bad escape/);
    expect(() => parsePrometheusText('# TYPE x gauge\nx{a="1"} 1\nx{a="1"} 2\n')).toThrow(/twice/);
    const hist = '# TYPE h histogram\nh_bucket{le="1"} 3\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 2\n';
    expect(() => parsePrometheusText(hist)).toThrow(/cumulative/);
    expect(() => parsePrometheusText('# TYPE x counter\nx -1\n')).toThrow(/counter/);
  });
});
