// How much of a folded span the view still holds: user messages (verbatim,
// or the ledger's pointer) and identifiers (commands, file paths).
import type { CompactionEvent, SkeinEvent } from '../../shared/protocol.js';
import { pathsInCommand } from '../../server/compaction/ledger.js';

export interface Kept {
  userMessagesKept: number;
  userMessagesTotal: number;
  identifiersKept: number;
  identifiersTotal: number;
}

export function emptyKept(): Kept {
  return { userMessagesKept: 0, userMessagesTotal: 0, identifiersKept: 0, identifiersTotal: 0 };
}

export function measureKept(into: Kept, events: readonly SkeinEvent[], c: CompactionEvent, viewText: string): void {
  if (!c.coversSeq) return;
  const [first, last] = c.coversSeq;
  for (const e of events) {
    if (e.seq < first || e.seq > last) continue;
    if (e.kind === 'user') {
      into.userMessagesTotal++;
      if (viewText.includes(e.text) || viewText.includes(`[event ${e.seq}, long message`)) into.userMessagesKept++;
    }
    if (e.kind === 'tool_call' && typeof e.input.command === 'string') {
      const command = e.input.command;
      const identifiers = [command.length > 300 ? command.slice(0, 250) : command.replace(/\n/g, ' ⏎ '), ...pathsInCommand(command).read];
      for (const id of identifiers) {
        into.identifiersTotal++;
        if (viewText.includes(id)) into.identifiersKept++;
      }
    }
  }
}
