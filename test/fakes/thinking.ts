// Preserved thinking, as the Anthropic fake enforces it. Each thinking block
// the fake returns is signed: an HMAC over the model, the block's prefix
// (system, tools and every earlier message, without cache markers), its place
// among the answer's thinking blocks and its own content. A request that
// sends blocks back is refused with Anthropic's 400 when
// - a block's prefix changed (system, tools or an earlier message differ):
//   "Invalid `signature` in `thinking` block. The block is bound to a different conversation. ...";
// - a block was edited, or a block between others left out or moved (its place no longer matches);
//   in the latest assistant message: "... blocks in the latest assistant message cannot be modified ...";
// - a block came from another model, or its signature is not one the fake made;
// - the thinking of the tool-use cycle in progress was dropped although its prefix did not change;
// - an answer that thought comes back other than exactly as returned (every
//   block, text and tool calls too, in its place: round-trip.ts), refused
//   like an edited block; skein never does it, so it is also a failure of the test;
// and a model that always thinks refuses `thinking: {type: "disabled"}` and a forced tool choice;
// an adaptive-only model refuses `thinking: {type: "enabled"}`. A model's
// capabilities are the table's unless the fake's Models API advertises
// others (`advertised`): then those rule, and a model advertised without
// adaptive thinking refuses any thinking but `disabled`.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { modelInfo } from '../../server/llm/models.js';
import { ReturnedAnswers } from './round-trip.js';
import { refusals } from './rules/rejection.js';

type Wire = { type: string; [k: string]: any };

export interface ThinkingRefusal {
  status: 400;
  message: string;
}

const DISABLED = '"thinking.type.disabled" is not supported for this model. Thinking defaults to adaptive mode when not specified; use "thinking.type.enabled" with "budget_tokens" for extended thinking.';
const ENABLED = '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.';
const UNSUPPORTED = (type: string) => `"thinking.type.${type}" is not supported for this model.`;
const FORCED = 'tool_choice: forced tool use (`any` or `tool`) is not supported for this model; use `auto` or `none`.';
const BOUND = 'Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block". That setting requires the `thinking-binding-controls-2026-08-01` value in the `anthropic-beta` header.';
const INVALID = 'Invalid `signature` in `thinking` block';
const MODIFIED = '`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.';
const MUST_START = (found: string) =>
  `Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`.`;

interface Signed {
  model: string;
  prefix: string;
  place: number;
  mac: string;
}

type Caps = { mode: string; efforts?: string[]; preserved?: boolean };

export class ThinkingRules {
  private secret = randomBytes(16);
  /** What the fake's Models API advertises for a model (wins over skein's table, as the real API knows its own models). */
  readonly advertised = new Map<string, Caps>();
  /** tool_use ids of answers that thought, with the prefix they were produced on. */
  private readonly thoughtBefore = new Map<string, string>();
  private answers = 0;
  /** Every answer that thought, as returned, keyed by its blocks' signatures. */
  private readonly returned = new ReturnedAnswers((b) => (b.type === 'thinking' ? String(b.signature) : b.type === 'redacted_thinking' ? String(b.data) : undefined));
  /** Every refusal, for the tests' "zero refusals" checks. */
  readonly refusals: string[] = [];

  /** A new key: every block signed so far fails its check (for a test of skein's one retry without them). */
  rotate(): void {
    this.secret = randomBytes(16);
  }

  /** Whether this model thinks on the request (no thinking for models without capabilities, or when disabled). */
  capsOf(model: string): Caps | undefined {
    const advertised = this.advertised.get(model);
    if (advertised) return advertised.mode === 'none' ? undefined : advertised;
    return modelInfo(model)?.thinking;
  }

  thinks(body: any): boolean {
    if (body.compaction !== undefined) return false;
    const caps = this.capsOf(body.model);
    return Boolean(caps) && body.thinking?.type !== 'disabled';
  }

  /** The refusal for a request that breaks a rule, if any. */
  check(body: any): ThinkingRefusal | undefined {
    const message = this.rule(body);
    if (!message) return undefined;
    this.refusals.push(message);
    return { status: 400, message };
  }

  private rule(body: any): string | undefined {
    const caps = this.capsOf(body.model);
    if (this.advertised.get(body.model)?.mode === 'none' && body.thinking && body.thinking.type !== 'disabled') return UNSUPPORTED(body.thinking.type);
    if (caps?.mode === 'always' && body.thinking?.type === 'disabled') return DISABLED;
    if (caps && body.thinking?.type === 'enabled') return ENABLED;
    if (caps?.mode === 'always' && (body.tool_choice?.type === 'any' || body.tool_choice?.type === 'tool')) return FORCED;
    const messages: { role: string; content: Wire[] | string }[] = body.messages ?? [];
    const lastAssistant = messages.map((m) => m.role).lastIndexOf('assistant');
    for (const [i, m] of messages.entries()) {
      if (m.role !== 'assistant' || !Array.isArray(m.content)) continue;
      const prefix = this.prefix(body, messages.slice(0, i));
      let place = 0;
      for (const [j, b] of m.content.entries()) {
        if (b.type !== 'thinking' && b.type !== 'redacted_thinking') continue;
        const at = `messages.${i}.content.${j}: `;
        const signed = this.read(b);
        if (!signed || signed.mac !== this.mac(signed.model, signed.prefix, signed.place, content(b))) return at + (i === lastAssistant ? MODIFIED : INVALID);
        if (signed.model !== body.model) return at + INVALID;
        if (signed.prefix !== prefix) return at + (caps?.preserved ? BOUND : INVALID);
        if (signed.place !== place++) return at + (i === lastAssistant ? MODIFIED : BOUND);
      }
      const changed = this.returned.firstChange(m.content);
      if (changed) {
        const message = `messages.${i}.content.${changed.index}: ${i === lastAssistant ? MODIFIED : INVALID}`;
        refusals.push(`Anthropic fake: an answer that thought was not sent back as returned (expected ${changed.expected}): ${message}`);
        return message;
      }
    }
    // The tool-use cycle in progress: its answer thought, and its prefix is unchanged, so its thinking must come back.
    const last = messages[lastAssistant];
    const next = messages[lastAssistant + 1];
    if (last && Array.isArray(last.content) && Array.isArray(next?.content) && next.content.some((b) => b.type === 'tool_result') && this.thinks(body)) {
      const use = last.content.find((b) => b.type === 'tool_use');
      const first = last.content[0];
      const produced = use && this.thoughtBefore.get(use.id);
      if (produced && produced === this.prefix(body, messages.slice(0, lastAssistant)) && first && first.type !== 'thinking' && first.type !== 'redacted_thinking') {
        return `messages.${lastAssistant}.content.0.type: ${MUST_START(first.type)}`;
      }
    }
    return undefined;
  }

  /**
   * The answer's content with its thinking: a thinking block first; with tool
   * calls an empty thinking block between the text and the calls (as
   * interleaved thinking returns them); every third answer a redacted block.
   */
  produce(body: any, content: Wire[], about: string): { content: Wire[]; thinkingTokens: number } {
    if (!this.thinks(body)) return { content, thinkingTokens: 0 };
    const prefix = this.prefix(body, body.messages ?? []);
    const n = ++this.answers;
    const thoughts: Wire[] = [{ type: 'thinking', thinking: `Thinking about "${about.slice(0, 60)}": the plan is to answer it step by step.` }];
    if (n % 3 === 0) thoughts.push({ type: 'redacted_thinking', data: '' });
    const texts = content.filter((b) => b.type !== 'tool_use');
    const calls = content.filter((b) => b.type === 'tool_use');
    const middle: Wire[] = calls.length ? [{ type: 'thinking', thinking: '' }] : [];
    const out = [...thoughts, ...texts, ...middle, ...calls];
    let place = 0;
    for (const b of out) {
      if (b.type !== 'thinking' && b.type !== 'redacted_thinking') continue;
      this.sign(b, body.model, prefix, place++);
    }
    for (const c of calls) this.thoughtBefore.set(c.id, prefix);
    this.returned.remember(out);
    const thinkingTokens = out.reduce((k, b) => k + (b.type === 'thinking' ? Math.ceil(String(b.thinking).length / 4) + 1 : b.type === 'redacted_thinking' ? 8 : 0), 0);
    return { content: out, thinkingTokens };
  }

  private sign(b: Wire, model: string, prefix: string, place: number): void {
    // A redacted block carries its signature inside its opaque data.
    if (b.type === 'redacted_thinking') b.data = `${Buffer.from(`redacted:${place}`).toString('base64')}.`;
    const signed: Signed = { model, prefix, place, mac: this.mac(model, prefix, place, content(b)) };
    const token = Buffer.from(JSON.stringify(signed)).toString('base64');
    if (b.type === 'thinking') b.signature = token;
    else b.data += token;
  }

  private read(b: Wire): Signed | undefined {
    const token = b.type === 'thinking' ? b.signature : String(b.data ?? '').split('.')[1];
    try {
      const signed = JSON.parse(Buffer.from(String(token ?? ''), 'base64').toString('utf8')) as Signed;
      return typeof signed.mac === 'string' ? signed : undefined;
    } catch {
      return undefined;
    }
  }

  private mac(model: string, prefix: string, place: number, what: string): string {
    return createHmac('sha256', this.secret).update(`${model}\n${prefix}\n${place}\n${what}`).digest('hex');
  }

  private prefix(body: any, messages: unknown[]): string {
    return createHash('sha256').update(stable({ system: body.system ?? null, tools: body.tools ?? null, messages })).digest('hex');
  }
}

/** What a block's signature covers of itself: its thinking text, or the opaque part of redacted data. */
function content(b: Wire): string {
  return b.type === 'thinking' ? `thinking:${b.thinking}` : `redacted:${String(b.data ?? '').split('.')[0]}`;
}

/** The wire value without cache markers, keys sorted: the same prefix always hashes the same. */
function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([k, v]) => k !== 'cache_control' && v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stable(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
