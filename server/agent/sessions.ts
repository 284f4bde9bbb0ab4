// All sessions of a server: created, reloaded from disk at start, listed by
// last activity.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AgentState, SessionSnapshot } from '../../shared/protocol.js';
import type { Config } from '../config.js';
import { defaultStrategies } from '../compaction/strategies/index.js';
import { createProvider } from '../llm/providers.js';
import { EventLog } from '../store/event-log.js';
import { Agent } from './agent.js';
import { Session } from './session.js';

/** How long a summary may take before the deterministic fallback is used. */
const SUMMARISER_TIMEOUT_MS = 60_000;

export interface LiveSession {
  session: Session;
  agent: Agent;
}

export class Sessions {
  private readonly live = new Map<string, LiveSession>();
  private readonly dir: string;

  constructor(private readonly config: Config) {
    this.dir = path.join(config.dataDir, 'sessions');
    fs.mkdirSync(this.dir, { recursive: true });
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
      } catch (err) {
        warnings.push(`${name}: not loaded: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return warnings;
  }

  create(model = this.config.model): LiveSession {
    createProvider(model, this.config.contextWindow); // refuse an unknown model before writing anything
    const now = new Date();
    const id = `${now.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${crypto.randomBytes(3).toString('hex')}`;
    const log = EventLog.create(path.join(this.dir, `${id}.jsonl`), { skein: 1, session: id, createdAt: now.toISOString(), model });
    return this.start(log);
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

  close(): void {
    for (const { session, agent } of this.live.values()) {
      agent.cancel();
      session.log.close();
    }
    this.live.clear();
  }

  private start(log: EventLog): LiveSession {
    const id = log.header.session;
    const { provider, info } = createProvider(log.header.model, this.config.contextWindow);
    const session = new Session(id, log, log.header.model);
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
        strategies: defaultStrategies(this.config.compactKeepToolResults),
        summariserTimeoutMs: SUMMARISER_TIMEOUT_MS,
        bashTimeoutMs: this.config.bashTimeoutMs,
        toolOutputLimit: this.config.toolOutputLimit,
      },
      initial,
    );
    const live = { session, agent };
    this.live.set(id, live);
    return live;
  }
}
