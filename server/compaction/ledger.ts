// The deterministic summary: built without an LLM from the folded messages,
// so compaction still works when the summariser fails.
import type { ViewMessage } from '../../shared/protocol.js';
import { isSummaryMessage, summaryBody } from './view.js';

const USER_MESSAGE_CHARS = 4000;

export function ledgerSummary(messages: readonly ViewMessage[]): string {
  const users: string[] = [];
  const calls: string[] = [];
  const errors: string[] = [];
  const earlier: string[] = [];
  const results = new Map(messages.filter((m) => m.role === 'tool').map((m) => [m.toolCallId, m.content]));
  for (const m of messages) {
    if (isSummaryMessage(m)) earlier.push(summaryBody(m));
    else if (m.role === 'user') users.push(m.content.length > USER_MESSAGE_CHARS ? `${m.content.slice(0, USER_MESSAGE_CHARS)} [...]` : m.content);
    for (const c of m.toolCalls ?? []) {
      const status = (results.get(c.id) ?? 'no result').split('\n', 1)[0]!.slice(0, 200);
      calls.push(`${c.name} ${JSON.stringify(c.input)} -> ${status}`);
      if (/^(exit code: [1-9]|killed:|\w+ failed:)/.test(status)) errors.push(status);
    }
  }
  return [
    '## Summary (deterministic ledger)',
    ...(earlier.length ? ['### Earlier summary', ...earlier] : []),
    '### User messages, verbatim',
    ...(users.length ? users.map((u) => `- ${u}`) : ['- (none in this span)']),
    '### Tool calls',
    ...(calls.length ? calls.map((c) => `- ${c}`) : ['- (none)']),
    ...(errors.length ? ['### Errors', ...errors.map((e) => `- ${e}`)] : []),
  ].join('\n');
}
