// The moves of the model-based test, as fast-check commands: what a user (and
// the world around the server) can do at any moment. Each runs against the
// real system and then checks every step invariant; fast-check picks random
// sequences of them and shrinks a failing one to a short one.
import fc from 'fast-check';
import type { AgentState, ApprovalDecision } from '../../shared/protocol.js';
import type { Failure } from '../fakes/brain.js';
import { stepProblems, type Observed } from './checks.js';
import { MODELS, type FakeName, type ModelName, type System } from './system.js';

/** What fast-check keeps track of between commands, to only offer moves that make sense. */
export interface Model {
  diskFull: boolean;
}

export interface Real {
  sys: System;
  observed: Observed;
}

export class SequenceFailure extends Error {}

/** Milliseconds spent per kind of move (for SKEIN_MODEL_STATS). */
export const timings = new Map<string, number>();

/** Throws with everything needed to understand the failure. */
export function fail(real: Real, problems: string[]): never {
  const { sys, observed } = real;
  throw new SequenceFailure(
    [
      ...problems.map((p) => `- ${p}`),
      'what happened (last 25 steps):',
      ...sys.journal.slice(-25).map((j) => `  ${j}`),
      'console (last 15 lines):',
      ...observed.console.slice(-15).map((l) => `  ${l.slice(0, 400)}`),
      'last events:',
      ...sys.events.slice(-12).map((e) => `  ${JSON.stringify(e).slice(0, 300)}`),
    ].join('\n'),
  );
}

abstract class Step implements fc.AsyncCommand<Model, Real> {
  check(_m: Readonly<Model>): boolean {
    return true;
  }

  async run(m: Model, real: Real): Promise<void> {
    // Input arrives as I/O does, in a task of its own, never between two steps of a promise chain.
    await new Promise((r) => setImmediate(r));
    const started = Date.now();
    await this.act(m, real);
    const kind = this.toString().replace(/\(.*/, '');
    timings.set(kind, (timings.get(kind) ?? 0) + Date.now() - started);
    const problems = stepProblems(real.sys, real.observed);
    if (problems.length) fail(real, problems);
  }

  protected abstract act(m: Model, real: Real): Promise<void> | void;
  abstract toString(): string;
}

/** The kinds of message a user types; each carries a unique tag where the model's reading allows it. */
export const MESSAGE_KINDS = ['echo', 'bash', 'sleep', 'delay', 'big', 'parallel', 'compact_history', 'error: retry', 'error: overflow', 'error: 500', 'error: overloaded'] as const;
type MessageKind = (typeof MESSAGE_KINDS)[number];

function messageText(kind: MessageKind, n: number, tag: string): string {
  switch (kind) {
    case 'echo':
      return `echo: ${tag}`;
    case 'bash':
      return `bash: echo ${tag}`;
    case 'sleep':
      return `bash: sleep 0.0${2 + (n % 5)}; echo ${tag}`;
    case 'delay':
      return `delay: ${10 + (n % 50)} ${tag}`;
    case 'big':
      return `big: ${400 + n * 40} ${tag}`;
    case 'parallel':
      return `parallel: echo ${tag}a ;; echo ${tag}b`;
    case 'compact_history':
      return `tool: compact_history {"focus":"${tag}"}`;
    default:
      return kind;
  }
}

class Say extends Step {
  constructor(
    readonly kind: MessageKind,
    readonly n: number,
  ) {
    super();
  }
  act(_m: Model, { sys }: Real) {
    sys.say(messageText(this.kind, this.n, sys.tag()));
  }
  toString() {
    return `say(${this.kind}, ${this.n})`;
  }
}

const WAITABLE = ['SendingToLLM', 'RunningTools', 'WaitingForApproval', 'Compacting', 'idle'] as const;

class WaitFor extends Step {
  constructor(readonly state: (typeof WAITABLE)[number]) {
    super();
  }
  async act(_m: Model, { sys }: Real) {
    await sys.waitFor(this.state as AgentState | 'idle', this.state === 'idle' ? 3000 : 300);
  }
  toString() {
    return `waitFor(${this.state})`;
  }
}

/** The user's answer to a call waiting for approval (when none waits: refused, nothing changes). */
class Decide extends Step {
  constructor(
    readonly decision: ApprovalDecision,
    readonly reason: string | undefined,
  ) {
    super();
  }
  async act(_m: Model, { sys }: Real) {
    // As a person does: answers once the question is on screen (or finds none when the agent goes idle).
    await sys.waitFor('WaitingForApproval', 300);
    sys.decide(this.decision, this.reason);
  }
  toString() {
    return `decide(${this.decision}${this.reason ? `, ${this.reason}` : ''})`;
  }
}

class Cancel extends Step {
  act(_m: Model, { sys }: Real) {
    sys.cancel();
  }
  toString() {
    return 'cancel';
  }
}

class Compact extends Step {
  constructor(readonly delayMs: number | undefined) {
    super();
  }
  act(_m: Model, { sys }: Real) {
    sys.say(this.delayMs === undefined ? '/compact' : `/compact delay: ${this.delayMs}`);
  }
  toString() {
    return `compact(${this.delayMs ?? ''})`;
  }
}

class Switch extends Step {
  constructor(readonly model: ModelName) {
    super();
  }
  act(_m: Model, { sys }: Real) {
    sys.switchModel(this.model);
  }
  toString() {
    return `switch(${this.model})`;
  }
}

/** A provider failure, as each fake can play it: it hits that provider's next request (a turn or a summary). */
const FAULTS: Record<FakeName, Failure[]> = {
  anthropic: [429, 500, 529, 'mid-stream', 'malformed', 'reset', 'hang'],
  openai: [429, 500, 503, 'truncated', 'malformed', 'reset', 'hang'],
  gemini: [429, 500, 503, 'malformed', 'reset', 'hang'],
  responses: [429, 500, 503],
};

class Fault extends Step {
  constructor(
    readonly fake: FakeName,
    readonly failure: Failure,
  ) {
    super();
  }
  act(_m: Model, { sys }: Real) {
    sys.fault(this.fake, this.failure);
  }
  toString() {
    return `fault(${this.fake}, ${this.failure})`;
  }
}

/** The OpenAI fake's summaries from now on take this long (past SKEIN_SUMMARIZER_TIMEOUT_MS: the fallback). */
class SlowSummary extends Step {
  constructor(readonly ms: number) {
    super();
  }
  act(_m: Model, { sys }: Real) {
    sys.journal.push(`openai summaries take ${this.ms} ms`);
    sys.fakes.openai.summaryDelayMs = this.ms;
  }
  toString() {
    return `slowSummary(${this.ms})`;
  }
}

class Disk extends Step {
  constructor(readonly full: boolean) {
    super();
  }
  override check(m: Readonly<Model>) {
    return m.diskFull !== this.full;
  }
  act(m: Model, { sys }: Real) {
    m.diskFull = this.full;
    sys.setDiskFull(this.full);
  }
  toString() {
    return this.full ? 'diskFull' : 'diskOk';
  }
}

class Restart extends Step {
  // Also while the disk is full: the session loads and closes its interrupted turn once writes succeed
  // (found by this test, seed 6: say(big), diskFull, restart).
  async act(_m: Model, real: Real) {
    const lost = await real.sys.restart();
    if (lost.length) fail(real, lost);
  }
  toString() {
    return 'restart';
  }
}

export const MOVES = ['say', 'wait', 'decide', 'cancel', 'compact', 'switch', 'fault', 'slowSummary', 'disk', 'restart'] as const;

/** Every move, weighted: mostly messages and waits, now and then the rest (`without` leaves some out, to look past a known bug). */
export function commandArbitrary(without: readonly string[] = []): fc.Arbitrary<fc.AsyncCommand<Model, Real>> {
  const fault = fc.constantFrom<FakeName>('anthropic', 'openai', 'gemini', 'responses').chain((fake) => fc.constantFrom(...FAULTS[fake]).map((f) => new Fault(fake, f)));
  const moves: Record<(typeof MOVES)[number], { weight: number; arbitrary: fc.Arbitrary<fc.AsyncCommand<Model, Real>> }> = {
    say: { weight: 10, arbitrary: fc.tuple(fc.constantFrom(...MESSAGE_KINDS), fc.nat(60)).map(([kind, n]) => new Say(kind, n)) },
    wait: { weight: 6, arbitrary: fc.constantFrom(...WAITABLE).map((s) => new WaitFor(s)) },
    decide: {
      weight: 4,
      arbitrary: fc.oneof(
        fc.constantFrom<ApprovalDecision>('approve', 'approve_session').map((d) => new Decide(d, undefined)),
        fc.option(fc.constantFrom('not now', 'use ls instead'), { nil: undefined }).map((reason) => new Decide('deny', reason)),
      ),
    },
    cancel: { weight: 2, arbitrary: fc.constant(new Cancel()) },
    compact: { weight: 2, arbitrary: fc.option(fc.integer({ min: 10, max: 80 }), { nil: undefined }).map((d) => new Compact(d)) },
    switch: { weight: 2, arbitrary: fc.constantFrom(...MODELS).map((m) => new Switch(m)) },
    fault: { weight: 2, arbitrary: fault },
    slowSummary: { weight: 1, arbitrary: fc.constantFrom(0, 150, 700).map((ms) => new SlowSummary(ms)) },
    disk: { weight: 1, arbitrary: fc.boolean().map((full) => new Disk(full)) },
    restart: { weight: 1, arbitrary: fc.constant(new Restart()) },
  };
  return fc.oneof(...MOVES.filter((m) => !without.includes(m)).map((m) => moves[m]));
}
