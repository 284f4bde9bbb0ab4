// A local Anthropic Messages API: POST /v1/messages, JSON or SSE
// (message_start, content_block_start/delta/stop with text_delta and
// input_json_delta, message_delta, message_stop). Usage as Anthropic reports
// it: input_tokens EXCLUDES cache reads and writes, with prompt caching
// simulated at the request's cache_control breakpoints. Over its window it
// answers 400 invalid_request_error "prompt is too long: ..." or "input
// length and `max_tokens` exceed context limit: ...", like the API.
import { countWith, TOKENIZERS, type FakeTokenizer } from './tokenizers.js';
import type http from 'node:http';
import type { ViewMessage } from '../../shared/protocol.js';
import { Brain, FailurePlan, type Answer, type Reported } from './brain.js';
import { withinMaxTokens } from './max-tokens.js';
import { json, listen, openSse, pieces, transportFailure, type FakeRequest } from './http.js';
import { block, PromptCache, tokens, type Block } from './prompt-cache.js';
import { CompactionRules } from './compaction.js';
import { ThinkingRules } from './thinking.js';
import { modelInfo } from '../../server/llm/models.js';
import { anthropicRejection, checkAnthropicRequest } from './rules/anthropic.js';
import { checkAnthropicTools } from './rules/tools.js';
import { refusals } from './rules/rejection.js';
import { anthropicImageTokens, checkAnthropicImages, sniff } from './rules/images.js';

export interface AnthropicUsageWire {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
}

export interface AnthropicFake {
  url: string;
  key: string;
  /** Context window the fake enforces, in its own token counts. */
  window: number;
  failures: FailurePlan;
  reported: Reported<AnthropicUsageWire>[];
  requests: any[];
  /** Preserved thinking: signs the thinking it returns, refuses what breaks the rules (test/fakes/thinking.ts). */
  thinking: ThinkingRules;
  /** On-demand compaction: answers `compaction` requests with a signed block and checks the block when it comes back (test/fakes/compaction.ts). */
  compaction: CompactionRules;
  /** Models API `capabilities` per model (absent: `capabilities: null`); set with `advertise`. */
  capabilities: Map<string, Record<string, unknown>>;
  /** Serves `capabilities` for a model from GET /v1/models/{id}, and from then on answers and refuses that model by them. */
  advertise(model: string, capabilities: Record<string, any>): void;
  /** Requests refused as too long. */
  refused: number;
  /** GET /v1/models/{id} (the Models API): answers with the window, fails (500), or is missing (404, the default). */
  modelInfo: 'advertise' | 'broken' | 'missing';
  /** false: only "prompt is too long" (input over the window), never the "input + max_tokens" refusal. */
  checkMaxTokens: boolean;
  /** Requests refused for breaking the API's rules (their error messages): a test expects none. */
  violations: string[];
  close(): Promise<void>;
}

type Wire = { type: string; [k: string]: any };

/**
 * Counts with Claude's own tokenizer (tokenizers.ts: character classes, 1.2x-1.5x skein's estimate by kind of
 * text), as the real API does. `o200k`: with skein's estimator's encoding instead, for a test that states why it
 * needs exact agreement.
 */
export async function startAnthropicFake(options: { window?: number; key?: string; modelInfo?: AnthropicFake['modelInfo']; checkMaxTokens?: boolean; o200k?: boolean } = {}): Promise<AnthropicFake> {
  const tokenizer = options.o200k ? undefined : TOKENIZERS.claude;
  // Output counted the same way as the prompt.
  const own = (text: string) => (tokenizer ? countWith(tokenizer, text) : tokens(text));
  const brain = new Brain();
  const cache = new PromptCache('explicit');
  let n = 0;
  const fake: Omit<AnthropicFake, 'url' | 'close'> = {
    key: options.key ?? 'sk-ant-test',
    window: options.window ?? 200_000,
    failures: new FailurePlan(),
    reported: [],
    requests: [],
    thinking: new ThinkingRules(),
    compaction: new CompactionRules(),
    capabilities: new Map(),
    advertise(model, capabilities) {
      fake.capabilities.set(model, capabilities);
      const thinking = capabilities.thinking;
      if (thinking?.supported && thinking.types?.adaptive?.supported) {
        fake.thinking.advertised.set(model, { mode: thinking.types.disabled?.supported === false ? 'always' : 'adaptive', preserved: modelInfo(model)?.thinking?.preserved === true });
      } else fake.thinking.advertised.set(model, { mode: 'none' });
    },
    refused: 0,
    modelInfo: options.modelInfo ?? 'missing',
    checkMaxTokens: options.checkMaxTokens ?? true,
    violations: [],
  };

  const error = (res: http.ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}) =>
    json(res, status, { type: 'error', error: { type, message }, request_id: `req_fake_${++n}` }, headers);

  const server = await listen(async (req: FakeRequest, res) => {
    const info = /^\/v1\/models\/([^/?]+)/.exec(req.url);
    if (req.method === 'GET' && info && fake.modelInfo !== 'missing') {
      if (fake.modelInfo === 'broken') return error(res, 500, 'api_error', 'Internal server error');
      const id = decodeURIComponent(info[1]!);
      return json(res, 200, { type: 'model', id, display_name: 'Fake', created_at: '2025-01-01T00:00:00Z', max_input_tokens: fake.window, max_tokens: 8192, capabilities: fake.capabilities.get(id) ?? null });
    }
    // The SDK's beta resource posts to /v1/messages?beta=true.
    if (req.method !== 'POST' || (req.url !== '/v1/messages' && req.url !== '/v1/messages?beta=true')) return error(res, 404, 'not_found_error', `Not found: ${req.url}`);
    // The key comes as x-api-key or, from newer SDKs, as a bearer token.
    if (req.headers['x-api-key'] !== fake.key && req.headers.authorization !== `Bearer ${fake.key}`) return error(res, 401, 'authentication_error', 'invalid x-api-key');
    if (!req.headers['anthropic-version']) return error(res, 400, 'invalid_request_error', 'anthropic-version header is required');
    const body = req.body;
    fake.requests.push(body);
    // Checked on every request, as the API does, before anything else.
    const beta = req.headers['anthropic-beta'];
    const compacting = fake.compaction.check(body, Array.isArray(beta) ? beta.join(',') : beta);
    const systemAt = (body.messages ?? []).findIndex((m: any) => m.role === 'system');
    const updatable = fake.capabilities.has(body.model) || modelInfo(body.model)?.systemMessages === true;
    const refused = compacting
      ? { ...anthropicRejection(compacting.message), body: { type: 'error', error: { type: 'invalid_request_error', message: compacting.message, ...(compacting.code && { details: { error_code: compacting.code } }) } } }
      : systemAt >= 0 && !updatable
        ? anthropicRejection(`messages.${systemAt}.role: role 'system' is not supported on this model`)
        : (checkAnthropicTools(body.tools) ?? checkAnthropicRequest(body) ?? checkAnthropicImages(body.messages ?? []));
    if (refused) {
      fake.violations.push(refused.message);
      refusals.push(`Anthropic fake: ${refused.message}`);
      return json(res, refused.status, { ...refused.body, request_id: `req_fake_${++n}` });
    }
    const failure = fake.failures.take();
    const broken = transportFailure(res, failure, body.stream === true, {
      json: '{"id":"msg_broken","type":"message","content":[',
      sse: 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_broken"\n\n',
    });
    if (broken) return broken;
    if (failure === 529) return error(res, 529, 'overloaded_error', 'Overloaded');
    if (failure === 429) return error(res, 429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit', { 'retry-after': '0' });
    if (typeof failure === 'number') return error(res, failure, 'api_error', 'Internal server error');

    const refusal = fake.thinking.check(body);
    if (refusal) return error(res, refusal.status, 'invalid_request_error', refusal.message);
    if (body.compaction !== undefined) {
      const content = fake.compaction.answer(body);
      const split = cache.split(requestBlocks(body, tokenizer), 7);
      const usage: AnthropicUsageWire = { input_tokens: split.uncached, cache_creation_input_tokens: split.write, cache_read_input_tokens: split.read, output_tokens: own(String(content[0]!.content)) };
      fake.reported.push({ usage, summary: true, streamed: false });
      return json(res, 200, { id: `msg_fake_${++n}`, type: 'message', role: 'assistant', model: body.model, content, stop_reason: 'compaction', stop_sequence: null, usage });
    }
    const blocks = requestBlocks(body, tokenizer);
    const split = cache.split(blocks, 7);
    if (split.total > fake.window) {
      fake.refused++;
      return error(res, 400, 'invalid_request_error', `prompt is too long: ${split.total} tokens > ${fake.window} maximum`);
    }
    if (fake.checkMaxTokens && split.total + body.max_tokens > fake.window) {
      fake.refused++;
      return error(res, 400, 'invalid_request_error', `input length and \`max_tokens\` exceed context limit: ${split.total} + ${body.max_tokens} > ${fake.window}, decrease input length or \`max_tokens\` and try again`);
    }
    const answer = await brain.answer(conversation(body));
    if (answer.kind === 'overflow') return error(res, 400, 'invalid_request_error', `prompt is too long: ${fake.window + 1} tokens > ${fake.window} maximum`);
    if (answer.kind === 'fail') return answer.status === 529 ? error(res, 529, 'overloaded_error', 'Overloaded') : error(res, answer.status, 'api_error', 'Internal server error');

    // Past max_tokens the answer stops: cut text, the whole budget as output, stop_reason "max_tokens" (max-tokens.ts).
    const limited = answer.summary ? { text: answer.text, cut: false } : withinMaxTokens(answer.text, answer.calls, body.max_tokens, own);
    const { content, thinkingTokens } = fake.thinking.produce(body, contentOf({ ...answer, text: limited.text }, ++n), lastText(body));
    const usage: AnthropicUsageWire = {
      input_tokens: split.uncached,
      cache_creation_input_tokens: split.write,
      cache_read_input_tokens: split.read,
      // Thinking is billed as output.
      output_tokens: limited.cut ? body.max_tokens : own(answer.text) + answer.calls.reduce((k, c) => k + own(JSON.stringify(c.input)), 0) + 1 + thinkingTokens,
    };
    const message = { id: `msg_fake_${n}`, type: 'message', role: 'assistant', model: body.model, content, stop_reason: answer.calls.length ? 'tool_use' : limited.cut ? 'max_tokens' : 'end_turn', stop_sequence: null, usage };
    fake.reported.push({ usage, summary: answer.summary, streamed: body.stream === true });
    if (!body.stream) return json(res, 200, message, { 'request-id': `req_fake_${n}` });
    await stream(res, message, failure === 'mid-stream');
  });
  return Object.assign(fake, { url: server.url, close: server.close });
}

async function stream(res: http.ServerResponse, message: any, breakOff: boolean): Promise<void> {
  const sse = openSse(res);
  const send = (event: Wire) => sse.send(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  const { usage, content, stop_reason } = message;
  await send({ type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } });
  await send({ type: 'ping' });
  for (const [index, b] of (content as Wire[]).entries()) {
    if (b.type === 'text') {
      await send({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const [i, text] of pieces(b.text).entries()) {
        await send({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
        // An overloaded API can fail in the middle of an answer: an `error` event, then the stream ends.
        if (breakOff && i === 1) {
          await send({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
          return sse.end();
        }
      }
    } else if (b.type === 'thinking') {
      await send({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const thinking of pieces(b.thinking)) await send({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } });
      await send({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: b.signature } });
    } else if (b.type === 'redacted_thinking') {
      await send({ type: 'content_block_start', index, content_block: { type: 'redacted_thinking', data: b.data } });
    } else {
      await send({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      for (const partial_json of pieces(JSON.stringify(b.input), 7)) await send({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
    }
    await send({ type: 'content_block_stop', index });
  }
  await send({ type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  await send({ type: 'message_stop' });
  sse.end();
}

function contentOf(answer: Extract<Answer, { kind: 'answer' }>, n: number): Wire[] {
  const content: Wire[] = answer.text ? [{ type: 'text', text: answer.text }] : [];
  answer.calls.forEach((c, i) => content.push({ type: 'tool_use', id: `toolu_fake_${n}_${i}`, name: c.name, input: c.input }));
  return content;
}

/** The latest user text (what the fake's thinking is about). */
function lastText(body: any): string {
  for (const m of [...(body.messages ?? [])].reverse()) {
    const content: Wire[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    const text = content.find((b) => b.type === 'text');
    if (m.role === 'user' && text) return String(text.text);
  }
  return '';
}

/** The prompt in the order the API reads it (tools, system, messages), each block separately cacheable. */
function requestBlocks(body: any, tokenizer?: FakeTokenizer): Block[] {
  const strip = ({ cache_control, ...rest }: Wire) => rest;
  const out: Block[] = [];
  for (const tool of body.tools ?? []) out.push(block(strip(tool), Boolean(tool.cache_control), tokenizer));
  const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? []);
  for (const b of system) out.push(block(strip(b), Boolean(b.cache_control), tokenizer));
  for (const m of body.messages) {
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    // A thinking block's signature is not billed as input: only its thinking counts (a compaction block's: its summary).
    const billed = (b: Wire) => (b.type === 'thinking' ? { type: 'thinking', thinking: b.thinking } : b.type === 'compaction' ? { type: 'compaction', content: b.content } : strip(b));
    for (const b of content) {
      const seen = b.type === 'image' && b.source?.type === 'base64' ? sniff(String(b.source.data)) : undefined;
      // An image is billed by its pixels (width x height / 750), not by its base64.
      if (seen) out.push({ key: JSON.stringify(strip(b)), tokens: anthropicImageTokens(seen), breakpoint: Boolean(b.cache_control) });
      else out.push(block({ role: m.role, ...billed(b) }, Boolean(b.cache_control), tokenizer));
    }
  }
  return out;
}

/** The wire conversation in the neutral shape the brain reads. */
function conversation(body: any): { system: string; messages: ViewMessage[]; hasTools: boolean } {
  const system = typeof body.system === 'string' ? body.system : (body.system ?? []).map((b: Wire) => b.text).join('\n');
  const messages: ViewMessage[] = [];
  for (const m of body.messages) {
    const content: Wire[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    // An instruction update and a compaction summary are context, not a turn the brain answers.
    if (m.role === 'system') continue;
    if (m.role === 'assistant') {
      const text = content.filter((b) => b.type === 'text').map((b) => b.text).join('');
      const toolCalls = content.filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id, name: b.name, input: b.input }));
      messages.push({ role: 'assistant', content: text, ...(toolCalls.length && { toolCalls }) });
      continue;
    }
    for (const b of content) {
      if (b.type === 'tool_result') {
        const text = typeof b.content === 'string' ? b.content : (b.content ?? []).map((c: Wire) => c.text).join('');
        messages.push({ role: 'tool', content: text, toolCallId: b.tool_use_id });
      } else if (b.type === 'text') messages.push({ role: 'user', content: b.text });
    }
  }
  return { system, messages, hasTools: (body.tools ?? []).length > 0 };
}
