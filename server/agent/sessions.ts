// All sessions of a server: created, reloaded from disk at start, listed by
// last activity.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AgentState, SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import type { Config } from '../config.js';
import type { CompactionStrategy } from '../compaction/pipeline.js';
import { defaultStrategies } from '../compaction/strategies/index.js';
import type { Provider } from '../llm/types.js';
import { createProvider, createProviderOrPlaceholder, type ProviderChoice } from '../llm/providers.js';
import { warmTokenizer } from '../llm/tokens.js';
import type { NamedSecret } from '../tools/env.js';
import { EventLog } from '../store/event-log.js';
import { Agent } from './agent.js';
import { modelServices, providerSettings, type ModelServices } from './model-switch.js';
import { Session } from './session.js';
import { log as logger } from '../log.js';

export interface SessionOptions {
  strategies?: CompactionStrategy[];
  /** Cap a huge tool result as it arrives (default true). */
  resultCap?: boolean;
  /** Values masked in every tool output (the access token, which is not in the environment). */
  toolSecrets?: NamedSecret[];
  /** Stands between a session and its provider (benchmarks: a server whose real window is smaller than skein is told). */
  wrapProvider?: (provider: Provider) => Provider;
  /** Sees every event any session appends, after it is on disk (metrics). */
  onEvent?: (sessionId: string, event: SkeinEvent) => void;
}

export interface LiveSession {
  session: Session;
  agent: Agent;
}

export class Sessions {
  private readonly live = new Map<string, LiveSession>();
  private readonly dir: string;
  private readonly models: ModelServices;

  constructor(
    private readonly config: Config,
    /** In-code choices with no setting: another compaction pipeline, no result cap (benchmarks use them). */
    private readonly options: SessionOptions = {},
  ) {
    this.dir = path.join(config.dataDir, 'sessions');
    fs.mkdirSync(this.dir, { recursive: true });
    this.models = modelServices(config);
  }

  /** Reloads every session log; interrupted turns are closed. Returns warnings for the server log. */
  loadAll(): string[] {
    const warnings: string[] = [];
    for (const name of fs.readdirSync(this.dir).filter((f) => f.endsWith('.jsonl')).sort()) {
      const file = path.join(this.dir, name);
      try {
        const { log, report } = EventLog.open(file);
        if (report.tornTail !== undefined) warnings.push(`${name}: skipped a torn last line (${report.tornTail.length} bytes) from a crash mid-write`);
        if (report.badLines.length) warnings.push(`${name}: skipped unreadable lines ${report.badLines.join(', ')}`);
        const live = this.start(log);
        live.agent.recoverInterrupted();
        // Compactions that were queued and never started run now.
        if (live.session.compactions.size) live.agent.wake();
      } catch (err) {
        warnings.push(`${name}: not loaded: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return warnings;
  }

  create(model = this.config.model): LiveSession {
    // Refuses an unknown model, or one whose provider has no key, before writing anything.
    const choice = createProvider(model, providerSettings(this.config));
    const now = new Date();
    const id = `${now.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${crypto.randomBytes(3).toString('hex')}`;
    const log = EventLog.create(path.join(this.dir, `${id}.jsonl`), { skein: 1, session: id, createdAt: now.toISOString(), model });
    const live = this.start(log, choice);
    if (choice.warning) {
      logger.warn(choice.warning, { session: id });
      live.session.append({ kind: 'error', message: choice.warning, code: 'unknown_model' });
    }
    return live;
  }

  get(id: string): LiveSession | undefined {
    return this.live.get(id);
  }

  /** Most recent activity first. */
  list(): SessionSnapshot[] {
    return [...this.live.values()]
      .map((l) => l.session.snapshot())
      .sort((a, b) => b.lastActivity.localeCompare(a.lastActivity));
  }

  /** Graceful shutdown: running turns are cancelled (tools killed), their last events written, logs closed. */
  async close(graceMs = 3000): Promise<void> {
    const lives = [...this.live.values()];
    // No new turn starts from here on: a message typed now is logged, not answered.
    for (const { agent } of lives) agent.close();
    const idle = Promise.all(lives.map(({ agent }) => agent.whenIdle()));
    await Promise.race([idle, new Promise((r) => setTimeout(r, graceMs).unref())]);
    for (const { session } of lives) session.log.close();
    this.live.clear();
  }

  /** `choice`: the provider create() already made (a replay reads its recording once). */
  private start(log: EventLog, choice?: ProviderChoice): LiveSession {
    const id = log.header.session;
    // Only a server with no session at all goes without the tokenizer (most of an idle server's memory).
    warmTokenizer();
    // The model of the last switch, if any; a model whose key is gone still loads (it says why when used).
    const model = log.last('model')?.to ?? log.header.model;
    const made = choice ?? createProviderOrPlaceholder(model, providerSettings(this.config));
    const { info } = made;
    const provider = this.options.wrapProvider ? this.options.wrapProvider(made.provider) : made.provider;
    // The effort last set with the model picker, else SKEIN_REASONING_EFFORT.
    const effort = [...log.all()].reverse().find((e) => e.kind === 'model' && e.effort !== undefined);
    const session = new Session(id, log, model, effort?.kind === 'model' ? effort.effort : this.config.reasoningEffort);
    const onEvent = this.options.onEvent;
    // From now on only: what the log held before this server started is not counted again.
    if (onEvent) session.subscribe(log.lastSeq, (event) => onEvent(id, event));
    const lastState = log.last('state');
    const initial: AgentState = lastState?.to ?? 'WaitingForUserInput';
    const agent = new Agent(
      session,
      provider,
      info,
      {
        workDir: this.config.workDir,
        contextWindow: info.contextWindow,
        targetRatio: this.config.compactTargetRatio,
        policy: {
          thresholdRatio: this.config.compactThresholdRatio,
          preflight: this.config.compactPreflight,
          everyNCalls: this.config.compactEveryNCalls,
        },
        strategies: this.options.strategies ?? defaultStrategies(this.config.compactKeepToolResults),
        resultCap: this.options.resultCap ?? true,
        summariserTimeoutMs: this.config.summarizerTimeoutMs,
        models: this.models,
        bashTimeoutMs: this.config.bashTimeoutMs,
        toolOutputLimit: this.config.toolOutputLimit,
        tools: { envAllow: this.config.toolEnvAllow, secrets: this.options.toolSecrets ?? [] },
        maxStepsPerTurn: this.config.maxStepsPerTurn,
        maxTurnCostUsd: this.config.maxTurnCostUsd,
        statusUpdates: this.config.statusUpdates,
      },
      initial,
    );
    const live = { session, agent };
    this.live.set(id, live);
    return live;
  }
}
