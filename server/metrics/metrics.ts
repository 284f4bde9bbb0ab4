// GET /metrics: what the server is doing, in Prometheus' text format. Nearly
// everything is derived from the events sessions append (observe-events.ts),
// so a new feature that logs events is counted without code of its own here.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { SessionSnapshot } from '../../shared/protocol.js';

/** What the scrape reads at the moment it happens (not counted from events). */
export interface LiveSources {
  sessions: () => SessionSnapshot[];
  websocketClients: () => number;
}

const LOOP_RESOLUTION_MS = 10;
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

  /** The event loop's delay, sampled every 10 ms (perf_hooks), since the last scrape. */
  private readonly loopDelay: IntervalHistogram = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });

  constructor() {
    const live = () => this.live;
    const loop = this.loopDelay;
    loop.enable();
    const read = () => this.loopWindow;
    new Gauge({
      name: 'skein_event_loop_delay_seconds',
      help: 'How late the event loop ran a 10 ms timer since the previous scrape (perf_hooks.monitorEventLoopDelay), by quantile (0.5, 0.99)',
      labelNames: ['quantile'],
      registers: [this.registry],
      collect() {
        const w = read();
        this.set({ quantile: '0.5' }, w.p50);
        this.set({ quantile: '0.99' }, w.p99);
      },
    });
    new Gauge({
      name: 'skein_event_loop_delay_max_seconds',
      help: 'The longest the event loop was held since the previous scrape (perf_hooks.monitorEventLoopDelay)',
      registers: [this.registry],
      collect() {
        this.set(read().max);
      },
    });
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

  /** The figures of the window the current scrape reports (taken once per scrape: the gauges are collected one after another). */
  private loopWindow = { p50: 0, p99: 0, max: 0 };

  /** Closes the event loop's window: its figures are what this scrape reports, and the next window starts now. */
  private takeLoopWindow(): void {
    const loop = this.loopDelay;
    // Node records the whole interval, timer included: the delay is what exceeds it.
    const seconds = (ns: number) => (Number.isFinite(ns) ? Math.max(0, ns - LOOP_RESOLUTION_MS * 1e6) / 1e9 : 0);
    this.loopWindow = { p50: seconds(loop.percentile(50)), p99: seconds(loop.percentile(99)), max: seconds(loop.max) };
    loop.reset();
  }

  /** Stops sampling the event loop (the server is closing). */
  close(): void {
    this.loopDelay.disable();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    this.takeLoopWindow();
    return this.registry.metrics();
  }
}
