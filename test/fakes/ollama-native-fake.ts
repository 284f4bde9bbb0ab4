// Ollama's own API beside its OpenAI-compatible one, as the OpenAI fake's
// `ollama` flavour serves it: GET /api/version, and POST /api/chat, which
// takes `options.num_ctx` per request (the OpenAI-compatible endpoint takes
// none: it keeps the server's default). As the real server does: the context
// is the request's num_ctx, capped at the model's trained context_length
// (else the server's default); a prompt longer than that loses its start
// silently (system messages and the last message stay); the answer streams as
// newline-delimited JSON, tool calls whole with object arguments, and the last
// object carries prompt_eval_count (what was kept) and eval_count. The loaded
// context shows in /api/ps. Requests break no rule of the real API: a tool
// call's arguments must be an object, roles are Ollama's four, options an
// object with an integer num_ctx.
import type http from 'node:http';
import type { ViewMessage } from '../../shared/protocol.js';
import type { Brain } from './brain.js';
import { json, pieces, type FakeRequest } from './http.js';
import { block, tokens } from './prompt-cache.js';
import { refusals } from './rules/rejection.js';
import { ollamaTruncate, type WindowSettings } from './window.js';
import { FLAVOUR_TOKENIZER } from './dialects.js';

/** The fake model's trained context (what /api/show names as llama.context_length). */
export const OLLAMA_TRAINED_CONTEXT = 131_072;

export interface OllamaNativeState {
  /** The context of the loaded runner (what /api/ps reports), once a request loaded it. */
  loaded?: number;
  /** Native chat requests, as sent. */
  requests: any[];
  /** Native requests cut to fit: what was sent and kept, and whether the first user message went. */
  cut: { droppedFirstUser: boolean; kept: number; sent: number; numCtx: number }[];
  /** prompt_eval_count of each native answer. */
  reported: number[];
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/** The real server's checks, by its decoding (Go's json into api.ChatRequest) and its handler. */
export function checkOllamaChat(body: any, models: string[]): { status: number; error: string } | undefined {
  if (!body || typeof body !== 'object') return { status: 400, error: 'missing request body' };
  if (!models.includes(body.model)) return { status: 404, error: `model '${body.model}' not found` };
  if (body.options !== undefined && (typeof body.options !== 'object' || Array.isArray(body.options))) return { status: 400, error: 'json: cannot unmarshal into Go struct field ChatRequest.options of type map[string]interface {}' };
  const numCtx = body.options?.num_ctx;
  if (numCtx !== undefined && !Number.isInteger(numCtx)) return { status: 400, error: `option "num_ctx" must be of type integer` };
  if (!Array.isArray(body.messages)) return { status: 400, error: 'json: cannot unmarshal into Go struct field ChatRequest.messages of type []api.Message' };
  for (const m of body.messages) {
    if (!ROLES.has(m?.role)) return { status: 400, error: `invalid role: ${m?.role}` };
    if (typeof m.content !== 'string') return { status: 400, error: 'json: cannot unmarshal into Go struct field Message.messages.content of type string' };
    for (const c of m.tool_calls ?? []) {
      const args = c?.function?.arguments;
      if (!args || typeof args !== 'object' || Array.isArray(args)) return { status: 400, error: 'json: cannot unmarshal string into Go struct field ToolCallFunction.messages.tool_calls.function.arguments of type api.ToolCallFunctionArguments' };
    }
  }
  return undefined;
}

/** Answers Ollama's own endpoints; returns false for any other request. */
export async function serveOllamaNative(w: WindowSettings | undefined, models: string[], brain: Brain, state: OllamaNativeState, req: FakeRequest, res: http.ServerResponse): Promise<boolean> {
  // A server that hides its model-info endpoints stands for an unknown one: no Ollama API either.
  if (w?.flavour !== 'ollama' || !w.advertise) return false;
  const url = req.url.split('?')[0];
  if (req.method === 'GET' && url === '/api/version') {
    json(res, 200, { version: '0.12.6' });
    return true;
  }
  if (req.method === 'GET' && url === '/api/ps' && state.loaded !== undefined) {
    json(res, 200, { models: models.map((name) => ({ name, model: name, size: 1, context_length: state.loaded })) });
    return true;
  }
  if (req.method !== 'POST' || url !== '/api/chat') return false;
  const body = req.body;
  state.requests.push(body);
  const bad = checkOllamaChat(body, models);
  if (bad) {
    refusals.push(`Ollama fake /api/chat: ${bad.error}`);
    json(res, bad.status, { error: bad.error });
    return true;
  }
  // The request's num_ctx wins over the server's default, capped at what the model was trained for.
  const numCtx = Math.min(body.options?.num_ctx ?? w.window, OLLAMA_TRAINED_CONTEXT);
  state.loaded = numCtx;
  // Counted with the model's own tokenizer (tokenizers.ts), not skein's.
  const tokenizer = w.o200k ? undefined : FLAVOUR_TOKENIZER.ollama;
  const toolBlocks = (body.tools ?? []).map((t: unknown) => block(t, false, tokenizer));
  const count = (messages: unknown[]) => [...toolBlocks, ...messages.map((m) => block(m, false, tokenizer))].reduce((n, b) => n + b.tokens, 3);
  const sent = count(body.messages);
  const { kept, droppedFirstUser } = ollamaTruncate(body.messages as { role: string }[], count, numCtx);
  if (kept.length < body.messages.length) state.cut.push({ droppedFirstUser, kept: count(kept), sent, numCtx });
  const prompt = count(kept);
  state.reported.push(prompt);
  const answer = await brain.answer(conversation(kept, (body.tools ?? []).length > 0));
  if (answer.kind !== 'answer') {
    json(res, 500, { error: 'llama runner process has terminated: exit status 2' });
    return true;
  }
  const calls = answer.calls.map((c, i) => ({ id: `call_${state.requests.length}_${i}`, function: { index: i, name: c.name, arguments: c.input } }));
  const evalCount = tokens(answer.text) + calls.reduce((k, c) => k + tokens(JSON.stringify(c.function.arguments)), 0) + 1;
  const base = { model: body.model, created_at: new Date().toISOString() };
  const last = { ...base, message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', total_duration: 1000, load_duration: 10, prompt_eval_count: prompt, prompt_eval_duration: 100, eval_count: evalCount, eval_duration: 500 };
  if (body.stream === false) {
    json(res, 200, { ...last, message: { role: 'assistant', content: answer.text, ...(calls.length && { tool_calls: calls }) } });
    return true;
  }
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  const line = (o: object) => new Promise<void>((resolve) => res.write(`${JSON.stringify(o)}\n`, () => setImmediate(resolve)));
  for (const text of pieces(answer.text)) await line({ ...base, message: { role: 'assistant', content: text }, done: false });
  if (calls.length) await line({ ...base, message: { role: 'assistant', content: '', tool_calls: calls }, done: false });
  await line(last);
  res.end();
  return true;
}

function conversation(messages: any[], hasTools: boolean): { system: string; messages: ViewMessage[]; hasTools: boolean } {
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n');
  return {
    system,
    hasTools,
    messages: messages.flatMap((m): ViewMessage[] => {
      if (m.role === 'user') return [{ role: 'user', content: m.content }];
      if (m.role === 'tool') return [{ role: 'tool', content: m.content, ...(m.tool_call_id && { toolCallId: m.tool_call_id }) }];
      if (m.role !== 'assistant') return [];
      const toolCalls = (m.tool_calls ?? []).map((c: any) => ({ id: c.id, name: c.function.name, input: c.function.arguments }));
      return [{ role: 'assistant', content: m.content, ...(toolCalls.length && { toolCalls }) }];
    }),
  };
}
