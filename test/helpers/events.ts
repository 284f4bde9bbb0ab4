// Builds event logs in memory for unit tests.
import type { NewEvent, SkeinEvent } from '../../shared/protocol.js';

export class LogBuilder {
  readonly events: SkeinEvent[] = [];

  add(event: NewEvent): SkeinEvent {
    const full = { seq: this.events.length + 1, ts: new Date(0).toISOString(), ...event } as SkeinEvent;
    this.events.push(full);
    return full;
  }

  user(text: string) {
    return this.add({ kind: 'user', text });
  }

  agent(text: string, endOfTurn = true) {
    return this.add({ kind: 'agent', text, model: 'predictable', endOfTurn });
  }

  /** An assistant message with parallel tool calls and (optionally) their results. */
  tools(ids: string[], withResults = true, output = 'ok', command = (id: string) => `run ${id}`) {
    this.agent('', false);
    for (const id of ids) this.add({ kind: 'tool_call', callId: id, name: 'bash', input: { command: command(id) } });
    if (withResults) for (const id of ids) this.result(id, output);
  }

  result(id: string, output = 'ok') {
    return this.add({ kind: 'tool_result', callId: id, name: 'bash', output, isError: false, durationMs: 1 });
  }

  compaction(coversSeq: [number, number], summary: string) {
    return this.add({ kind: 'compaction', phase: 'finished', trigger: 'manual', strategy: 'summarize', summary, coversSeq, tokensBefore: 0, tokensAfter: 0, messagesBefore: 0, messagesAfter: 0 });
  }
}
