// The system the model-based test drives: the real agent loop (Sessions,
// Session, Agent and the real event log on disk) with the predictable model
// and the provider fakes through their real SDKs, switchable at any moment:
// reasoning models too (claude-sonnet-5-5 against the Anthropic fake's
// preserved-thinking prefix check, gpt-5.6-terra against the Responses fake,
// which shares the OpenAI base URL with the Chat Completions fake). It records every request each provider saw, can make the session
// log refuse writes (a full disk), and restarts on the same data directory.
import fs from 'node:fs';
import path from 'node:path';
import type { AgentState, ApprovalDecision, ApprovalMode, SkeinEvent } from '../../shared/protocol.js';
import { NoPendingApprovalError } from '../../server/agent/approvals.js';
import { loadConfig, type Config } from '../../server/config.js';
import { LogWriteError } from '../../server/agent/session.js';
import { Sessions, type LiveSession } from '../../server/sessions/sessions.js';
import type { LlmRequest } from '../../server/llm/types.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic-fake.js';
import { FailurePlan, type Failure } from '../fakes/brain.js';
import { startGeminiFake, type GeminiFake } from '../fakes/gemini-fake.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { startResponsesFake, type ResponsesFake } from '../fakes/openai-responses-fake.js';
import { startOpenAIRouter, type Router } from '../fakes/openai-router.js';
import { observePredictableRequests } from '../helpers/request-rules.js';
import { tempDir } from '../helpers/temp-dir.js';
import { seenRequest, type SeenRequest } from './requests.js';

export const MODELS = ['predictable', 'claude-sonnet-4-5', 'gpt-4.1', 'gemini-2.5-pro', 'claude-sonnet-5-5', 'gpt-5.6-terra'] as const;
export type ModelName = (typeof MODELS)[number];
export type FakeName = 'anthropic' | 'openai' | 'gemini' | 'responses';
const FAKE_NAMES = ['anthropic', 'openai', 'gemini', 'responses'] as const;

/** Small enough that a few `big:` outputs compact, for every model. */
const WINDOW = 8000;

export interface Fakes {
  anthropic: AnthropicFake;
  openai: OpenAIFake;
  gemini: GeminiFake;
  responses: ResponsesFake;
  /** OPENAI_BASE_URL: /v1/responses to `responses`, the rest to `openai`. */
  router: Router;
}

/** Turn limits a sequence runs under (the defaults, or small enough to end turns early). */
export interface Limits {
  maxSteps: number;
  maxCostUsd: number;
  /** SKEIN_APPROVAL for the sequence. */
  approval: ApprovalMode;
}

export async function startFakes(): Promise<Fakes> {
  const [anthropic, openai, gemini, responses] = await Promise.all([
    startAnthropicFake({ window: WINDOW }),
    startOpenAIFake({ window: WINDOW }),
    startGeminiFake({ window: WINDOW }),
    startResponsesFake({ window: WINDOW }),
  ]);
  responses.key = openai.key!;
  const router = await startOpenAIRouter(openai.url, responses.url);
  return { anthropic, openai, gemini, responses, router };
}

export async function closeFakes(fakes: Fakes): Promise<void> {
  await Promise.all([fakes.router.close(), fakes.anthropic.close(), fakes.openai.close(), fakes.gemini.close(), fakes.responses.close()]);
}

/** What a fake refused for breaking its rules since last asked (a too-long prompt is the window's business, not a rule). */
export function takeViolations(fakes: Fakes): { fake: string; message: string }[] {
  const out: { fake: string; message: string }[] = [];
  for (const name of ['anthropic', 'openai', 'gemini'] as const) for (const v of fakes[name].violations.splice(0)) out.push({ fake: name, message: v });
  for (const v of fakes.anthropic.thinking.refusals.splice(0)) out.push({ fake: 'anthropic (thinking)', message: v });
  for (const v of fakes.responses.refusals.splice(0)) if (!/exceeds the context window/.test(v)) out.push({ fake: 'responses', message: v });
  return out;
}

/** Which session log files refuse writes right now (the disk-full switch reads it). */
export const fullDisks = new Set<string>();

export class System {
  readonly config: Config;
  sessions: Sessions;
  readonly id: string;
  /** What happened, for the report of a failing sequence. */
  readonly journal: string[] = [];
  /** Every request a provider saw, in order of arrival per provider. */
  readonly requests: SeenRequest[] = [];
  /** The log's last seq each time the disk filled up: the state chain may break after it. */
  readonly fullAfter: number[] = [];
  /** Texts of the user messages the log refused (they must never reach a model). */
  readonly refused: string[] = [];
  private readonly taken = { anthropic: 0, openai: 0, gemini: 0, responses: 0 };
  private readonly stopObserving: () => void;
  private messages = 0;

  private constructor(
    readonly fakes: Fakes,
    readonly dataDir: string,
    readonly workDir: string,
    model: ModelName,
    limits: Limits,
  ) {
    for (const fake of [fakes.anthropic, fakes.openai, fakes.gemini, fakes.responses]) {
      fake.requests.length = 0;
      fake.reported.length = 0;
      fake.failures = new FailurePlan();
    }
    takeViolations(fakes);
    fakes.openai.summaryDelayMs = 0;
    this.config = loadConfig([], {
      SKEIN_DATA_DIR: dataDir,
      SKEIN_WORKDIR: workDir,
      SKEIN_MODEL: model,
      SKEIN_CONTEXT_WINDOW: String(WINDOW),
      SKEIN_RETRY_MAX: '2',
      SKEIN_RETRY_BASE_MS: '15',
      SKEIN_REQUEST_TIMEOUT_MS: '1000',
      SKEIN_SUMMARIZER_TIMEOUT_MS: '400',
      SKEIN_BASH_TIMEOUT_MS: '5000',
      SKEIN_MAX_STEPS_PER_TURN: String(limits.maxSteps),
      SKEIN_MAX_TURN_COST_USD: String(limits.maxCostUsd),
      SKEIN_APPROVAL: limits.approval,
      ANTHROPIC_API_KEY: fakes.anthropic.key,
      ANTHROPIC_BASE_URL: fakes.anthropic.url,
      OPENAI_API_KEY: fakes.openai.key!,
      OPENAI_BASE_URL: fakes.router.url,
      GEMINI_API_KEY: fakes.gemini.key,
      GEMINI_BASE_URL: fakes.gemini.url,
    });
    this.stopObserving = observePredictableRequests((request: LlmRequest) => this.requests.push(seenRequest('predictable', request)));
    this.sessions = new Sessions(this.config);
    this.id = this.sessions.create(model).session.id;
    this.journal.push(`start with ${model} (at most ${limits.maxSteps} calls${limits.maxCostUsd ? ` and $${limits.maxCostUsd}` : ''} a turn, approval ${limits.approval})`);
  }

  static start(fakes: Fakes, model: ModelName, limits: Limits): System {
    return new System(fakes, tempDir('model-data'), tempDir('model-work'), model, limits);
  }

  get live(): LiveSession {
    const live = this.sessions.get(this.id);
    if (!live) throw new Error(`session ${this.id} is not loaded`);
    return live;
  }

  get events(): readonly SkeinEvent[] {
    return this.live.session.log.all();
  }

  get state(): AgentState {
    return this.live.agent.state;
  }

  get diskFull(): boolean {
    return fullDisks.has(this.dataDir);
  }

  /** A unique word for the next message, so each can be followed to the model. */
  tag(): string {
    return `m${++this.messages}`;
  }

  /** Sends a user message; false when the log refused it (it must then never reach the model). */
  say(text: string): boolean {
    this.journal.push(`say ${JSON.stringify(text)} (in ${this.state})`);
    try {
      this.live.session.userMessage(text);
      return true;
    } catch (err) {
      if (!(err instanceof LogWriteError)) throw err;
      this.refused.push(text);
      return false;
    }
  }

  /** The user's decision on the call waiting for approval, if one waits (a full disk refuses it: it keeps waiting). */
  decide(decision: ApprovalDecision, reason?: string): void {
    const callId = this.live.agent.approvals.waitingFor;
    this.journal.push(`${decision}${reason ? ` "${reason}"` : ''} ${callId ? `"${callId}"` : '(nothing waits)'} (in ${this.state})`);
    try {
      this.live.agent.approvals.decide(callId ?? 'call_none', decision, reason);
    } catch (err) {
      if (err instanceof NoPendingApprovalError) {
        if (callId) throw err; // the call that waited was refused: a bug
        return;
      }
      if (!(err instanceof LogWriteError)) throw err;
    }
  }

  /** Waits until idle, approving every call that asks meanwhile (the end of a sequence). */
  async settle(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await this.waitFor('idle', Math.max(0, Math.min(500, deadline - Date.now())))) return true;
      if (this.live.agent.approvals.waitingFor) this.decide('approve');
      if (Date.now() > deadline) return false;
    }
  }

  cancel(): void {
    this.journal.push(`cancel (in ${this.state})`);
    this.live.session.cancel();
  }

  switchModel(model: ModelName): void {
    this.journal.push(`switch to ${model} (in ${this.state})`);
    this.live.agent.switchModel(model);
  }

  fault(fake: FakeName, failure: Failure): void {
    this.journal.push(`${fake} fails next with ${failure}`);
    this.fakes[fake].failures.next(failure);
  }

  /** Drops the failures still planned, so the last message gets through. */
  clearFaults(): void {
    for (const name of FAKE_NAMES) this.fakes[name].failures = new FailurePlan();
  }

  setDiskFull(full: boolean): void {
    this.journal.push(full ? `disk full (in ${this.state})` : 'disk has space again');
    if (full) {
      this.fullAfter.push(this.live.session.log.lastSeq);
      fullDisks.add(this.dataDir);
    } else fullDisks.delete(this.dataDir);
  }

  /** Closes the server's sessions and loads them again from disk; returns what was lost, if anything. */
  async restart(): Promise<string[]> {
    this.journal.push(`restart (in ${this.state})`);
    const problems: string[] = [];
    const log = this.live.session.log;
    await this.sessions.close();
    // Everything the log accepted, up to its close: all of it must come back.
    const before = JSON.parse(JSON.stringify(log.all())) as SkeinEvent[];
    this.sessions = new Sessions(this.config);
    const warnings = this.sessions.loadAll().filter((w) => w.includes(this.id));
    if (warnings.length) problems.push(`restart warned: ${warnings.join('; ')}`);
    const after = this.sessions.get(this.id)?.session.log.all() ?? [];
    for (const [i, e] of before.entries()) {
      if (JSON.stringify(after[i]) !== JSON.stringify(e)) {
        problems.push(`event ${e.seq} was lost or changed across the restart: before ${JSON.stringify(e)}, after ${JSON.stringify(after[i])}`);
        break;
      }
    }
    return problems;
  }

  /** Waits until the agent is in `state` (or idle with nothing to do, or `timeoutMs` passed). */
  async waitFor(state: AgentState | 'idle', timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (state !== 'idle' && this.state === state) return true;
      if (await this.isIdle()) return state === 'idle';
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  /** Waiting for the user, with no loop running and nothing queued. */
  private async isIdle(): Promise<boolean> {
    const { agent, session } = this.live;
    const loop = agent.whenIdle();
    let settled = false;
    // A loop that failed is settled too (its rejection is what the unhandled-rejection check reports).
    loop.then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise((r) => setImmediate(r));
    return settled && agent.whenIdle() === loop && agent.state === 'WaitingForUserInput' && session.compactions.size === 0;
  }

  /** The requests the fakes received since last time, added to `requests`. */
  collect(): void {
    for (const name of FAKE_NAMES) {
      const all = this.fakes[name].requests;
      for (; this.taken[name] < all.length; this.taken[name]++) this.requests.push(seenRequest(name, all[this.taken[name]]));
    }
  }

  /** Shuts down like the server does; returns problems (a loop that outlives the shutdown). */
  async close(): Promise<string[]> {
    fullDisks.delete(this.dataDir);
    this.stopObserving();
    const agent = this.sessions.get(this.id)?.agent;
    await this.sessions.close();
    let stopped = false;
    agent?.whenIdle().then(
      () => (stopped = true),
      () => (stopped = true),
    );
    await new Promise((r) => setImmediate(r));
    const problems = agent && !stopped ? [`the agent loop still runs after the sessions closed (in ${agent.state})`] : [];
    fs.rmSync(this.dataDir, { recursive: true, force: true });
    fs.rmSync(this.workDir, { recursive: true, force: true });
    return problems;
  }
}

/** A stand-in for fs.writeSync that fails like a full disk for the session logs under a full data dir. */
export function diskFullWrite(realWrite: typeof fs.writeSync): typeof fs.writeSync {
  return ((fd: number, buffer: any, ...rest: any[]) => {
    if (fullDisks.size) {
      let file = '';
      try {
        file = fs.readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        /* not a file we know */
      }
      for (const dir of fullDisks) {
        if (file.startsWith(path.join(dir, 'sessions'))) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }
    }
    return (realWrite as any)(fd, buffer, ...rest);
  }) as typeof fs.writeSync;
}
