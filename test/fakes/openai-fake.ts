// A local OpenAI chat completions server (also what Ollama, vLLM or llama.cpp
// offer): POST /v1/chat/completions as JSON or SSE chunks ending in
// `data: [DONE]`, GET /v1/models. Tool calls stream as
// choices[].delta.tool_calls[index] pieces; with parallel calls the pieces of
// different calls are interleaved, which the protocol allows (index tells
// them apart). Usage as OpenAI reports it: prompt_tokens INCLUDES
// prompt_tokens_details.cached_tokens (automatic prefix caching, simulated),
// sent in a last chunk with no choices when stream_options.include_usage is
// set. Over its window: 400 with code context_length_exceeded.
import type http from 'node:http';
import type { ViewMessage } from '../../shared/protocol.js';
import { Brain, FailurePlan, type Reported } from './brain.js';
import { withinMaxTokens } from './max-tokens.js';
import { json, listen, openSse, pieces, type FakeRequest } from './http.js';
import { block, PromptCache, tokens } from './prompt-cache.js';
import { ollamaTruncate, refusal, serveModelInfo, type WindowSettings } from './window.js';
import { EMPTY_LENGTH_ANSWER, FLAVOUR_TOKENIZER } from './dialects.js';
import { countWith, TOKENIZERS } from './tokenizers.js';
import { serveOllamaNative, type OllamaNativeState } from './ollama-native-fake.js';
import { checkOpenAIRequest } from './rules/openai.js';
import { checkOpenAIImages, openaiImageTokens, splitImages } from './rules/images.js';
import { checkOpenAITools } from './rules/tools.js';
import { refusals } from './rules/rejection.js';
import { answerRoom, cutTo, llamaUsage } from './llamacpp.js';

export interface OpenAIUsageWire {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; audio_tokens: number };
  completion_tokens_details: { reasoning_tokens: number; audio_tokens: number; accepted_prediction_tokens: number; rejected_prediction_tokens: number };
}

export interface OpenAIFake {
  url: string;
  /** undefined: a local server that takes no key (Ollama, llama.cpp). */
  key: string | undefined;
  window: number;
  models: string[];
  failures: FailurePlan;
  reported: Reported<OpenAIUsageWire>[];
  requests: any[];
  /** Requests refused for breaking the API's rules (their error messages): a test expects none. */
  violations: string[];
  /** Summary (non-streamed) answers wait this long: for the summariser timeout. */
  summaryDelayMs: number;
  /** A server family with a real window (test/fakes/window.ts): its refusals, Ollama's cutting, its model-info endpoint. */
  server?: WindowSettings;
  /** Requests refused as too long. */
  refused: number;
  /**
   * llama.cpp flavour: answers stopped because prompt and answer filled the window (the prompt fit, so no
   * refusal; not counted for an answer stopped by max_tokens): its other way of saying the window is full.
   * `refusedBefore`: requests refused before this one (0: the first time the server pushed back).
   */
  filled: { prompt: number; answer: number; refusedBefore: number }[];
  /** Ollama flavour: requests whose start was cut, and whether the first user message went with it. */
  cut: { droppedFirstUser: boolean; kept: number; sent: number }[];
  /** Ollama flavour: its native API (/api/chat with options.num_ctx), test/fakes/ollama-native-fake.ts. */
  ollama: OllamaNativeState;
  /** A model that reads no images: a request with one is refused as llama.cpp does without its projector. */
  textOnly: boolean;
  close(): Promise<void>;
}

/**
 * Counts with its own tokenizer: a server family's (`server`), else a fake of OpenAI's (tokenizers.ts), never
 * skein's estimator's encoding unless `o200k` (or `server.o200k`) is set by a test that states why it needs
 * exact agreement.
 */
export async function startOpenAIFake(options: { window?: number; key?: string | null; models?: string[]; server?: WindowSettings; o200k?: boolean } = {}): Promise<OpenAIFake> {
  const brain = new Brain();
  const cache = new PromptCache('automatic');
  let n = 0;
  const fake: Omit<OpenAIFake, 'url' | 'close'> = {
    key: options.key === null ? undefined : (options.key ?? 'sk-test'),
    window: options.window ?? 1_000_000,
    models: options.models ?? ['gpt-4.1', 'gpt-4.1-mini'],
    failures: new FailurePlan(),
    reported: [],
    requests: [],
    violations: [],
    summaryDelayMs: 0,
    ...(options.server && { server: options.server }),
    refused: 0,
    filled: [],
    cut: [],
    ollama: { requests: [], cut: [], reported: [] },
    textOnly: false,
  };
  const error = (res: http.ServerResponse, status: number, message: string, type: string, code: string | null, param: string | null = null) =>
    json(res, status, { error: { message, type, param, code } });

  const server = await listen(async (req: FakeRequest, res) => {
    if (fake.key !== undefined && req.headers.authorization !== `Bearer ${fake.key}`) {
      return error(res, 401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
    }
    if (await serveOllamaNative(fake.server, fake.models, brain, fake.ollama, req, res)) return;
    if (serveModelInfo(fake.server, fake.models, req, res)) return;
    if (req.method === 'GET' && req.url === '/v1/models') {
      return json(res, 200, { object: 'list', data: fake.models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'fake' })) });
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return error(res, 404, `Unknown request URL: ${req.method} ${req.url}`, 'invalid_request_error', 'unknown_url');
    const body = req.body;
    fake.requests.push(body);
    // Checked on every request, as the API does, before anything else.
    const refused = checkOpenAITools(body.tools) ?? checkOpenAIRequest(body) ?? checkOpenAIImages(body.messages ?? []);
    if (refused) {
      fake.violations.push(refused.message);
      refusals.push(`OpenAI fake: ${refused.message}`);
      return json(res, refused.status, refused.body);
    }
    // A local server whose model has no vision projector (llama.cpp's answer, a 500).
    if (fake.textOnly && JSON.stringify(body.messages).includes('"image_url"')) {
      return json(res, 500, { error: { code: 500, message: 'image input is not supported - hint: if this is unexpected, you may need to provide the mmproj', type: 'server_error' } });
    }
    const failure = fake.failures.take();
    if (failure === 'reset') return void res.socket?.destroy();
    if (failure === 'hang') return new Promise<void>((resolve) => res.on('close', () => resolve()));
    if (failure === 'malformed') {
      res.writeHead(200, { 'content-type': body.stream ? 'text/event-stream' : 'application/json' });
      return void res.end(body.stream ? 'data: {"id":"chatcmpl-broken","choices":[{"delta":{"content":"par\n\n' : '{"id":"chatcmpl-broken","choices":[');
    }
    if (failure === 'truncated') {
      const sse = openSse(res);
      await sse.send(`data: ${JSON.stringify({ id: 'chatcmpl-cut', object: 'chat.completion.chunk', created: 0, model: body.model, choices: [{ index: 0, delta: { role: 'assistant', content: 'This answer is cut o' }, finish_reason: null }] })}\n\n`);
      return void res.socket?.destroy();
    }
    if (failure === 429) return error(res, 429, 'Rate limit reached for requests', 'requests', 'rate_limit_exceeded');
    if (failure === 503) return error(res, 503, 'The engine is currently overloaded, please try again later', 'server_error', null);
    if (typeof failure === 'number') return error(res, failure, 'The server had an error while processing your request. Sorry about that!', 'server_error', null);

    const maxOut = body.max_completion_tokens ?? body.max_tokens ?? 0;
    // A server family counts with its model's own tokenizer (tokenizers.ts), not skein's.
    const tokenizer = options.o200k || fake.server?.o200k ? undefined : fake.server ? FLAVOUR_TOKENIZER[fake.server.flavour] : TOKENIZERS.openai;
    const toolBlocks = (body.tools ?? []).map((t: unknown) => block(t, false, tokenizer));
    const count = (messages: unknown[]) => [...toolBlocks, ...messages.map((m) => messageBlock(m, tokenizer))].reduce((n, b) => n + b.tokens, 3);
    if (fake.server?.flavour === 'ollama') {
      // Ollama does not refuse: it drops the start of the conversation to fit num_ctx and says nothing.
      const sent = count(body.messages);
      const { kept, droppedFirstUser } = ollamaTruncate(body.messages as { role: string }[], count, fake.server.window);
      if (kept.length < body.messages.length) fake.cut.push({ droppedFirstUser, kept: count(kept), sent, ...(!body.tools?.length && { summary: true }) } as never);
      body.messages = kept;
    }
    const split = cache.split([...toolBlocks, ...body.messages.map((m: unknown) => messageBlock(m, tokenizer))], 3);
    if (fake.server) {
      const refused = refusal(fake.server, split.total, maxOut);
      if (refused) {
        fake.refused++;
        // The raw body as the family sends it (some are not an OpenAI-shaped object at all).
        res.writeHead(refused.status, { 'content-type': 'application/json' });
        return void res.end(refused.body);
      }
      if (EMPTY_LENGTH_ANSWER.has(fake.server.flavour) && split.total + maxOut > fake.server.window) {
        // LMDeploy: nothing written, finish_reason "length", 0 completion tokens (lmdeploy/serve/async_engine.py).
        fake.refused++;
        const usage = { prompt_tokens: split.total, completion_tokens: 0, total_tokens: split.total };
        const base = { id: `chatcmpl-fake-${++n}`, created: Math.floor(Date.now() / 1000), model: body.model };
        if (!body.stream) return json(res, 200, { ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: '' }, logprobs: null, finish_reason: 'length' }], usage });
        const sse = openSse(res);
        await sse.send(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: 'length' }] })}\n\n`);
        if (body.stream_options?.include_usage) await sse.send(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage })}\n\n`);
        await sse.send('data: [DONE]\n\n');
        return sse.end();
      }
    }
    const tooLong = () =>
      error(res, 400, `This model's maximum context length is ${fake.window} tokens. However, you requested ${split.total + maxOut} tokens (${split.total} in the messages, ${maxOut} in the completion). Please reduce the length of the messages or completion.`, 'invalid_request_error', 'context_length_exceeded', 'messages');
    if (split.total + maxOut > fake.window) return tooLong();
    const said = await brain.answer(conversation(body));
    if (said.kind === 'overflow') return tooLong();
    if (said.kind === 'fail') return error(res, said.status === 529 ? 503 : said.status, 'The server had an error while processing your request.', 'server_error', null);

    const id = `chatcmpl-fake-${++n}`;
    const own = (text: string) => (tokenizer ? countWith(tokenizer, text) : tokens(text));
    // Past max_tokens the answer stops: cut text, the budget as completion_tokens, finish_reason "length" (max-tokens.ts).
    const limited = said.summary ? { text: said.text, cut: false } : withinMaxTokens(said.text, said.calls, maxOut, own);
    const answer = { ...said, text: limited.text };
    const calls = answer.calls.map((c, i) => ({ id: `call_fake_${n}_${i}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } }));
    let completion = limited.cut ? maxOut : own(answer.text) + calls.reduce((k, c) => k + own(c.function.arguments), 0) + 1;
    // llama.cpp accepts a prompt that fits and stops the answer at max_tokens or a full context ("length").
    const llama = fake.server?.flavour === 'llamacpp';
    const room = llama ? answerRoom(fake.server!.window, split.total, maxOut) : Infinity;
    const cut = limited.cut || completion > room;
    if (completion > room) {
      if (room < (maxOut || Infinity)) fake.filled.push({ prompt: split.total, answer: room, refusedBefore: fake.refused });
      answer.text = cutTo(answer.text, room, own);
      calls.length = 0;
      completion = room;
    }
    const usage: OpenAIUsageWire = {
      prompt_tokens: split.total,
      completion_tokens: completion,
      total_tokens: split.total + completion,
      prompt_tokens_details: { cached_tokens: split.read, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    };
    fake.reported.push({ usage, summary: answer.summary, streamed: body.stream === true });
    const wireUsage = llama ? llamaUsage(usage.prompt_tokens, completion, split.read) : usage;
    const finish = calls.length ? 'tool_calls' : cut ? 'length' : 'stop';
    const base = { id, created: Math.floor(Date.now() / 1000), model: body.model, system_fingerprint: 'fp_fake' };
    if (!body.stream) {
      if (answer.summary && fake.summaryDelayMs) await new Promise((r) => setTimeout(r, fake.summaryDelayMs));
      const message = { role: 'assistant', content: answer.text || null, refusal: null, annotations: [], ...(calls.length && { tool_calls: calls }) };
      return json(res, 200, { ...base, object: 'chat.completion', choices: [{ index: 0, message, logprobs: null, finish_reason: finish }], usage: wireUsage, service_tier: 'default' });
    }
    const withUsage = body.stream_options?.include_usage === true;
    // OpenAI sends `usage: null` on every chunk when asked for usage; llama.cpp only the last chunk's.
    const nullUsage = withUsage && !llama;
    const sse = openSse(res);
    const chunk = (delta: object, finish_reason: string | null = null) =>
      sse.send(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, logprobs: null, finish_reason }], ...(nullUsage && { usage: null }) })}\n\n`);
    await chunk({ role: 'assistant', content: '', refusal: null });
    for (const text of pieces(answer.text)) await chunk({ content: text });
    // Each call opens with its id and name, then its arguments come in pieces, interleaved across calls.
    for (const [index, c] of calls.entries()) await chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }] });
    const parts = calls.map((c) => pieces(c.function.arguments, 5));
    for (let i = 0; parts.some((p) => i < p.length); i++) {
      for (const [index, p] of parts.entries()) if (i < p.length) await chunk({ tool_calls: [{ index, function: { arguments: p[i] } }] });
    }
    await chunk({}, finish);
    if (withUsage) await sse.send(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage: wireUsage })}\n\n`);
    await sse.send('data: [DONE]\n\n');
    sse.end();
  });
  return Object.assign(fake, { url: `${server.url}/v1`, close: server.close });
}

function conversation(body: any): { system: string; messages: ViewMessage[]; hasTools: boolean } {
  const text = (c: any): string => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: any) => p.text ?? '').join('') : '');
  const system = body.messages.filter((m: any) => m.role === 'system' || m.role === 'developer').map((m: any) => text(m.content)).join('\n');
  const messages: ViewMessage[] = body.messages.flatMap((m: any): ViewMessage[] => {
    if (m.role === 'user') return [{ role: 'user', content: text(m.content) }];
    if (m.role === 'tool') return [{ role: 'tool', content: text(m.content), toolCallId: m.tool_call_id }];
    if (m.role !== 'assistant') return [];
    const toolCalls = (m.tool_calls ?? []).map((c: any) => ({ id: c.id, name: c.function.name, input: JSON.parse(c.function.arguments || '{}') }));
    return [{ role: 'assistant', content: text(m.content), ...(toolCalls.length && { toolCalls }) }];
  });
  return { system, messages, hasTools: (body.tools ?? []).length > 0 };
}

/** A message's tokens: its text as the tokenizer counts it, each image by OpenAI's tile rule (not its base64). */
function messageBlock(message: unknown, tokenizer: Parameters<typeof block>[2]) {
  const { rest, images } = splitImages(message);
  const counted = block(rest, false, tokenizer);
  return { ...counted, key: images.length ? JSON.stringify(message) : counted.key, tokens: counted.tokens + images.reduce((n, i) => n + openaiImageTokens(i.image, i.detail), 0) };
}
