// `predictable`: the built-in offline model. Deterministic answers from the
// last user text, usage from real token counts of the request (with a
// simulated prompt cache), its own small window enforced with the same kind of
// error a provider gives, and a deterministic summary when asked to compact.
import { CUT_NOTE_OPEN, isSkeinNote, type ViewMessage } from '../../shared/protocol.js';
import { deterministicSummary } from './deterministic-summary.js';
import { SimulatedCache, simulatedInputTokens } from './simulated-usage.js';
import { tokensOf } from './tokens.js';
import { createHash } from 'node:crypto';
import { imageBase64, imageLabel } from '../images/image-files.js';
import {
  ContextOverflowError,
  ProviderError,
  type LlmRequest,
  type LlmResponse,
  type ModelLimits,
  type Provider,
  type ToolCall,
} from './types.js';

export const PREDICTABLE_HELP = [
  "I'm **predictable**, skein's built-in offline model. I answer from your last message:",
  '',
  '- `echo: TEXT` replies with TEXT',
  '- `bash: COMMAND` runs COMMAND with the bash tool',
  '- `read: PATH` reads a file with the read_file tool',
  '- `glob: PATTERN` finds files with the glob tool, e.g. `glob: **/*.ts`',
  '- `grep: PATTERN` searches file contents with the grep tool (add ` in PATH` to search one folder or file)',
  '- `list: [PATH]` lists a folder as a tree with the list tool',
  '- `plan: [x] STEP; [>] STEP; [ ] STEP` sets the plan with update_plan ([x] done, [>] in progress, [ ] or nothing pending)',
  '- `big: N` makes a tool result of about N tokens (fills the context)',
  '- `error: overflow|overloaded|500` fails once the way a provider would (overflow compacts; the others end the turn)',
  '- `error: retry` fails once with a 529 that skein retries',
  '- `delay: MS` waits MS milliseconds before answering',
  '- `tool: NAME {json}` calls any tool, e.g. `tool: compact_history {"focus":"tests"}`',
  '- `tools: [{"name": NAME, "input": {json}}, ...]` calls several tools in one answer',
  '- `mcp: SERVER TOOL {json}` calls a tool of an MCP server (the tool `mcp__SERVER__TOOL`)',
  '- `/compact [focus]` compacts the context now (`/compact delay: MS` makes the summary slow)',
].join('\n');

/** The rest of an answer that was cut, when skein asks to continue it. */
export const PREDICTABLE_CONTINUED = '…(continued after the cut) and that is the end of the answer.';

/** One line of `big: N` output is 10 tokens. */
const BIG_LINE = 'the quick brown fox jumps over the lazy dog';

export class PredictableProvider implements Provider {
  readonly model = 'predictable';
  private callCounter = 0;
  private readonly cache = new SimulatedCache();
  /** The user text the last simulated error answered, so the retry succeeds. */
  private erroredFor: string | undefined;

  constructor(readonly limits: ModelLimits) {}

  async complete(request: LlmRequest, signal: AbortSignal): Promise<LlmResponse> {
    signal.throwIfAborted();
    const inputTokens = simulatedInputTokens(request);
    if (inputTokens + request.maxOutputTokens > this.limits.contextWindow) {
      // The message Anthropic gives, so the same mapping code handles both.
      throw new ContextOverflowError(
        `prompt is too long: ${inputTokens} tokens + ${request.maxOutputTokens} max output > ${this.limits.contextWindow} maximum`,
      );
    }
    if (request.purpose === 'summary') {
      // `/compact delay: MS` makes the summary take that long (to watch, or cancel, a compaction).
      const delay = /focus on: delay: (\d+)/.exec(request.messages.at(-1)?.content ?? '')?.[1];
      if (delay) await sleep(Math.min(600_000, Number(delay)), signal);
    }
    const answer = request.purpose === 'summary' ? { text: deterministicSummary(request), toolCalls: [] } : withImagesSeen(await this.answer(request.messages, signal), request.messages);
    const usage = this.cache.usage(request);
    const output = tokensOf(answer.text) + answer.toolCalls.reduce((n, c) => n + tokensOf(JSON.stringify(c.input)), 0);
    return {
      text: answer.text,
      toolCalls: answer.toolCalls,
      stopReason: answer.toolCalls.length ? 'tool_use' : 'end_turn',
      usage: { ...usage, output, costUsd: 0 },
    };
  }

  private async answer(all: ViewMessage[], signal: AbortSignal): Promise<{ text: string; toolCalls: ToolCall[] }> {
    // Asked to go on with an answer that was cut: a short ending (answering the user's words again would be cut again).
    if (all.at(-1)?.role === 'user' && all.at(-1)!.content.startsWith(CUT_NOTE_OPEN)) return { text: PREDICTABLE_CONTINUED, toolCalls: [] };
    // Status notes from skein are not the user speaking: answer what came before them.
    const messages = all.filter((m) => !isStatusNote(m));
    const last = messages[messages.length - 1];
    if (last?.role === 'tool') return { text: describeToolResult(messages), toolCalls: [] };
    if (last && last.role === 'user' && last.content.startsWith('<compacted-history>')) {
      // Mid-turn compaction folded the request itself: carry on from the summary, don't redo work.
      return { text: 'The context was compacted; the summary above has everything done so far. Ready for the next step.', toolCalls: [] };
    }
    const text = lastUserText(messages);
    if (this.erroredFor !== undefined && this.erroredFor !== text) this.erroredFor = undefined;
    const [command, arg = ''] = splitCommand(text);
    switch (command) {
      case 'echo':
        return { text: arg, toolCalls: [] };
      case 'bash':
        return this.call('bash', { command: arg });
      case 'read':
        return this.call('read_file', { path: arg });
      case 'glob':
        return this.call('glob', { pattern: arg });
      case 'grep': {
        // `grep: PATTERN in PATH` searches one folder or file.
        const [, pattern = arg, where] = /^(.*?)(?:\s+in\s+(\S+))?$/.exec(arg) ?? [];
        return this.call('grep', { pattern, ...(where && { path: where }) });
      }
      case 'list':
        return this.call('list', arg ? { path: arg } : {});
      case 'plan':
        return this.call('update_plan', { steps: planSteps(arg) });
      case 'tool': {
        // `tool: NAME {json}` calls any tool, e.g. compact_history.
        const [, name = '', json = '{}'] = /^(\S+)\s*([\s\S]*)$/.exec(arg) ?? [];
        let input: Record<string, unknown> = {};
        try {
          input = JSON.parse(json || '{}') as Record<string, unknown>;
        } catch {
          return { text: `\`tool:\` needs JSON input, got: ${json}`, toolCalls: [] };
        }
        return this.call(name, input);
      }
      case 'tools': {
        // Several calls in one answer (e.g. parallel task calls).
        try {
          const list = JSON.parse(arg) as { name: string; input?: Record<string, unknown> }[];
          return { text: '', toolCalls: list.map((c) => this.call(c.name, c.input ?? {}).toolCalls[0]!) };
        } catch {
          return { text: `\`tools:\` needs a JSON array of {"name", "input"}, got: ${arg}`, toolCalls: [] };
        }
      }
      case 'mcp': {
        // `mcp: SERVER TOOL {json}` is `tool: mcp__SERVER__TOOL {json}`.
        const [, server = '', tool = '', json = '{}'] = /^(\S+)\s+(\S+)\s*([\s\S]*)$/.exec(arg) ?? [];
        if (!server || !tool) return { text: '`mcp:` needs a server and a tool, e.g. `mcp: files read {"path":"a.txt"}`', toolCalls: [] };
        try {
          return this.call(`mcp__${server}__${tool}`, JSON.parse(json || '{}') as Record<string, unknown>);
        } catch {
          return { text: `\`mcp:\` needs JSON input, got: ${json}`, toolCalls: [] };
        }
      }
      case 'big': {
        const tokens = Math.max(10, Math.min(1_000_000, Number.parseInt(arg, 10) || 1000));
        return this.call('bash', { command: `yes '${BIG_LINE}' | head -n ${Math.ceil(tokens / 10)}` });
      }
      case 'delay': {
        const ms = Math.max(0, Math.min(600_000, Number.parseInt(arg, 10) || 0));
        await sleep(ms, signal);
        return { text: `waited ${ms} ms`, toolCalls: [] };
      }
      case 'error':
        if (this.erroredFor === text) return { text: `recovered from simulated error: ${arg}`, toolCalls: [] };
        this.erroredFor = text;
        throw simulatedError(arg, this.limits.contextWindow);
      default:
        return { text: PREDICTABLE_HELP, toolCalls: [] };
    }
  }

  private call(name: string, input: Record<string, unknown>): { text: string; toolCalls: ToolCall[] } {
    return { text: '', toolCalls: [{ id: `call_${++this.callCounter}_${Date.now().toString(36)}`, name, input }] };
  }
}

/** Notes from skein (status, changed instructions) are not the user speaking. */
function isStatusNote(m: ViewMessage): boolean {
  return (m.role === 'user' || m.role === 'system') && isSkeinNote(m.content);
}

/**
 * The images of the user message just answered, acknowledged first: type,
 * size in pixels and bytes, and the start of the SHA-256 of the bytes the
 * request carried (proof they arrived whole). An image-only message gets just that.
 */
function withImagesSeen(answer: { text: string; toolCalls: ToolCall[] }, messages: ViewMessage[]): { text: string; toolCalls: ToolCall[] } {
  const last = messages.at(-1);
  if (last?.role !== 'user' || !last.images?.length) return answer;
  const seen = last.images.map((ref) => {
    const data = imageBase64(ref);
    if (!data) return `${imageLabel(ref)}, its file gone`;
    return `${imageLabel(ref)}, sha256 ${createHash('sha256').update(Buffer.from(data, 'base64')).digest('hex').slice(0, 12)}`;
  });
  const ack = `I see ${seen.length === 1 ? 'an image' : `${seen.length} images`}: ${seen.join('; ')}.`;
  const help = answer.text === PREDICTABLE_HELP && !last.content.trim();
  return { ...answer, text: help ? ack : answer.text ? `${ack}\n\n${answer.text}` : ack };
}

function lastUserText(messages: ViewMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'user' && !m.content.startsWith('<compacted-history>')) return m.content.trim();
  }
  return '';
}

function splitCommand(text: string): [string, string?] {
  const match = /^(echo|bash|read|glob|grep|list|plan|big|delay|error|tools|tool|mcp):\s*([\s\S]*)$/i.exec(text);
  return match ? [match[1]!.toLowerCase(), match[2]!.trim()] : [''];
}

/** `[x] a; [>] b; c` -> steps done, in_progress, pending. */
function planSteps(text: string): { step: string; status: string }[] {
  const status: Record<string, string> = { x: 'done', '>': 'in_progress', ' ': 'pending', '': 'pending' };
  return text
    .split(';')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [, mark = '', step = part] = /^(?:\[([x> ]?)\]\s*)?([\s\S]*)$/i.exec(part) ?? [];
      return { step: step.trim(), status: status[mark.toLowerCase()] ?? 'pending' };
    });
}

function simulatedError(kind: string, window: number): Error {
  switch (kind) {
    case 'overflow':
      // As if the request were one token over the real window: skein learns nothing smaller, compacts and retries.
      return new ContextOverflowError(`prompt is too long: ${window + 1} tokens > ${window} maximum (simulated: error: overflow)`);
    // These two say "do not retry" (as a provider's x-should-retry: false does), so the failed-turn path shows.
    case 'overloaded':
      return new ProviderError('overloaded_error: Overloaded (simulated, not retried)', 529, false);
    case 'retry':
      return new ProviderError('overloaded_error: Overloaded (simulated, retried)', 529, true);
    default:
      return new ProviderError(`api_error: Internal server error (simulated ${kind || '500'}, not retried)`, 500, false);
  }
}

function describeToolResult(messages: ViewMessage[]): string {
  const result = messages[messages.length - 1]!;
  const call = messages.flatMap((m) => m.toolCalls ?? []).find((c) => c.id === result.toolCallId);
  const lines = result.content.split('\n');
  const preview = lines.slice(0, 6).join('\n');
  const what = call ? `\`${call.name}\` ${JSON.stringify(call.input)}` : 'The tool';
  return `${what} returned ${lines.length} line${lines.length === 1 ? '' : 's'}:\n\n\`\`\`\n${preview}\n\`\`\``;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason instanceof Error ? signal.reason : new DOMException('aborted', 'AbortError'));
      },
      { once: true },
    );
  });
}
