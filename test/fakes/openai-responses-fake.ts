// A local OpenAI Responses API for reasoning models: POST /v1/responses as
// JSON or SSE events (response.created, response.output_item.added,
// response.reasoning_summary_text.delta, response.output_text.delta,
// response.function_call_arguments.delta, response.output_item.done,
// response.completed). Every answer starts with a reasoning item whose
// encrypted_content is an HMAC-signed token tied to the model, returned only
// when the request includes "reasoning.encrypted_content". Usage as OpenAI
// reports it: input_tokens INCLUDES input_tokens_details.cached_tokens,
// output_tokens INCLUDES output_tokens_details.reasoning_tokens. It refuses,
// with OpenAI's texts:
// - a function call sent back without the reasoning item it came with
//   ("Item 'fc_…' of type 'function_call' was provided without its required 'reasoning' item: 'rs_…'.");
// - a reasoning item without its encrypted content when store is false (404 "Item with id 'rs_…' not found. …");
// - encrypted content that is not the fake's or belongs to another model ("The encrypted content for item rs_… could not be verified.").
// POST /v1/responses/compact answers the input's user messages and one
// `compaction` item (encrypted content sealed like reasoning's) as a
// `response.compaction` object; a compaction item sent back must be this
// model's and unedited (same refusal as reasoning), and /compact refuses an
// empty input ("input: the input to compact is empty").
import { createHmac, randomBytes } from 'node:crypto';
import type http from 'node:http';
import type { ViewMessage } from '../../shared/protocol.js';
import { Brain, FailurePlan, type Reported } from './brain.js';
import { withinMaxTokens } from './max-tokens.js';
import { json, listen, openSse, pieces, type FakeRequest } from './http.js';
import { block, PromptCache, tokens } from './prompt-cache.js';
import { openaiDataUrl, openaiImageTokens, splitImages } from './rules/images.js';
import { ReturnedAnswers } from './round-trip.js';
import { countWith, TOKENIZERS, type FakeTokenizer } from './tokenizers.js';
import { refusals } from './rules/rejection.js';

export interface ResponsesUsageWire {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface ResponsesFake {
  url: string;
  key: string;
  window: number;
  failures: FailurePlan;
  reported: Reported<ResponsesUsageWire>[];
  requests: any[];
  /** Every 4xx the fake answered (the tests expect none from skein). */
  refusals: string[];
  /** POST /v1/responses/compact requests answered. */
  compactions: number;
  close(): Promise<void>;
}

type Item = { type?: string; [k: string]: any };

/** Counts with a fake of OpenAI's own tokenizer (tokenizers.ts), not skein's estimator's encoding unless `o200k` (a test that states why it needs exact agreement). */
export async function startResponsesFake(options: { window?: number; o200k?: boolean } = {}): Promise<ResponsesFake> {
  const tokenizer = options.o200k ? undefined : TOKENIZERS.openai;
  const own = (text: string) => (tokenizer ? countWith(tokenizer, text) : tokens(text));
  const brain = new Brain();
  const cache = new PromptCache('automatic');
  const secret = randomBytes(16);
  /** call_id -> the function_call item's id and the reasoning item it needs. */
  const issued = new Map<string, { fc: string; rs: string }>();
  let n = 0;
  /** Every answer as returned, keyed by its reasoning item's id: it must come back whole and in order (round-trip.ts). */
  const returned = new ReturnedAnswers((i) => (i.type === 'reasoning' ? String(i.id) : undefined));
  const fake: Omit<ResponsesFake, 'url' | 'close'> = { key: 'sk-test', window: options.window ?? 1_000_000, failures: new FailurePlan(), reported: [], requests: [], refusals: [], compactions: 0 };
  const error = (res: http.ServerResponse, status: number, message: string, code: string | null, param: string | null = null) => {
    if (status < 500 && status !== 429) fake.refusals.push(message);
    json(res, status, { error: { message, type: 'invalid_request_error', param, code } });
  };
  const seal = (model: string, rs: string) => `${rs}.${createHmac('sha256', secret).update(`${model}\n${rs}`).digest('base64url')}`;

  const server = await listen(async (req: FakeRequest, res) => {
    if (req.headers.authorization !== `Bearer ${fake.key}`) return error(res, 401, 'Incorrect API key provided.', 'invalid_api_key');
    const compact = req.url === '/v1/responses/compact';
    if (req.method !== 'POST' || (req.url !== '/v1/responses' && !compact)) return error(res, 404, `Unknown request URL: ${req.method} ${req.url}`, 'unknown_url');
    const body = req.body;
    fake.requests.push(body);
    const failure = fake.failures.take();
    if (typeof failure === 'number') return error(res, failure, 'The server had an error while processing your request. Sorry about that!', null);
    const input: Item[] = Array.isArray(body.input) ? body.input : [{ role: 'user', content: String(body.input ?? '') }];

    // Images: each `input_image` a data URL of a real image, as the API checks it.
    for (const [i, item] of input.entries()) {
      for (const [j, part] of (Array.isArray(item.content) ? (item.content as any[]) : []).entries()) {
        if (part?.type !== 'input_image') continue;
        const refused = openaiDataUrl(String(part.image_url ?? ''), `input[${i}].content[${j}].image_url`);
        if (refused) {
          refusals.push(`OpenAI Responses fake: ${refused.message}`);
          return error(res, 400, refused.message, 'invalid_value', `input[${i}].content[${j}].image_url`);
        }
      }
    }
    // Reasoning and compaction items: self-contained only with their encrypted content, which must be this model's.
    for (const item of input.filter((i) => i.type === 'reasoning' || i.type === 'compaction')) {
      if (typeof item.encrypted_content !== 'string') {
        if (body.store === false || item.type === 'compaction') return error(res, 404, `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`, null, 'input');
        continue;
      }
      if (item.encrypted_content !== seal(body.model, String(item.id))) return error(res, 400, `The encrypted content for item ${item.id} could not be verified.`, 'invalid_encrypted_content');
    }
    const changed = returned.firstChange(input);
    if (changed) {
      const item = input[changed.index]!;
      refusals.push(`OpenAI Responses fake: an answer was not sent back as returned at input[${changed.index}] (expected ${changed.expected})`);
      return error(res, 400, `Item '${String(item.id ?? item.call_id ?? changed.index)}' of type '${String(item.type ?? item.role)}' at input[${changed.index}] does not match the output it was returned in; send output items back unchanged and in order.`, null, 'input');
    }
    // A tool-call continuation: each call this fake issued comes back right after its own reasoning item.
    for (const [i, item] of input.entries()) {
      if (item.type !== 'function_call') continue;
      const origin = issued.get(String(item.call_id));
      if (!origin) continue;
      let j = i - 1;
      while (j >= 0 && (input[j]!.type === 'function_call' || input[j]!.type === 'message' || input[j]!.role === 'assistant')) j--;
      const before = input[j];
      if (before?.type !== 'reasoning' || before.id !== origin.rs) {
        return error(res, 400, `Item '${origin.fc}' of type 'function_call' was provided without its required 'reasoning' item: '${origin.rs}'.`, null, 'input');
      }
    }

    if (compact) {
      if (!input.length) return error(res, 400, 'input: the input to compact is empty', null, 'input');
      const k = ++n;
      const id = `cmp_fake_${k}`;
      const users = input.filter((i) => i.role === 'user').map((i) => ({ type: 'message', role: 'user', content: typeof i.content === 'string' ? [{ type: 'input_text', text: i.content }] : i.content }));
      const output = [...users, { id, type: 'compaction', encrypted_content: seal(body.model, id) }];
      const split = cache.split([block(body.instructions ?? '', false, tokenizer), ...input.map((m) => block(m.type === 'reasoning' ? { summary: m.summary } : m, false, tokenizer))], 3);
      const usage: ResponsesUsageWire = { input_tokens: split.total, input_tokens_details: { cached_tokens: split.read }, output_tokens: 40, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: split.total + 40 };
      fake.compactions++;
      fake.reported.push({ usage, summary: true, streamed: false });
      return json(res, 200, { id: `resp_cmp_${k}`, object: 'response.compaction', created_at: Math.floor(Date.now() / 1000), output, usage });
    }
    // A reasoning item counts as its summary (the encrypted blob and item ids are not billed as text).
    const billed = (m: Item) => (m.type === 'reasoning' ? { type: 'reasoning', summary: m.summary } : m.type === 'compaction' ? { type: 'compaction', size: 40 } : m);
    const split = cache.split([block(body.instructions ?? '', false, tokenizer), ...(body.tools ?? []).map((t: unknown) => block(t, false, tokenizer)), ...input.map((m) => itemBlock(billed(m), tokenizer))], 3);
    const maxOut = body.max_output_tokens ?? 0;
    const tooLong = () => error(res, 400, 'Your input exceeds the context window of this model. Please adjust your input and try again.', 'context_length_exceeded', 'input');
    if (split.total + maxOut > fake.window) return tooLong();
    const said = await brain.answer(conversation(body, input));
    if (said.kind === 'overflow') return tooLong();
    if (said.kind === 'fail') return error(res, said.status === 529 ? 503 : said.status, 'The server had an error while processing your request.', null);

    const k = ++n;
    const rs = `rs_fake_${k}`;
    const summary = `Considering the request step by step (answer ${k}).`;
    const reasoningTokens = own(summary) * 3;
    // Past max_output_tokens (reasoning included) the answer stops: status "incomplete", incomplete_details.reason
    // "max_output_tokens", the message item "incomplete", the stream's last event response.incomplete (max-tokens.ts).
    const limited = said.summary || !maxOut ? { text: said.text, cut: false } : withinMaxTokens(said.text, said.calls, Math.max(1, maxOut - reasoningTokens), own);
    const answer = { ...said, text: limited.text };
    const reasoning: Item = { id: rs, type: 'reasoning', summary: [{ type: 'summary_text', text: summary }], ...((body.include ?? []).includes('reasoning.encrypted_content') && { encrypted_content: seal(body.model, rs) }) };
    const output: Item[] = [reasoning];
    if (answer.text) output.push({ id: `msg_fake_${k}`, type: 'message', status: limited.cut ? 'incomplete' : 'completed', role: 'assistant', content: [{ type: 'output_text', text: answer.text, annotations: [] }] });
    answer.calls.forEach((c, i) => {
      const call = { id: `fc_fake_${k}_${i}`, type: 'function_call', status: 'completed', call_id: `call_fake_${k}_${i}`, name: c.name, arguments: JSON.stringify(c.input) };
      issued.set(call.call_id, { fc: call.id, rs });
      output.push(call);
    });
    returned.remember(output);
    const visible = limited.cut ? Math.max(1, maxOut - reasoningTokens) : own(answer.text) + answer.calls.reduce((t, c) => t + own(JSON.stringify(c.input)), 0) + 1;
    const usage: ResponsesUsageWire = {
      input_tokens: split.total,
      input_tokens_details: { cached_tokens: split.read },
      output_tokens: visible + reasoningTokens,
      output_tokens_details: { reasoning_tokens: reasoningTokens },
      total_tokens: split.total + visible + reasoningTokens,
    };
    fake.reported.push({ usage, summary: answer.summary, streamed: body.stream === true });
    const response = { id: `resp_fake_${k}`, object: 'response', created_at: Math.floor(Date.now() / 1000), status: limited.cut ? 'incomplete' : 'completed', model: body.model, output, usage, error: null, incomplete_details: limited.cut ? { reason: 'max_output_tokens' } : null, store: body.store ?? true };
    if (!body.stream) return json(res, 200, response);

    const sse = openSse(res);
    let seq = 0;
    const send = (event: Item) => sse.send(`event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: seq++ })}\n\n`);
    await send({ type: 'response.created', response: { ...response, status: 'in_progress', output: [], usage: null } });
    for (const [output_index, item] of output.entries()) {
      if (item.type === 'reasoning') {
        await send({ type: 'response.output_item.added', output_index, item: { ...item, summary: [] } });
        for (const delta of pieces(summary)) await send({ type: 'response.reasoning_summary_text.delta', item_id: item.id, output_index, summary_index: 0, delta });
      } else if (item.type === 'message') {
        await send({ type: 'response.output_item.added', output_index, item: { ...item, status: 'in_progress', content: [] } });
        for (const delta of pieces(answer.text)) await send({ type: 'response.output_text.delta', item_id: item.id, output_index, content_index: 0, delta, logprobs: [] });
      } else {
        await send({ type: 'response.output_item.added', output_index, item: { ...item, status: 'in_progress', arguments: '' } });
        for (const delta of pieces(item.arguments, 7)) await send({ type: 'response.function_call_arguments.delta', item_id: item.id, output_index, delta });
      }
      await send({ type: 'response.output_item.done', output_index, item });
    }
    await send({ type: limited.cut ? 'response.incomplete' : 'response.completed', response });
    sse.end();
  });
  return Object.assign(fake, { url: `${server.url}/v1`, close: server.close });
}

/** The input items in the neutral shape the brain reads. */
function conversation(body: any, input: Item[]): { system: string; messages: ViewMessage[]; hasTools: boolean } {
  const text = (c: unknown): string => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: any) => p.text ?? '').join('') : '');
  const messages: ViewMessage[] = [];
  for (const item of input) {
    if (item.type === 'function_call') {
      const call = { id: String(item.call_id), name: String(item.name), input: JSON.parse(String(item.arguments || '{}')) };
      const last = messages.at(-1);
      if (last?.role === 'assistant') (last.toolCalls ??= []).push(call);
      else messages.push({ role: 'assistant', content: '', toolCalls: [call] });
    } else if (item.type === 'function_call_output') messages.push({ role: 'tool', content: String(item.output), toolCallId: String(item.call_id) });
    else if (item.role === 'user') messages.push({ role: 'user', content: text(item.content) });
    else if (item.role === 'assistant') messages.push({ role: 'assistant', content: text(item.content) });
  }
  return { system: String(body.instructions ?? ''), messages, hasTools: (body.tools ?? []).length > 0 };
}

/** An input item's tokens: its text by the tokenizer, each `input_image` by OpenAI's tile rule. */
function itemBlock(item: unknown, tokenizer: FakeTokenizer | undefined) {
  const { rest, images } = splitImages(item);
  if (!images.length) return block(item, false, tokenizer);
  return { key: JSON.stringify(item), tokens: block(rest, false, tokenizer).tokens + images.reduce((n, i) => n + openaiImageTokens(i.image, i.detail), 0), breakpoint: false };
}
