// The kind index (store/kind-index.ts) that a session's start asks instead of
// passing over every event: built in slices it is the linear scan's answer,
// it follows appends, and a session started from it (open(): the log read
// and indexed in slices) is the session a synchronous load starts.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NewEvent, SkeinEvent } from '../../shared/protocol.js';
import { loadConfig } from '../../server/config.js';
import { EventLog } from '../../server/store/event-log.js';
import { KindIndex } from '../../server/store/kind-index.js';
import { LogReads } from '../../server/store/log-reads.js';
import { liveSession } from '../../server/sessions/session-factory.js';
import { modelServices } from '../../server/agent/model-switch.js';
import type { LiveSession } from '../../server/agent/live-session.js';
import { tempDir } from '../helpers/temp-dir.js';

const KINDS = ['user', 'agent', 'tool_call', 'tool_result', 'state', 'usage', 'model'] as const;

function mixed(count: number): SkeinEvent[] {
  return Array.from({ length: count }, (_, i) => ({ seq: i + 1, ts: '', kind: KINDS[(i * 7 + (i >> 3)) % KINDS.length]!, name: i % 3 ? 'bash' : 'update_plan' }) as unknown as SkeinEvent);
}

describe('kind index', () => {
  it('built in slices, gives every kind the positions and last event a pass over the events finds, and follows appends', async () => {
    const events = mixed(20_000);
    const index = new KindIndex(events);
    let yields = 0;
    await index.build(0, async () => {
      yields++;
      await new Promise((r) => setImmediate(r));
    });
    // A slice of 0 ms yields after every batch: the loop had turns.
    expect(yields).toBeGreaterThan(5);
    const check = () => {
      for (const kind of [...KINDS, 'compaction'] as const) {
        const scanned = events.flatMap((e, i) => (e.kind === kind ? [i] : []));
        expect(index.of(kind)).toEqual(scanned);
        expect(index.last(kind)).toBe(events.findLast((e) => e.kind === kind));
        expect(index.eventsOf(kind)).toEqual(events.filter((e) => e.kind === kind));
      }
      for (const name of ['bash', 'update_plan', 'none']) expect(index.resultsOf(name)).toEqual(events.flatMap((e, i) => (e.kind === 'tool_result' && e.name === name ? [i] : [])));
    };
    check();
    events.push(...mixed(50).map((e, i) => ({ ...e, seq: 20_001 + i })));
    check();
  });
});

/** One of each thing a start reads back from a log, among `filler` ordinary events. */
function startLog(filler: number): NewEvent[] {
  const plan = (step: string) => [
    { kind: 'tool_call', callId: `p-${step}`, name: 'update_plan', input: { steps: [{ step, status: 'in_progress' }] } },
    { kind: 'tool_result', callId: `p-${step}`, name: 'update_plan', output: 'ok', isError: false, durationMs: 1 },
  ];
  const out: unknown[] = [
    { kind: 'instructions', phase: 'start', files: [{ path: 'AGENTS.md', chars: 5, sha256: 'x' }], text: 'be brief' },
    { kind: 'user', text: '/compact' },
    { kind: 'user', text: 'the real first message\nsecond line' },
    { kind: 'model', from: 'predictable', to: 'predictable', contextWindow: 100_000, effort: 'high' },
    ...plan('first plan'),
    { kind: 'approval_decision', callId: 'c0', name: 'bash', decision: 'approve_session', by: 'user', rule: { tool: 'bash', command: 'make' } },
    { kind: 'limits', model: 'predictable', contextWindow: 9000, maxOutputTokens: 2250, source: 'refusal', via: 'refusal: ...' },
    { kind: 'compaction', phase: 'queued', trigger: 'manual' },
    { kind: 'compaction', phase: 'queued', trigger: 'agent', instructions: 'keep the plan' },
    { kind: 'compaction', phase: 'started', trigger: 'manual' },
  ];
  for (let i = 0; i < filler; i++) {
    out.push(i % 2 ? { kind: 'tool_call', callId: `f${i}`, name: 'bash', input: { command: `echo ${i}` } } : { kind: 'tool_result', callId: `f${i - 1}`, name: 'bash', output: `out ${i}`, isError: false, durationMs: 1 });
    if (i === filler >> 1) out.push({ kind: 'model', from: 'predictable', to: 'predictable', contextWindow: 100_000, effort: 'low' }, ...plan('second plan'), { kind: 'mode', from: 'on-write', to: 'never' });
  }
  out.push({ kind: 'approval_decision', callId: 'c9', name: 'bash', decision: 'approve_session', by: 'user', rule: { tool: 'bash', command: 'npm test' } });
  out.push({ kind: 'limits', model: 'other-model', contextWindow: 4000, maxOutputTokens: 1000, source: 'refusal', via: 'refusal: ...' });
  return out as NewEvent[];
}

/** What a start read back from the log. */
function started({ session, agent }: LiveSession) {
  return {
    snapshot: session.snapshot(),
    plan: (session as unknown as { plan: unknown }).plan,
    compactions: { size: session.compactions.size, next: session.compactions.peek() },
    effort: session.effort,
    mode: agent.mode,
    rules: (agent.approvals as unknown as { rules: unknown[] }).rules,
    window: { contextWindow: agent.window.contextWindow, maxOutputTokens: agent.window.maxOutputTokens, source: agent.window.source },
    system: agent.system,
  };
}

describe('a session started from the kind index', () => {
  it('is the session a synchronous load starts: plan, queued compactions, effort, mode, rules, window, title, instructions', async () => {
    const id = '20250101-000000-kinds0';
    const dir = tempDir('kinds');
    const workDir = tempDir('kinds-work');
    const file = path.join(dir, 'sessions', `${id}.jsonl`);
    const log = EventLog.create(file, { skein: 1, session: id, createdAt: new Date(0).toISOString(), model: 'predictable' });
    for (const e of startLog(6000)) log.append(e);
    log.close();
    const copy = `${file}.copy`;
    fs.copyFileSync(file, copy);
    const config = loadConfig([], { SKEIN_DATA_DIR: dir, SKEIN_WORKDIR: workDir, SKEIN_MODEL: 'predictable', SKEIN_APPROVAL: 'on-write' });
    const start = (l: EventLog) => liveSession(config, {}, modelServices(config), path.dirname(file), l);
    // As open() does: read and indexed in slices (LogReads), then started.
    const reads = new LogReads();
    await reads.read(id, file);
    const fromRead = reads.open(id, file).log;
    // Indexed by the read, before any question.
    expect((fromRead.kinds as unknown as { indexed: number }).indexed).toBe(fromRead.all().length);
    // The synchronous load: the index taken at the first question.
    const fromOpen = EventLog.open(copy).log;
    expect((fromOpen.kinds as unknown as { indexed: number }).indexed).toBe(0);
    const [a, b] = [start(fromRead), start(fromOpen)];
    try {
      const [ra, rb] = [started(a), started(b)];
      expect(ra).toEqual(rb);
      // And what the log says, so that both cannot be equally wrong.
      expect(ra.plan).toEqual({ steps: [{ step: 'second plan', status: 'in_progress' }] });
      expect(ra.compactions).toEqual({ size: 1, next: { trigger: 'agent', instructions: 'keep the plan' } });
      expect(ra.effort).toBe('low');
      expect(ra.mode).toBe('never');
      expect(ra.rules).toEqual([{ tool: 'bash', command: 'make' }, { tool: 'bash', command: 'npm test' }]);
      expect(ra.window).toMatchObject({ contextWindow: 9000, maxOutputTokens: 2250 });
      expect(ra.snapshot.title).toBe('the real first message');
      expect(ra.system).toContain('be brief');
    } finally {
      for (const l of [a, b]) {
        l.agent.close();
        l.session.log.close();
      }
    }
  });
});
