// The model-based test of the agent loop: random sequences of everything a
// user and the world can do (messages in every state, cancels, /compact,
// compact_history, model switches, provider faults, slow and failing
// summaries, a full disk, restarts) against the real loop, starting from the
// predictable model and from each provider fake (through its real SDK), with
// the invariants checked after every step (test/model/checks.ts). The
// reasoning models run against the thinking fakes (claude-sonnet-5-5: the
// Anthropic preserved-thinking prefix check; gpt-5.6-terra: the Responses
// API with encrypted reasoning items): any refusal breaks the sequence.
//
// npm test runs a few hundred sequences from a fixed seed; `npm run soak`
// runs thousands from a random one. A failure prints the seed and the path
// to replay it (SKEIN_MODEL_SEED, SKEIN_MODEL_PATH), shrunk to a short one.
import fs from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import { stepProblems, finalProblems, type Observed } from './checks.js';
import { commandArbitrary, fail, SequenceFailure, timings, type Model, type Real } from './commands.js';
import { WRITE_BACKOFF } from '../../server/agent/write-backoff.js';
import type { ApprovalMode } from '../../shared/protocol.js';
import { closeFakes, diskFullWrite, MODELS, startFakes, System, type Fakes, type Limits } from './system.js';

/**
 * Mostly the defaults; now and then limits that end turns early (one call, or
 * a few cents of fake prices); each SKEIN_APPROVAL mode (with on-write and
 * always, bash waits in WaitingForApproval for the `decide` moves).
 */
const limitsArbitrary: fc.Arbitrary<Limits> = fc.tuple(
  fc.oneof(
    { weight: 4, arbitrary: fc.constant({ maxSteps: 200, maxCostUsd: 0 }) },
    { weight: 1, arbitrary: fc.record({ maxSteps: fc.constantFrom(1, 2), maxCostUsd: fc.constantFrom(0, 0.001) }) },
  ),
  fc.constantFrom<ApprovalMode>('never', 'on-write', 'on-write', 'always'),
).map(([limits, approval]) => ({ ...limits, approval }));

const soak = process.env.SKEIN_MODEL_SOAK === '1';
const RUNS = Number(process.env.SKEIN_MODEL_RUNS ?? (soak ? 4000 : 200));
const SEED = process.env.SKEIN_MODEL_SEED !== undefined ? Number(process.env.SKEIN_MODEL_SEED) : soak ? Date.now() % 2 ** 31 : 20_261_123;
const PATH = process.env.SKEIN_MODEL_PATH;
/** fast-check's replayPath of the commands (printed with a failure). */
const REPLAY = process.env.SKEIN_MODEL_REPLAY;
const MAX_COMMANDS = Number(process.env.SKEIN_MODEL_COMMANDS ?? 14);
/** Moves to leave out (comma-separated, e.g. `disk,restart`): to look past a known bug while it is being fixed. */
const WITHOUT = (process.env.SKEIN_MODEL_WITHOUT ?? '').split(',').filter(Boolean);

let fakes: Fakes;
/** What the sequences did, printed with SKEIN_MODEL_STATS=1: proof the moves reach every state. */
const stats = new Map<string, number>();
const count = (key: string, n = 1) => stats.set(key, (stats.get(key) ?? 0) + n);
/** Requests that sent a reasoning model's own reasoning back (the thinking fakes' checks ran on them). */
const sentBack = (sys: System) => ({
  anthropic: sys.fakes.anthropic.requests.filter((r) => r.messages?.some((m: any) => m.role === 'assistant' && Array.isArray(m.content) && m.content.some((b: any) => b.type === 'thinking'))).length,
  responses: sys.fakes.responses.requests.filter((r) => Array.isArray(r.input) && r.input.some((i: any) => i.type === 'reasoning')).length,
});
const observed: Observed = { console: [], unhandled: [] };
const onUnhandled = (reason: unknown) => observed.unhandled.push(reason);
const realWrite = fs.writeSync;

beforeAll(async () => {
  fakes = await startFakes();
  // A refused write pauses the loop 1 s, then longer: small delays keep a sequence short.
  Object.assign(WRITE_BACKOFF, { firstMs: 10, maxMs: 100 });
  process.on('unhandledRejection', onUnhandled);
  vi.spyOn(fs, 'writeSync').mockImplementation(diskFullWrite(realWrite));
  for (const level of ['error', 'warn'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      observed.console.push(args.map(String).join(' '));
      if (observed.console.length > 500) observed.console.splice(0, 250);
    });
  }
});

afterAll(async () => {
  vi.restoreAllMocks();
  if (process.env.SKEIN_MODEL_STATS === '1') console.log([...stats, ...[...timings].map(([k, ms]): [string, number] => [`ms in ${k}`, ms])].sort().map(([k, n]) => `${k}: ${n}`).join('\n'));
  process.off('unhandledRejection', onUnhandled);
  await closeFakes(fakes);
});

/** One sequence: the commands, then a last message once the disk has space and no fault is queued. */
async function sequence(model: (typeof MODELS)[number], limits: Limits, commands: Iterable<fc.AsyncCommand<Model, Real>>): Promise<void> {
  observed.console.length = 0;
  observed.unhandled.length = 0;
  const time = (kind: string, since: number) => timings.set(kind, (timings.get(kind) ?? 0) + Date.now() - since);
  let t = Date.now();
  const sys = System.start(fakes, model, limits);
  time('start', t);
  const real: Real = { sys, observed };
  let ended = false;
  try {
    await fc.asyncModelRun(() => ({ model: { diskFull: false }, real }), commands);
    sys.setDiskFull(false);
    sys.clearFaults();
    t = Date.now();
    // A call still waiting for approval is approved: the user comes back.
    if (!(await sys.settle(8000))) fail(real, [`the turn never ended: the agent is still in ${sys.state}`]);
    time('settle', t);
    t = Date.now();
    const last = `echo: final ${sys.tag()}`;
    sys.say(last);
    if (!(await sys.waitFor('idle', 8000))) fail(real, [`the last message was never answered: the agent is still in ${sys.state}`]);
    time('last message', t);
    t = Date.now();
    const problems = [...stepProblems(sys, observed), ...finalProblems(sys, last)];
    time('final checks', t);
    if (problems.length) fail(real, problems);
    ended = true;
  } finally {
    for (const line of sys.journal) {
      const said = /^say "([^: ]+).* \(in (\w+)\)$/.exec(line);
      if (said) count(`message ${said[1]} in ${said[2]}`);
      else count(line.replace(/ \(in .*| m\d+|"[^"]*"/g, ''));
      // Every move that can meet a call waiting for approval, counted when it did.
      if (!said && line.endsWith('(in WaitingForApproval)')) count(`${line.replace(/ \(in .*| m\d+|"[^"]*"/g, '')} in WaitingForApproval`);
    }
    for (const e of sys.events) if (e.kind === 'compaction' || e.kind === 'error') count(`event ${e.kind} ${e.kind === 'compaction' ? `${e.phase} ${e.trigger}` : e.code}`);
    const back = sentBack(sys);
    count('requests sending Anthropic thinking back', back.anthropic);
    count('requests sending Responses reasoning items back', back.responses);
    t = Date.now();
    const leftovers = await sys.close();
    time('close', t);
    // What this sequence left behind belongs to it, not to the next one.
    await new Promise((r) => setTimeout(r, 5));
    if (ended) {
      const problems = [...leftovers, ...stepProblems(sys, observed, { afterClose: true })];
      if (problems.length) fail(real, problems);
    }
  }
}

describe('the agent loop, driven at random', () => {
  // A quarter of the sequences start from each model; every one may switch to any other.
  for (const model of MODELS) {
    it(`starting with ${model}: ${Math.ceil(RUNS / MODELS.length)} sequences of up to ${MAX_COMMANDS} moves keep every invariant (seed ${SEED})`, async () => {
      const property = fc.asyncProperty(limitsArbitrary, fc.commands([commandArbitrary(WITHOUT)], { maxCommands: MAX_COMMANDS, ...(REPLAY && { replayPath: REPLAY }) }), (limits, commands) => sequence(model, limits, commands));
      const details = await fc.check(property, { numRuns: Math.ceil(RUNS / MODELS.length), seed: SEED + MODELS.indexOf(model), ...(PATH && { path: PATH }) });
      if (details.failed) {
        const shown = `${JSON.stringify(details.counterexample?.[0])}, ${String(details.counterexample?.[1] ?? '?')}`;
        const replayPath = /replayPath="([^"]*)"/.exec(shown)?.[1];
        const moves = shown.replace(/\s*\/\*replayPath=.*\*\//, '');
        const replay = `SKEIN_MODEL_RUNS=${RUNS} SKEIN_MODEL_SEED=${SEED} SKEIN_MODEL_PATH=${details.counterexamplePath}${replayPath ? ` SKEIN_MODEL_REPLAY='${replayPath}'` : ''} npx vitest run test/model -t "starting with ${model}:"`;
        throw new Error(`seed ${SEED} (+${MODELS.indexOf(model)} for ${model}): a sequence broke an invariant after ${details.numRuns} run(s), shrunk ${details.numShrinks} time(s) to: ${moves}\nreplay: ${replay}\n${details.errorInstance instanceof SequenceFailure ? details.errorInstance.message : details.errorInstance instanceof Error ? details.errorInstance.stack : String(details.errorInstance)}`);
      }
    }, soak ? 24 * 3600_000 : 300_000);
  }
});
