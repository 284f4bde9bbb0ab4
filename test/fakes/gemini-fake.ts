// A local Gemini API: POST /v1beta/models/{model}:generateContent (JSON) and
// :streamGenerateContent?alt=sse (`data: {...}` chunks, usageMetadata on
// each, the finish reason on the last). Usage as Gemini reports it:
// promptTokenCount INCLUDES cachedContentTokenCount (implicit caching,
// simulated). Function calls come whole, parallel ones as several parts;
// `gemini-3…` models carry a thoughtSignature on the first call of a step and
// refuse a replayed call without one, like the API. Over its window: 400
// INVALID_ARGUMENT "The input token count (N) exceeds the maximum number of
// tokens allowed (M)."
import { countWith, TOKENIZERS } from './tokenizers.js';
import type http from 'node:http';
import type { ViewMessage } from '../../shared/protocol.js';
import { Brain, FailurePlan, type Reported } from './brain.js';
import { withinMaxTokens } from './max-tokens.js';
import { thinkingRefusal, thoughtSummary } from './gemini-thinking.js';
import { ReturnedAnswers } from './round-trip.js';
import { json, listen, openSse, pieces, transportFailure, type FakeRequest } from './http.js';
import { block, PromptCache, tokens } from './prompt-cache.js';
import { checkGeminiRequest } from './rules/gemini.js';
import { checkGeminiTools } from './rules/tools.js';
import { refusals } from './rules/rejection.js';
import { checkGeminiImages, geminiImageTokens, splitImages } from './rules/images.js';

export interface GeminiUsageWire {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount?: number;
  /** Thinking tokens (billed as output, not in candidatesTokenCount). */
  thoughtsTokenCount?: number;
  promptTokensDetails: { modality: string; tokenCount: number }[];
}

export interface GeminiFake {
  url: string;
  key: string;
  window: number;
  failures: FailurePlan;
  reported: Reported<GeminiUsageWire>[];
  requests: any[];
  /** Requests refused for breaking the API's rules (their error messages): a test expects none. */
  violations: string[];
  /** Signatures this fake issued; a gemini-3 request must send them back. */
  signatures: Set<string>;
  /** Requests refused as too long. */
  refused: number;
  /** GET /v1beta/models/{model} (models.get): answers with the limits, fails (500), or is missing (404, the default). */
  modelInfo: 'advertise' | 'broken' | 'missing';
  close(): Promise<void>;
}

const STATUS: Record<number, string> = { 400: 'INVALID_ARGUMENT', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE' };
const SKIP = 'skip_thought_signature_validator';

/**
 * Counts with Gemini's own tokenizer (tokenizers.ts: character classes, 0.75x-1.2x skein's estimate by kind of
 * text), as the real API does. `o200k`: with skein's estimator's encoding instead, for a test that states why it
 * needs exact agreement.
 */
export async function startGeminiFake(options: { window?: number; key?: string; modelInfo?: GeminiFake['modelInfo']; o200k?: boolean } = {}): Promise<GeminiFake> {
  const tokenizer = options.o200k ? undefined : TOKENIZERS.gemini;
  // Output counted the same way as the prompt.
  const own = (text: string) => (tokenizer ? countWith(tokenizer, text) : tokens(text));
  const brain = new Brain();
  const cache = new PromptCache('automatic');
  let n = 0;
  /** Every answer with a thought signature, as returned (all its parts, as streamed), keyed by the signature. */
  const returned = new ReturnedAnswers((p) => (typeof p.thoughtSignature === 'string' ? p.thoughtSignature : undefined));
  const fake: Omit<GeminiFake, 'url' | 'close'> = {
    key: options.key ?? 'gemini-test-key',
    window: options.window ?? 1_048_576,
    failures: new FailurePlan(),
    reported: [],
    requests: [],
    violations: [],
    signatures: new Set(),
    refused: 0,
    modelInfo: options.modelInfo ?? 'missing',
  };
  const error = (res: http.ServerResponse, code: number, message: string) => json(res, code, { error: { code, message, status: STATUS[code] ?? 'UNKNOWN' } });

  const server = await listen(async (req: FakeRequest, res) => {
    const info = /^\/v1beta\/models\/([^:/?]+)(\?.*)?$/.exec(req.url);
    if (req.method === 'GET' && info && fake.modelInfo !== 'missing') {
      if (fake.modelInfo === 'broken') return error(res, 500, 'An internal error has occurred.');
      return json(res, 200, { name: `models/${info[1]}`, version: '001', displayName: 'Fake', inputTokenLimit: fake.window, outputTokenLimit: 8192, supportedGenerationMethods: ['generateContent'] });
    }
    const route = /^\/v1beta\/models\/([^:]+):(generateContent|streamGenerateContent)(\?alt=sse)?$/.exec(req.url);
    if (req.method !== 'POST' || !route) return error(res, 404, `Method not found: ${req.url}`);
    if (req.headers['x-goog-api-key'] !== fake.key) return error(res, 400, 'API key not valid. Please pass a valid API key.');
    const [, model, method] = route;
    const body = req.body;
    fake.requests.push(body);
    // Checked on every request, as the API does, before anything else.
    const refused = checkGeminiTools(body.tools) ?? checkGeminiRequest(body) ?? checkGeminiImages(body.contents ?? []);
    if (refused) {
      fake.violations.push(refused.message);
      refusals.push(`Gemini fake: ${refused.message}`);
      return json(res, refused.status, refused.body);
    }
    const failure = fake.failures.take();
    const broken = transportFailure(res, failure, method === 'streamGenerateContent', { json: '{"candidates":[{"content":{"parts":[', sse: 'data: {"candidates":[{"content":{"parts":[{"text":"par\r\n\r\n' });
    if (broken) return broken;
    if (failure === 503) return error(res, 503, 'The model is overloaded. Please try again later.');
    if (failure === 429) return error(res, 429, 'Resource has been exhausted (e.g. check quota).');
    if (typeof failure === 'number') return error(res, failure, 'An internal error has occurred. Please retry or report in the troubleshooting guide.');
    if (model!.startsWith('gemini-3')) {
      const missing = unsignedCall(body, fake.signatures);
      if (missing !== undefined) return error(res, 400, `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${missing}\` , position 2.`);
    }
    // A signed answer goes back as returned: every part, in order, unchanged (round-trip.ts). Skein never does otherwise.
    for (const [ci, c] of (body.contents as { role: string; parts: Record<string, unknown>[] }[]).entries()) {
      const changed = c.role === 'model' ? returned.firstChange(c.parts) : undefined;
      if (!changed) continue;
      const message = `Invalid thought_signature in contents[${ci}].parts[${changed.index}]: the model's turn must be sent back as it was returned (expected ${changed.expected}).`;
      fake.violations.push(message);
      refusals.push(`Gemini fake: ${message}`);
      return error(res, 400, message);
    }
    const thinkingRefused = thinkingRefusal(model!, body);
    if (thinkingRefused) return error(res, 400, thinkingRefused);
    const system = body.systemInstruction ?? body.generationConfig?.systemInstruction;
    const tools = body.tools ?? [];
    const split = cache.split([block(system ?? '', false, tokenizer), ...tools.map((t: unknown) => block(t, false, tokenizer)), ...body.contents.flatMap((c: any) => c.parts.map(({ thoughtSignature: _s, ...p }: any) => partBlock({ role: c.role, ...p }, tokenizer)))], 2);
    const tooLong = () => (fake.refused++, error(res, 400, `The input token count (${split.total}) exceeds the maximum number of tokens allowed (${fake.window}).`));
    if (split.total > fake.window) return tooLong();
    const said = await brain.answer(conversation(body, system));
    if (said.kind === 'overflow') return tooLong();
    if (said.kind === 'fail') return error(res, said.status === 529 ? 503 : said.status, 'An internal error has occurred.');
    // Past maxOutputTokens the answer stops: cut text, the budget as output, finishReason "MAX_TOKENS" (max-tokens.ts).
    const maxOut: number | undefined = body.generationConfig?.maxOutputTokens;
    const limited = said.summary ? { text: said.text, cut: false } : withinMaxTokens(said.text, said.calls, maxOut, own);
    const answer = { ...said, text: limited.text };
    const finishReason = limited.cut ? 'MAX_TOKENS' : 'STOP';

    n++;
    const calls = answer.calls.map((c, i) => {
      const signature = model!.startsWith('gemini-3') && i === 0 ? Buffer.from(`sig-${n}`).toString('base64') : undefined;
      if (signature) fake.signatures.add(signature);
      return { functionCall: { name: c.name, args: c.input }, ...(signature && { thoughtSignature: signature }) };
    });
    const thought = thoughtSummary(model!, body, conversation(body, system).messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');
    // The budget holds thinking and answer together.
    const candidates = limited.cut ? Math.max(1, maxOut! - thought.tokens) : own(answer.text) + answer.calls.reduce((k, c) => k + own(JSON.stringify(c.input)), 0) + 1;
    const usage: GeminiUsageWire = {
      promptTokenCount: split.total,
      candidatesTokenCount: candidates,
      totalTokenCount: split.total + candidates + thought.tokens,
      ...(thought.tokens > 0 && { thoughtsTokenCount: thought.tokens }),
      // The API leaves the field out when nothing was cached.
      ...(split.read > 0 && { cachedContentTokenCount: split.read }),
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: split.total }],
    };
    fake.reported.push({ usage, summary: answer.summary, streamed: method === 'streamGenerateContent' });
    const meta = { modelVersion: model, responseId: `resp-fake-${n}` };
    const parts = [...(thought.part ? [thought.part] : []), ...(answer.text ? [{ text: answer.text }] : []), ...calls];
    const texts = pieces(answer.text);
    // What the client assembles: one part per streamed chunk part.
    returned.remember(method === 'generateContent' ? parts : [...(thought.part ? [thought.part] : []), ...texts.map((text) => ({ text })), ...calls]);
    if (method === 'generateContent') {
      return json(res, 200, { candidates: [{ content: { parts, role: 'model' }, finishReason, index: 0 }], usageMetadata: usage, ...meta });
    }
    const sse = openSse(res);
    const send = (chunkParts: object[], last: boolean, soFar: number) =>
      sse.send(`data: ${JSON.stringify({
        candidates: [{ content: { parts: chunkParts, role: 'model' }, ...(last && { finishReason }), index: 0 }],
        usageMetadata: last ? usage : { promptTokenCount: split.total, candidatesTokenCount: soFar, totalTokenCount: split.total + soFar, promptTokensDetails: usage.promptTokensDetails },
        ...meta,
      })}\r\n\r\n`);
    if (thought.part) await send([thought.part], false, 0);
    let soFar = 0;
    for (const [i, text] of texts.entries()) {
      soFar += own(text);
      await send([{ text }], i === texts.length - 1 && !calls.length, soFar);
    }
    if (calls.length || !texts.length) await send(calls, true, candidates);
    sse.end();
  });
  return Object.assign(fake, { url: server.url, close: server.close });
}

/** The name of a replayed function call that opens a step without a valid signature, if any. */
function unsignedCall(body: any, issued: Set<string>): string | undefined {
  for (const c of body.contents) {
    if (c.role !== 'model') continue;
    const first = c.parts.find((p: any) => p.functionCall);
    if (first && first.thoughtSignature !== SKIP && !issued.has(first.thoughtSignature)) return first.functionCall.name;
  }
  return undefined;
}

function conversation(body: any, system: any): { system: string; messages: ViewMessage[]; hasTools: boolean } {
  const systemText = typeof system === 'string' ? system : (system?.parts ?? []).map((p: any) => p.text ?? '').join('');
  const messages: ViewMessage[] = [];
  // Gemini's calls carry no id: responses answer the calls of the step before them, in order.
  let open: string[] = [];
  body.contents.forEach((c: any, ci: number) => {
    if (c.role === 'model') {
      const text = c.parts.filter((p: any) => typeof p.text === 'string' && !p.thought).map((p: any) => p.text).join('');
      const toolCalls = c.parts.filter((p: any) => p.functionCall).map((p: any, pi: number) => ({ id: `fc_${ci}_${pi}`, name: p.functionCall.name, input: p.functionCall.args ?? {} }));
      open = toolCalls.map((t: { id: string }) => t.id);
      messages.push({ role: 'assistant', content: text, ...(toolCalls.length && { toolCalls }) });
      return;
    }
    for (const p of c.parts) {
      if (p.functionResponse) messages.push({ role: 'tool', content: String(p.functionResponse.response?.output ?? JSON.stringify(p.functionResponse.response)), toolCallId: open.shift() ?? 'unknown' });
      else if (typeof p.text === 'string') messages.push({ role: 'user', content: p.text });
    }
  });
  return { system: systemText, messages, hasTools: (body.tools ?? []).length > 0 };
}

/** A part's tokens: an inlineData image by Gemini's rule (258 a tile), anything else by the tokenizer. */
function partBlock(part: unknown, tokenizer: Parameters<typeof block>[2]) {
  const { rest, images } = splitImages(part);
  if (!images.length) return block(part, false, tokenizer);
  return { key: JSON.stringify(part), tokens: block(rest, false, tokenizer).tokens + images.reduce((n, i) => n + geminiImageTokens(i.image), 0), breakpoint: false };
}
