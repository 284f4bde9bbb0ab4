// What the Anthropic Messages API accepts as a conversation, and the 400 it
// gives otherwise (messages as the API words them, see the issue threads of
// clients that tripped on each). The API combines consecutive turns of one
// role into one turn, so the rules are checked on the combined turns and the
// indices in the messages count combined turns.
import type { Rejection } from './rejection.js';

type Block = { type: string; [k: string]: any };
interface Turn {
  role: string;
  blocks: Block[];
}

export function anthropicRejection(message: string): Rejection {
  return { status: 400, message, body: { type: 'error', error: { type: 'invalid_request_error', message } } };
}

/**
 * Mid-conversation `role: "system"` messages: never first, right after a
 * user turn, and last or followed by the model's answer. They are then left
 * out of the alternation rules below (they are not a user or assistant turn).
 */
function checkSystemMessages(messages: any[]): Rejection | undefined {
  for (const [i, m] of messages.entries()) {
    if (m.role !== 'system') continue;
    const blocks: Block[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content : [];
    if (!blocks.length) return anthropicRejection(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
    for (const b of blocks) {
      const problem = b.type === 'compaction' ? undefined : emptyText(b);
      if (problem) return anthropicRejection(`messages.${i}: ${problem}`);
    }
    if (i === 0) return anthropicRejection(`messages.${i}: the first message cannot be a \`system\` message; use the top-level \`system\` parameter`);
    if (messages[i - 1].role !== 'user') return anthropicRejection(`messages.${i}: a \`system\` message must immediately follow a \`user\` message`);
    const next = messages[i + 1];
    if (next && next.role !== 'assistant') return anthropicRejection(`messages.${i}: a \`system\` message must be the last message or be followed by an \`assistant\` message`);
  }
  return undefined;
}

/** The 400 the API gives this request body, or undefined when it is valid. */
export function checkAnthropicRequest(body: any): Rejection | undefined {
  const fail = anthropicRejection;
  const system: Block[] = typeof body?.system === 'string' ? (body.system ? [{ type: 'text', text: body.system }] : []) : (body?.system ?? []);
  for (const b of system) {
    const problem = emptyText(b);
    if (problem) return fail(`system: ${problem}`);
  }
  if (!Array.isArray(body?.messages) || body.messages.length === 0) return fail('messages: at least one message is required');
  for (const [i, m] of (body.messages as any[]).entries()) {
    const empty = m.content === '' || (Array.isArray(m.content) && m.content.length === 0);
    if (empty && i < body.messages.length - 1) return fail(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
  }
  const placed = checkSystemMessages(body.messages);
  if (placed) return placed;
  const turns = combine(body.messages.filter((m: any) => m.role !== 'system'));
  for (const turn of turns) {
    for (const b of turn.blocks) {
      const problem = emptyText(b);
      if (problem) return fail(`messages: ${problem}`);
    }
  }
  // On-demand compaction: the conversation may open with the model's own compaction block.
  const opensWithCompaction = turns[0]!.role === 'assistant' && turns[0]!.blocks[0]?.type === 'compaction';
  if (turns[0]!.role !== 'user' && !opensWithCompaction) return fail('messages: first message must use the "user" role');

  const seen = new Set<string>();
  for (const [i, turn] of turns.entries()) {
    for (const [j, b] of turn.blocks.entries()) {
      if (b.type !== 'tool_use') continue;
      if (seen.has(b.id)) return fail(`messages.${i}.content.${j}: \`tool_use\` ids must be unique`);
      seen.add(b.id);
    }
  }

  // A compaction request may end on the model's finished answer; an open tool call there is its own refusal (test/fakes/compaction.ts).
  const compacting = body.compaction !== undefined;
  for (const [i, turn] of turns.entries()) {
    if (compacting && i === turns.length - 1 && turn.role === 'assistant') continue;
    if (turn.role === 'assistant') {
      const uses = turn.blocks.filter((b) => b.type === 'tool_use').map((b) => String(b.id));
      if (!uses.length) continue;
      // The results must open the next message: tool_result blocks first, any text after them.
      const next = turns[i + 1];
      const leading = new Set<string>();
      for (const b of next?.role === 'user' ? next.blocks : []) {
        if (b.type !== 'tool_result') break;
        leading.add(String(b.tool_use_id));
      }
      const missing = uses.filter((id) => !leading.has(id));
      if (missing.length) {
        return fail(`messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`);
      }
    } else {
      const previous = turns[i - 1];
      const uses = new Set(previous?.role === 'assistant' ? previous.blocks.filter((b) => b.type === 'tool_use').map((b) => String(b.id)) : []);
      for (const [j, b] of turn.blocks.entries()) {
        if (b.type === 'tool_result' && !uses.has(String(b.tool_use_id))) {
          return fail(`messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${b.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`);
        }
      }
    }
  }

  // A last assistant message is a prefill the model continues. skein never
  // prefills: a request ending with the model's own answer is a bug (the
  // newest models refuse it with this very message).
  if (turns.at(-1)!.role !== 'user' && !compacting) return fail('This model does not support assistant message prefill. The conversation must end with a user message.');
  return undefined;
}

function combine(messages: any[]): Turn[] {
  const turns: Turn[] = [];
  for (const m of messages) {
    const blocks: Block[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content : [];
    const last = turns.at(-1);
    if (last && last.role === m.role) last.blocks.push(...blocks);
    else turns.push({ role: m.role, blocks: [...blocks] });
  }
  return turns;
}

function emptyText(b: Block): string | undefined {
  if (b.type !== 'text') return undefined;
  if (typeof b.text !== 'string' || b.text === '') return 'text content blocks must be non-empty';
  if (!b.text.trim()) return 'text content blocks must contain non-whitespace text';
  return undefined;
}
