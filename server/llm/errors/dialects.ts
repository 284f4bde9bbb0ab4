// Every server family's error body, read whatever its shape, and whether it
// says "too long". The shapes (each family's source is named in the fakes that
// serve it, test/fakes/dialects.ts):
// - OpenAI, Azure OpenAI, vLLM (new), Ollama's /v1, LM Studio, llama.cpp:
//   {"error":{"message","type","param","code"}} (llama.cpp adds n_prompt_tokens, n_ctx);
// - vLLM (old), SGLang, LMDeploy: {"object":"error","message","type","param","code"};
// - MLC-LLM: the same, JSON-encoded twice (a JSON string holding the object);
// - Hugging Face TGI: {"error":"Input validation error: …","error_type":"validation"} (422);
// - Ollama's native API: {"error":"…"};
// - LiteLLM proxy, OpenRouter: {"error":{"message","code","metadata":{"raw":…}}}, the
//   upstream server's own body (any of the above) inside `raw`;
// - FastAPI's default: {"detail":"…"}.

export interface ErrorBody {
  /** Every human-readable text in the body, outermost first (a proxy's wrapper, then the upstream's). */
  texts: string[];
  /** `code` and `type` values (context_length_exceeded, exceed_context_size_error, …). */
  codes: string[];
  /** Structured numbers beside the text (llama.cpp: n_ctx, n_prompt_tokens). */
  fields: Record<string, number>;
}

const TEXT_KEYS = ['message', 'error', 'detail', 'msg', 'raw'] as const;
const NUMBER_KEYS = ['n_ctx', 'n_prompt_tokens'] as const;

/** Reads a raw body (JSON of any of the shapes above, or plain text). */
export function readErrorBody(raw: string | undefined): ErrorBody {
  const out: ErrorBody = { texts: [], codes: [], fields: {} };
  if (raw !== undefined && raw.trim()) walk(raw, out, 0);
  return out;
}

function walk(value: unknown, out: ErrorBody, depth: number): void {
  if (depth > 8 || value === null || value === undefined) return;
  if (typeof value === 'string') {
    const text = value.trim();
    // A JSON body, or JSON inside a string (MLC-LLM's twice-encoded body, OpenRouter's metadata.raw).
    if (/^[{"[]/.test(text)) {
      try {
        return walk(JSON.parse(text), out, depth + 1);
      } catch {
        // Not JSON after all: plain text.
      }
    }
    // A proxy's text may carry the upstream body after its own words: read that too.
    const inner = text.indexOf('{"');
    if (inner > 0) {
      try {
        walk(JSON.parse(text.slice(inner)), out, depth + 1);
      } catch {
        // Text that only looks like it holds JSON.
      }
    }
    if (text) out.texts.push(text);
    return;
  }
  if (typeof value !== 'object' || Array.isArray(value)) return;
  const body = value as Record<string, unknown>;
  for (const key of ['code', 'type', 'error_type'] as const) {
    if (typeof body[key] === 'string') out.codes.push(body[key] as string);
  }
  for (const key of NUMBER_KEYS) {
    if (typeof body[key] === 'number' && (body[key] as number) > 0) out.fields[key] ??= body[key] as number;
  }
  for (const key of TEXT_KEYS) walk(body[key], out, depth + 1);
  if (body.metadata && typeof body.metadata === 'object') walk((body.metadata as Record<string, unknown>).raw, out, depth + 1);
}

/**
 * "Too long" in any family's words: OpenAI/vLLM/OpenRouter "maximum context length",
 * SGLang "exceeds the model's maximum context length" / "longer than the model's context length",
 * MLC-LLM "larger than the model input length limit", TGI "`inputs` tokens + `max_new_tokens` must be <=" /
 * "`inputs` must have less than", llama.cpp "exceeds the available context size", Ollama "the prompt is
 * longer than the context length" / "the input length exceeds the context length", LM Studio "context
 * length of only", LiteLLM "ContextWindowExceededError", Anthropic "prompt is too long" /
 * "exceed context limit", Gemini "exceeds the maximum number of tokens".
 */
const TOO_LONG =
  /maximum context length|context length of only|longer than the (?:model's )?(?:maximum )?(?:context|model) length|exceeds? the (?:available )?context (?:size|length|limit)|input length exceeds the context length|larger than the model input length limit|`inputs` tokens \+ `max_new_tokens` must be <=|`inputs` must have less than \d+ tokens|ContextWindowExceeded|context_length_exceeded|context window|prompt is too long|exceed context limit|exceeds the maximum number of tokens|too many tokens|maximum model length/i;

/** The codes and types that mean "too long" whatever the text. */
const TOO_LONG_CODES = new Set(['context_length_exceeded', 'exceed_context_size_error', 'ContextWindowExceededError', 'context_window_exceeded', 'request_too_large']);

/** Statuses a refusal as too long comes with: 400, 413 (payload), 422 (TGI's validation error). */
const REFUSAL_STATUSES = new Set([400, 413, 422]);

/** The text that says "too long", when the answer is such a refusal. */
export function overflowText(status: number | undefined, body: ErrorBody): string | undefined {
  const saying = body.texts.find((t) => TOO_LONG.test(t));
  if (body.codes.some((c) => TOO_LONG_CODES.has(c))) return saying ?? body.texts[0] ?? body.codes.join(' ');
  if (status !== undefined && REFUSAL_STATUSES.has(status) && saying) return saying;
  // A proxy may pass the upstream's refusal on with its own status (LiteLLM maps some to 500).
  if (saying && /ContextWindowExceeded/i.test(saying)) return saying;
  // An unknown server: a 4xx whose text speaks of the context and names a number of tokens.
  if (status !== undefined && status >= 400 && status < 500) {
    return body.texts.find((t) => /context/i.test(t) && /\d{3,}/.test(t) && /token/i.test(t));
  }
  return undefined;
}
