// A session's log as JSONL text (header line, one event per line): the log
// format is the contract, whichever store kept the events.
import type { SkeinEvent } from '../../shared/protocol.js';
import type { LogHeader } from './event-log.js';

export function logLines(header: LogHeader, events: readonly SkeinEvent[]): string {
  return [header, ...events].map((line) => JSON.stringify(line) + '\n').join('');
}
