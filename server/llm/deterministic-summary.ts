// The summary the offline models write when asked to compact: user messages
// verbatim, tool calls and errors, carried forward from the previous summary.
// It reads the transcript format of server/compaction/transcript.ts.
import { isSkeinNote, type ViewMessage } from '../../shared/protocol.js';
import { IN_PLACE_OPEN } from '../compaction/summarizer.js';
import { tokensOf } from './tokens.js';
import type { LlmRequest } from './types.js';
import { verbatimItem } from '../compaction/verbatim.js';

/** A line that starts the next item of a transcript (so it ends a user message). */
const TAGGED = /^(\[(user|assistant|tool result|tool error|instruction update)\]|\[assistant -> |<\/?(previous-summary|transcript|compacted-history)>)/;

export function deterministicSummary(request: LlmRequest): string {
  const input = isInPlace(request) ? inPlaceTranscript(request.messages) : request.messages.map((m) => m.content).join('\n');
  const users: string[] = [];
  const calls: string[] = [];
  const errors: string[] = [];
  const lines = input.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    let m: RegExpExecArray | null;
    if ((m = /^- user: (.*)$/.exec(line))) {
      // A multi-line message carried forward: its further lines are indented.
      const text = [m[1]!];
      while (i + 1 < lines.length && lines[i + 1]!.startsWith('  ')) text.push(lines[++i]!.slice(2));
      users.push(text.join('\n'));
    } else if ((m = /^\[user\] (.*)$/.exec(line))) {
      // A transcript's user message runs to the next tagged line: every line of it is kept.
      const text = [m[1]!];
      while (i + 1 < lines.length && !TAGGED.test(lines[i + 1]!)) text.push(lines[++i]!);
      users.push(text.join('\n').replace(/\n+$/, ''));
    } else if ((m = /^- ran: (.*)$/.exec(line)) || (m = /^\[assistant -> (.*)\]$/.exec(line))) calls.push(m[1]!.slice(0, 300));
    else if ((m = /^- error: (.*)$/.exec(line)) || (m = /^\[tool error\] (.*)$/.exec(line))) errors.push(m[1]!.slice(0, 300));
  }
  // Like a real model, stay within max output: drop the oldest tool calls first, then clip.
  let recentCalls = calls.slice(-20);
  let text = render(users, calls, recentCalls, errors);
  while (tokensOf(text) > request.maxOutputTokens && recentCalls.length) {
    recentCalls = recentCalls.slice(Math.ceil(recentCalls.length / 2) || 1);
    if (recentCalls.length === 1) recentCalls = [];
    text = render(users, calls, recentCalls, errors);
  }
  return tokensOf(text) > request.maxOutputTokens ? text.slice(0, request.maxOutputTokens * 3) : text;
}

function render(users: string[], calls: string[], recentCalls: string[], errors: string[]): string {
  return [
    '## Summary of the earlier conversation (deterministic)',
    '### User messages, verbatim',
    ...(users.length ? users.map((u) => verbatimItem('user: ', u)) : ['- (none in the folded span)']),
    '### Tool calls',
    ...(calls.length > recentCalls.length ? [`(${calls.length - recentCalls.length} earlier calls not listed)`] : []),
    ...(recentCalls.length ? recentCalls.map((c) => `- ran: ${c}`) : ['- (none)']),
    ...(errors.length ? ['### Errors', ...errors.slice(-10).map((e) => `- error: ${e}`)] : []),
  ].join('\n');
}

/** A summary asked for at the end of the conversation itself (server/compaction/summarizer.ts, inPlaceRequest). */
export function isInPlace(request: LlmRequest): boolean {
  return request.messages.at(-1)?.role === 'user' && request.messages.at(-1)!.content.includes(IN_PLACE_OPEN);
}

/** What the request asks to summarise (after the first user message, before the request) in the transcript's line format. */
function inPlaceTranscript(messages: readonly ViewMessage[]): string {
  const first = messages.findIndex((m) => m.role === 'user');
  const lines: string[] = [];
  for (const m of messages.slice(first + 1, -1)) {
    if (m.role === 'user' && isSkeinNote(m.content)) continue;
    // An earlier summary (or a plain user message) is read as it stands: its "- user:" lines carry forward.
    if (m.role === 'user') lines.push(m.content.startsWith('<compacted-history>') ? m.content : `[user] ${m.content}`);
    for (const c of m.toolCalls ?? []) lines.push(`[assistant -> ${c.name} ${JSON.stringify(c.input)}]`);
    if (m.role === 'tool') {
      const firstLine = m.content.split('\n', 1)[0] ?? '';
      if (/^(exit code: [1-9]|killed:|\w+ failed:)|<returncode>[1-9]/.test(firstLine)) lines.push(`[tool error] ${firstLine.slice(0, 300)}`);
    }
  }
  return lines.join('\n');
}
