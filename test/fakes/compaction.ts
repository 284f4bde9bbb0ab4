// Anthropic's on-demand compaction (beta `compact-2026-09-04`), as the
// Anthropic fake serves and checks it. A request with the top-level
// `compaction: {type: "summarize"}` answers with one signed `compaction`
// block (stop_reason "compaction") summarising every message it was sent;
// a later request sends the block back, unchanged, as the first block of
// `messages`. Refused with a 400 (the API's error codes, in `details`):
// - `compaction` without the beta header ("compaction: Extra inputs are not permitted");
// - a compaction request on a model without on-demand compaction;
// - a compaction request with nothing to summarise (`compaction_nothing_to_summarize`)
//   or ending on an assistant turn whose tool call has no result (`compaction_incomplete_turn`);
// - a block sent back without the beta header, not as the conversation's first block or in a
//   system message (`compaction_block_misplaced`), with its content edited
//   (`compaction_content_mismatch`), or signed by another model or not by the fake (`compaction_signature_invalid`).
import { createHmac, randomBytes } from 'node:crypto';

type Wire = { type: string; [k: string]: any };

export const COMPACT_BETA = 'compact-2026-09-04';
/** The models Anthropic's docs list for on-demand compaction. */
const SUPPORTED = new Set(['claude-fable-5-1', 'claude-fable-5', 'claude-opus-5-5', 'claude-opus-5', 'claude-sonnet-5-5', 'claude-sonnet-5', 'claude-haiku-5-5', 'claude-opus-4-8', 'claude-opus-4-7', 'claude-opus-4-6', 'claude-sonnet-4-6']);

export interface CompactionRefusal {
  message: string;
  code?: string;
}

export class CompactionRules {
  private readonly secret = randomBytes(16);
  /** Compaction requests answered (each returns one block). */
  compactions = 0;
  /** Requests that sent a block back and passed its checks. */
  blocksAccepted = 0;

  /** The 400 for a request that breaks a compaction rule, if any. */
  check(body: any, betaHeader: string | undefined): CompactionRefusal | undefined {
    const beta = (betaHeader ?? '').split(',').map((s) => s.trim()).includes(COMPACT_BETA);
    const messages: { role: string; content: Wire[] | string }[] = body.messages ?? [];
    if (body.compaction !== undefined) {
      if (!beta) return { message: 'compaction: Extra inputs are not permitted' };
      if (body.compaction?.type !== 'summarize') return { message: 'compaction.type: Input should be \'summarize\'' };
      if (!SUPPORTED.has(body.model)) return { message: `compaction: on-demand compaction is not supported on ${body.model}` };
      const content = messages.filter((m) => m.role !== 'system' && (typeof m.content === 'string' ? m.content.trim() : m.content.length));
      if (!content.length) return { message: 'messages: there is nothing to summarize', code: 'compaction_nothing_to_summarize' };
      const last = messages.filter((m) => m.role !== 'system').at(-1);
      if (last?.role === 'assistant' && Array.isArray(last.content) && last.content.some((b) => b.type === 'tool_use')) {
        return { message: 'messages: the conversation ends on an assistant turn whose tool call has no result; compact where no tool call is left open', code: 'compaction_incomplete_turn' };
      }
    }
    for (const [i, m] of messages.entries()) {
      const blocks = Array.isArray(m.content) ? m.content : [];
      for (const [j, b] of blocks.entries()) {
        if (b.type !== 'compaction') continue;
        const at = `messages.${i}.content.${j}`;
        if (!beta) return { message: `${at}.type: Input tag 'compaction' found using 'type' does not match any of the expected tags` };
        if (i !== 0 || j !== 0 || m.role === 'system') return { message: `${at}: a \`compaction\` block must be the first block of the conversation and not in a \`system\` message`, code: 'compaction_block_misplaced' };
        const signed = this.read(b.signature);
        if (!signed || signed.model !== body.model) return { message: `${at}.signature: Invalid \`signature\` in \`compaction\` block`, code: 'compaction_signature_invalid' };
        if (signed.mac !== this.mac(signed.model, String(b.content ?? ''))) return { message: `${at}.content: the \`compaction\` block's content differs from what its signature recorded`, code: 'compaction_content_mismatch' };
      }
    }
    if (messages[0] && Array.isArray(messages[0].content) && messages[0].content[0]?.type === 'compaction') this.blocksAccepted++;
    return undefined;
  }

  /** The answer to a compaction request: one block summarising the user's messages it was sent. */
  answer(body: any): Wire[] {
    this.compactions++;
    const said: string[] = [];
    for (const m of body.messages ?? []) {
      const blocks: Wire[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
      for (const b of blocks) {
        if (b.type === 'compaction') said.push(`(earlier summary) ${String(b.content).split('\n')[1] ?? ''}`);
        else if (m.role === 'user' && b.type === 'text') said.push(String(b.text).slice(0, 120));
      }
    }
    const content = [`Summary ${this.compactions} (the fake's on-demand compaction) of ${(body.messages ?? []).length} messages.`, ...said.map((s) => `- ${s}`)].join('\n');
    const signature = Buffer.from(JSON.stringify({ model: body.model, mac: this.mac(body.model, content) })).toString('base64');
    return [{ type: 'compaction', content, encrypted_content: null, signature }];
  }

  private mac(model: string, content: string): string {
    return createHmac('sha256', this.secret).update(`${model}\n${content}`).digest('hex');
  }

  private read(signature: unknown): { model: string; mac: string } | undefined {
    try {
      const signed = JSON.parse(Buffer.from(String(signature ?? ''), 'base64').toString('utf8')) as { model: string; mac: string };
      return typeof signed.mac === 'string' ? signed : undefined;
    } catch {
      return undefined;
    }
  }
}
