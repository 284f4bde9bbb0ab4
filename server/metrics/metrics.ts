// GET /metrics: what the server is doing, in Prometheus' text format. Nearly
// everything is derived from the events sessions append (observe-events.ts),
// so a new feature that logs events is counted without code of its own here.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { SessionSnapshot } from '../../shared/protocol.js';

/** What the scrape reads at the moment it happens (not counted from events). */
export interface LiveSources {
  sessions: () => SessionSnapshot[];
  websocketClients: () => number;
}

const SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export class SkeinMetrics {
  readonly registry = new Registry();
  private live: LiveSources = { sessions: () => [], websocketClients: () => 0 };

  readonly turns = new Counter({ name: 'skein_turns_total', help: 'Turns ended, by how they ended (completed, cancelled, error)', labelNames: ['outcome'], registers: [this.registry] });
  readonly llmRequests = new Counter({ name: 'skein_llm_requests_total', help: 'Model answers received, by provider and model', labelNames: ['provider', 'model'], registers: [this.registry] });
  readonly llmLatency = new Histogram({
    name: 'skein_llm_request_duration_seconds',
    help: 'Time from sending a request to recording its answer (retries included), by provider and model',
    labelNames: ['provider', 'model'],
    buckets: SECONDS,
    registers: [this.registry],
  });
  readonly tokens = new Counter({
    name: 'skein_llm_tokens_total',
    help: 'Tokens by provider, model, kind (input, output, cache_read, cache_write, reasoning) and purpose (turn, summary)',
    labelNames: ['provider', 'model', 'kind', 'purpose'],
    registers: [this.registry],
  });
  readonly cost = new Counter({ name: 'skein_llm_cost_usd_total', help: 'Model cost in US dollars, by provider, model and purpose (turn, summary)', labelNames: ['provider', 'model', 'purpose'], registers: [this.registry] });
  readonly compactions = new Counter({
    name: 'skein_compactions_total',
    help: 'Compactions ended, by trigger, strategy (the last that ran) and outcome (finished, failed)',
    labelNames: ['trigger', 'strategy', 'outcome'],
    registers: [this.registry],
  });
  readonly tokensSaved = new Counter({ name: 'skein_compaction_tokens_saved_total', help: 'Context tokens removed by finished compactions, by trigger and strategy', labelNames: ['trigger', 'strategy'], registers: [this.registry] });
  readonly retries = new Counter({ name: 'skein_llm_retries_total', help: 'Requests retried after a transient failure, by provider, model and HTTP status (none: a timeout or lost connection)', labelNames: ['provider', 'model', 'status'], registers: [this.registry] });
  readonly errors = new Counter({ name: 'skein_errors_total', help: 'Error events recorded in session logs, by code', labelNames: ['code'], registers: [this.registry] });
  readonly toolCalls = new Counter({ name: 'skein_tool_calls_total', help: 'Tool calls finished, by tool and outcome (ok, error)', labelNames: ['tool', 'outcome'], registers: [this.registry] });
  readonly toolDuration = new Histogram({ name: 'skein_tool_duration_seconds', help: 'Tool run time, by tool', labelNames: ['tool'], buckets: SECONDS, registers: [this.registry] });

  constructor() {
    const live = () => this.live;
    new Gauge({
      name: 'skein_sessions',
      help: 'Sessions loaded in this server, by agent state',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const s of live().sessions()) this.inc({ state: s.state });
      },
    });
    new Gauge({
      name: 'skein_websocket_clients',
      help: 'WebSocket clients connected now',
      registers: [this.registry],
      collect() {
        this.set(live().websocketClients());
      },
    });
  }

  /** Connects the gauges read at scrape time (the sessions and the hub exist after the metrics). */
  connect(live: LiveSources): void {
    this.live = live;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
