// The llama.cpp flavour of the OpenAI-compatible fake, where llama-server
// differs from OpenAI (checked against the real server by
// test/llama/fake-vs-real.test.ts): its usage object (no audio or reasoning
// details), streamed chunks without `usage: null`, /v1/models entries with
// `meta.n_ctx`, and an answer that is cut, not refused, when the prompt fits
// but the answer does not: generation stops at max_tokens or when prompt and
// completion fill n_ctx, with finish_reason "length".
/** llama.cpp's usage: tools/server/server-task.cpp, the OpenAI-compatible final response. */
export interface LlamaUsageWire {
  completion_tokens: number;
  prompt_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

export function llamaUsage(prompt: number, completion: number, cached: number): LlamaUsageWire {
  return { completion_tokens: completion, prompt_tokens: prompt, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: cached } };
}

/** GET /v1/models as llama-server answers it: one entry per model with its context under meta. */
export function llamaModels(models: string[], window: number): unknown {
  return {
    object: 'list',
    data: models.map((id) => ({ id, aliases: [id], tags: [], object: 'model', created: Math.floor(Date.now() / 1000), owned_by: 'llamacpp', meta: { vocab_type: 2, n_vocab: 151_936, n_ctx: window, n_ctx_train: 32_768, n_embd: 64 } })),
  };
}

/**
 * How many tokens the answer may have: llama-server stops at max_tokens, and
 * when prompt and completion reach n_ctx (context shift is off by default).
 */
export function answerRoom(window: number, prompt: number, maxTokens: number | undefined): number {
  const room = window - prompt;
  return maxTokens && maxTokens > 0 ? Math.min(maxTokens, room) : room;
}

/** The longest start of `text` that counts at most `limit` tokens (the answer as it stood when generation stopped). */
export function cutTo(text: string, limit: number, count: (text: string) => number): string {
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (count(text.slice(0, mid)) <= limit) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(0, lo);
}
