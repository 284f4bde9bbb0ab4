// Reads the numbers out of a provider's "too long" refusal: the window the
// server really has, the prompt it counted, and the output budget it was asked
// for. Every provider words it differently; each pattern below is one server's
// text (the tests hold a sample of each). What no pattern names stays unknown.

export interface RefusalLimits {
  /** The context window the server enforces, in its own tokens. */
  window?: number;
  /** The prompt (input) tokens it counted for the refused request. */
  prompt?: number;
  /** The output budget (max_tokens) the refused request asked for. */
  maxTokens?: number;
}

const N = '(\\d[\\d,]*)';
const num = (s: string | undefined) => (s === undefined ? undefined : Number(s.replace(/,/g, '')));

interface Pattern {
  re: RegExp;
  /** Which capture group holds what. */
  window: number;
  prompt?: number;
  maxTokens?: number;
}

const PATTERNS: Pattern[] = [
  // Anthropic: "input length and `max_tokens` exceed context limit: 570 + 16384 > 9000, decrease input length or `max_tokens` and try again"
  { re: new RegExp(`exceed context limit:\\s*${N}\\s*\\+\\s*${N}\\s*>\\s*${N}`, 'i'), prompt: 1, maxTokens: 2, window: 3 },
  // Anthropic: "prompt is too long: 210000 tokens > 200000 maximum" (skein's offline models add "+ N max output")
  { re: new RegExp(`prompt is too long:\\s*${N} tokens(?:\\s*\\+\\s*${N} max output)?\\s*>\\s*${N} maximum`, 'i'), prompt: 1, maxTokens: 2, window: 3 },
  // Gemini: "The input token count (N) exceeds the maximum number of tokens allowed (M)."
  { re: new RegExp(`input token count \\(${N}\\) exceeds the maximum number of tokens allowed \\(${N}\\)`, 'i'), prompt: 1, window: 2 },
  // llama.cpp server: "request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it"
  { re: new RegExp(`request \\(${N} tokens\\) exceeds (?:the available )?context size \\(${N} tokens\\)`, 'i'), prompt: 1, window: 2 },
  // SGLang (tokenizer_manager.py): "Requested token count exceeds the model's maximum context length of 6000 tokens. You requested a total of 6512 tokens: 5012 tokens from the input messages and 1500 tokens for the completion. …"
  { re: new RegExp(`maximum context length of ${N} tokens\\. You requested a total of ${N} tokens: ${N} tokens from the input messages and ${N} tokens for the completion`, 'i'), window: 1, prompt: 3, maxTokens: 4 },
  // SGLang: "The input (9000 tokens) is longer than the model's context length (8192 tokens)."
  { re: new RegExp(`input \\(${N} tokens\\) is longer than the model's context length \\(${N} tokens\\)`, 'i'), prompt: 1, window: 2 },
  // MLC-LLM (serve/engine_utils.py): "Request prompt has 9000 tokens in total, larger than the model input length limit 8192."
  { re: new RegExp(`prompt has ${N} tokens in total, larger than the model input length limit ${N}`, 'i'), prompt: 1, window: 2 },
  // TGI (router/src/validation.rs): "`inputs` tokens + `max_new_tokens` must be <= 4096. Given: 3900 `inputs` tokens and 500 `max_new_tokens`"
  { re: new RegExp(`\`inputs\` tokens \\+ \`max_new_tokens\` must be <= ${N}\\. Given: ${N} \`inputs\` tokens and ${N} \`max_new_tokens\``, 'i'), window: 1, prompt: 2, maxTokens: 3 },
  // TGI: "`inputs` must have less than 4000 tokens. Given: 4100"
  { re: new RegExp(`\`inputs\` must have less than ${N} tokens\\. Given: ${N}`, 'i'), window: 1, prompt: 2 },
  // vLLM (current): "This model's maximum context length is 8192 tokens. However, you requested 500 output tokens and your prompt contains at least 8000 input tokens, …"
  { re: new RegExp(`maximum context length is ${N} tokens[.,]?\\s*However, you requested ${N} output tokens and your prompt contains (?:at least )?${N} input tokens`, 'i'), window: 1, maxTokens: 2, prompt: 3 },
  // vLLM (0.9): "This model's maximum context length is 8192 tokens. However, your request has 9000 input tokens. …"
  { re: new RegExp(`maximum context length is ${N} tokens[.,]?\\s*However, your request has ${N} input tokens`, 'i'), window: 1, prompt: 2 },
  // vLLM: "'max_tokens' or 'max_completion_tokens' is too large: 16384. This model's maximum context length is 8192 tokens and your request has 500 input tokens (16384 > 8192 - 500)."
  { re: new RegExp(`is too large:\\s*${N}\\.\\s*This model's maximum context length is ${N} tokens and your request has ${N} input tokens`, 'i'), maxTokens: 1, window: 2, prompt: 3 },
  // OpenAI, vLLM (older), OpenRouter ("This endpoint's ..."): "maximum context length is M tokens. However, you requested T tokens (N in the messages, X in the completion)"
  { re: new RegExp(`maximum context length is ${N} tokens[.,]?\\s*However, (?:you requested (?:about )?|your messages resulted in )${N} tokens \\(${N} (?:in the messages|of text input)[^,]*, ${N} in the (?:completion|output)`, 'i'), window: 1, prompt: 3, maxTokens: 4 },
  // OpenAI: "... However, your messages resulted in N tokens"; vLLM: "... your prompt contains at least N input tokens"
  { re: new RegExp(`maximum context length is ${N} tokens[.,]?\\s*However, (?:your messages resulted in|you requested 0 output tokens and your prompt contains at least|your prompt contains at least|you requested) ${N}`, 'i'), window: 1, prompt: 2 },
  // vLLM: "The decoder prompt (length 9000) [plus the number of requested output tokens (at least 1)] is longer than the maximum model length of 8192."
  { re: new RegExp(`prompt \\(length ${N}\\) (?:plus the number of requested output tokens \\(at least 1\\) )?is longer than the maximum model length of ${N}`, 'i'), prompt: 1, window: 2 },
  // LM Studio: "Trying to keep the first 9000 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough."
  { re: new RegExp(`keep the first ${N} tokens[\\s\\S]*?context length of only ${N} tokens`, 'i'), prompt: 1, window: 2 },
  // LM Studio: "... the model is loaded with context length of only 4096 tokens, which is not enough."
  { re: new RegExp(`context length of only ${N} tokens`, 'i'), window: 1 },
  // Any "maximum context length is M" / "max_model_len M" without the rest.
  { re: new RegExp(`maximum (?:context|model) length (?:is |of )?${N}`, 'i'), window: 1 },
];

/** `fields`: structured numbers some servers send beside the text (llama.cpp: n_ctx, n_prompt_tokens). */
export function parseRefusal(text: string, fields: Record<string, unknown> = {}): RefusalLimits {
  const out: RefusalLimits = {};
  if (typeof fields.n_ctx === 'number' && fields.n_ctx > 0) out.window = fields.n_ctx;
  if (typeof fields.n_prompt_tokens === 'number' && fields.n_prompt_tokens > 0) out.prompt = fields.n_prompt_tokens;
  if (out.window !== undefined) return out;
  for (const p of PATTERNS) {
    const m = p.re.exec(text);
    if (!m) continue;
    const window = num(m[p.window]);
    if (!window) continue;
    return {
      window,
      ...(p.prompt !== undefined && m[p.prompt] !== undefined && { prompt: num(m[p.prompt])! }),
      ...(p.maxTokens !== undefined && m[p.maxTokens] !== undefined && { maxTokens: num(m[p.maxTokens])! }),
    };
  }
  // An unknown server: a number right after the word "context" (context size 4096, context window: 8192).
  const loose = /context[\w\s]{0,30}?(?:of|is|:|\(|=)?\s*(\d[\d,]{2,})/i.exec(text);
  const window = num(loose?.[1]);
  return window && window >= 256 ? { window } : {};
}
