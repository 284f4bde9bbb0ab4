// Writes session logs straight into a data folder (what a server that ran for
// months leaves behind), for the lazy-loading tests and the scale benchmark.
import fs from 'node:fs';
import path from 'node:path';
import type { SkeinEvent } from '../../shared/protocol.js';

export interface LogSpec {
  id: string;
  /** About this many events (whole turns of six events). */
  events: number;
  /** The log ends inside a turn (the process died while the model was asked). */
  interrupted?: boolean;
  /** Seed of the user messages' text (searchable). */
  topic?: string;
}

/** Turns of user, four state changes and an answer; an interrupted log ends in SendingToLLM. */
export function sessionEvents(spec: LogSpec, start = Date.parse('2025-01-01T00:00:00Z')): SkeinEvent[] {
  const events: SkeinEvent[] = [];
  let seq = 0;
  const ts = () => new Date(start + seq * 1000).toISOString();
  const push = (event: Record<string, unknown>) => {
    seq++;
    events.push({ seq, ts: ts(), ...event } as SkeinEvent);
  };
  const state = (from: string, to: string) => push({ kind: 'state', from, to, reason: 'test' });
  for (let turn = 0; events.length + 6 <= Math.max(6, spec.events); turn++) {
    push({ kind: 'user', text: `${spec.topic ?? 'question'} ${turn} of ${spec.id}` });
    state('WaitingForUserInput', 'SendingToLLM');
    state('SendingToLLM', 'ProcessingLLMResponse');
    push({ kind: 'agent', text: `answer ${turn}: ${'lorem ipsum dolor sit amet '.repeat(8)}`, model: 'predictable', endOfTurn: true });
    state('ProcessingLLMResponse', 'EndOfTurn');
    state('EndOfTurn', 'WaitingForUserInput');
  }
  if (spec.interrupted) {
    push({ kind: 'user', text: `${spec.topic ?? 'question'} cut short in ${spec.id}` });
    state('WaitingForUserInput', 'SendingToLLM');
  }
  return events;
}

export function writeSessionLog(dataDir: string, spec: LogSpec): string {
  const dir = path.join(dataDir, 'sessions');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${spec.id}.jsonl`);
  const header = { skein: 1, session: spec.id, createdAt: '2025-01-01T00:00:00.000Z', model: 'predictable' };
  fs.writeFileSync(file, [header, ...sessionEvents(spec)].map((l) => JSON.stringify(l) + '\n').join(''));
  return file;
}

/** `count` sessions named s0000…; returns their ids. */
export function writeSessionLogs(dataDir: string, count: number, events: number, interrupted: ReadonlySet<number> = new Set()): string[] {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `20250101-000000-s${String(i).padStart(5, '0')}`;
    writeSessionLog(dataDir, { id, events, interrupted: interrupted.has(i), topic: i === 7 ? 'zanzibar' : 'question' });
    ids.push(id);
  }
  return ids;
}
