// How each OpenAI-compatible server family refuses a request longer than its
// window: status, body shape and text, each taken from the server's own source
// or docs (named beside it), and the tokenizer it counts with (its model's
// own, tokenizers.ts). The OpenAI fake and the in-process windowed provider
// answer with these; skein must recognise every one of them.
import { TOKENIZERS, type FakeTokenizer } from './tokenizers.js';

export type CompatFlavour =
  | 'openai'
  | 'azure'
  | 'vllm'
  | 'vllm-old'
  | 'sglang'
  | 'mlc'
  | 'lmdeploy'
  | 'tgi'
  | 'llamacpp'
  | 'ollama'
  | 'ollama-refuses'
  | 'lmstudio'
  | 'litellm'
  | 'openrouter'
  | 'nonumber'
  /** A server whose "too long" is a bare 400 (no text skein could recognise): not in FLAVOURS, for the unrecognised-400 test. */
  | 'opaque';

/** Every flavour, for the tests and benchmarks that go through all of them. */
export const FLAVOURS: CompatFlavour[] = ['openai', 'azure', 'vllm', 'vllm-old', 'sglang', 'mlc', 'lmdeploy', 'tgi', 'llamacpp', 'ollama', 'ollama-refuses', 'lmstudio', 'litellm', 'openrouter', 'nonumber'];

/** The tokenizer each family's typical model counts with. */
export const FLAVOUR_TOKENIZER: Record<CompatFlavour, FakeTokenizer> = {
  openai: TOKENIZERS.openai,
  azure: TOKENIZERS.openai,
  vllm: TOKENIZERS.llama3,
  'vllm-old': TOKENIZERS.qwen2,
  sglang: TOKENIZERS.qwen2,
  mlc: TOKENIZERS.gemma,
  lmdeploy: TOKENIZERS.internlm,
  tgi: TOKENIZERS.mistral,
  llamacpp: TOKENIZERS.gemma,
  ollama: TOKENIZERS.llama3,
  'ollama-refuses': TOKENIZERS.mistral,
  lmstudio: TOKENIZERS.qwen2,
  litellm: TOKENIZERS.llama3,
  openrouter: TOKENIZERS.mistral,
  nonumber: TOKENIZERS.deepseek,
  opaque: TOKENIZERS.qwen2,
};

/** A refusal as the server sends it: status and raw body (a string: some bodies are not plain JSON objects). */
export interface Refusal {
  status: number;
  body: string;
}

/** Ollama (server/prompt.go chatPrompt) drops the start of the conversation instead of refusing. */
export const TRUNCATING: ReadonlySet<CompatFlavour> = new Set(['ollama']);
/** LMDeploy answers 200 with nothing written and finish_reason "length" (lmdeploy/serve/async_engine.py: "run out of tokens"). */
export const EMPTY_LENGTH_ANSWER: ReadonlySet<CompatFlavour> = new Set(['lmdeploy']);

const openaiShape = (message: string, type: string | null, code: string | number | null, param: string | null = null) => JSON.stringify({ error: { message, type, param, code } });
/** vLLM before its ErrorInfo wrapper, SGLang, LMDeploy: the error's fields at the top level. */
const topLevel = (message: string, code = 400) => JSON.stringify({ object: 'error', message, type: 'BadRequestError', param: null, code });

/**
 * The refusal for `prompt` input tokens and `maxTokens` asked (both in the
 * server's own tokens), or undefined when the request fits (or the server does
 * not refuse: Ollama cuts, LMDeploy answers empty, see the sets above).
 */
export function refusalOf(flavour: CompatFlavour, window: number, prompt: number, maxTokens: number): Refusal | undefined {
  const total = prompt + maxTokens;
  switch (flavour) {
    case 'ollama':
    case 'lmdeploy':
      return undefined;
    case 'llamacpp':
    case 'mlc':
    case 'ollama-refuses':
      // These check the prompt alone against the context (the answer is cut at the window instead).
      if (prompt < window) return undefined;
      break;
    default:
      if (total <= window) return undefined;
  }
  switch (flavour) {
    case 'openai':
      // OpenAI API reference, error codes (context_length_exceeded); the text as the API words it.
      return { status: 400, body: openaiShape(`This model's maximum context length is ${window} tokens. However, your messages resulted in ${total} tokens (${prompt} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`, 'invalid_request_error', 'context_length_exceeded', 'messages') };
    case 'azure':
      // Azure OpenAI (learn.microsoft.com, "context_length_exceeded"): OpenAI's body and text, status 400.
      return { status: 400, body: openaiShape(`This model's maximum context length is ${window} tokens. However, your messages resulted in ${total} tokens. Please reduce the length of the messages.`, 'invalid_request_error', 'context_length_exceeded', 'messages') };
    case 'vllm':
      // vLLM now: vllm/entrypoints/openai/protocol.py ErrorResponse {error: ErrorInfo{message,type,param,code:int}};
      // texts from vllm/entrypoints/openai/serving_engine.py (_validate_input) and vllm/renderers/params.py.
      if (prompt < window) return { status: 400, body: openaiShape(`'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum context length is ${window} tokens and your request has ${prompt} input tokens (${maxTokens} > ${window} - ${prompt}). (parameter=max_tokens, value=${maxTokens})`, 'BadRequestError', 400, 'max_tokens') };
      return { status: 400, body: openaiShape(`This model's maximum context length is ${window} tokens. However, you requested ${maxTokens} output tokens and your prompt contains at least ${prompt + 1} input tokens, for a total of at least ${total + 1} tokens. Please reduce the length of the input prompt or the number of requested output tokens. (parameter=input_tokens, value=${prompt + 1})`, 'BadRequestError', 400, 'input_tokens') };
    case 'vllm-old':
      // vLLM before 0.10 (vllm/entrypoints/openai/protocol.py ErrorResponse: object "error" at the top level;
      // text from serving_engine.py _validate_input). The OpenAI SDK sees no `error` key: "400 status code (no body)".
      return { status: 400, body: topLevel(`This model's maximum context length is ${window} tokens. However, you requested ${total} tokens (${prompt} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`) };
    case 'sglang':
      // SGLang: python/sglang/srt/managers/tokenizer_manager.py (_validate_one_request), served through
      // python/sglang/srt/entrypoints/openai/protocol.py ErrorResponse (object "error" at the top level).
      if (prompt >= window) return { status: 400, body: topLevel(`The input (${prompt} tokens) is longer than the model's context length (${window} tokens).`) };
      return { status: 400, body: topLevel(`Requested token count exceeds the model's maximum context length of ${window} tokens. You requested a total of ${total} tokens: ${prompt} tokens from the input messages and ${maxTokens} tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.`) };
    case 'mlc':
      // MLC-LLM: python/mlc_llm/serve/engine_utils.py (check_and_get_prompts_length) raising BadRequestError,
      // python/mlc_llm/protocol/error_protocol.py create_error_response: JSONResponse(model_dump_json()) — the
      // object JSON-encoded twice, a JSON string on the wire.
      return { status: 400, body: JSON.stringify(JSON.stringify({ object: 'error', message: `Request prompt has ${prompt} tokens in total, larger than the model input length limit ${window}.`, code: 400 })) };
    case 'tgi':
      // Hugging Face TGI: router/src/validation.rs (ValidationError::MaxTotalTokens / InputLength), wrapped by
      // router/src/infer/mod.rs ("Input validation error: {0}", error_type "validation") and sent by
      // router/src/server.rs as 422 UNPROCESSABLE_ENTITY with ErrorResponse {error, error_type}.
      if (prompt >= window) return { status: 422, body: JSON.stringify({ error: `Input validation error: \`inputs\` must have less than ${window} tokens. Given: ${prompt}`, error_type: 'validation' }) };
      return { status: 422, body: JSON.stringify({ error: `Input validation error: \`inputs\` tokens + \`max_new_tokens\` must be <= ${window}. Given: ${prompt} \`inputs\` tokens and ${maxTokens} \`max_new_tokens\``, error_type: 'validation' }) };
    case 'llamacpp':
      // llama.cpp: tools/server/server-context.cpp (ERROR_TYPE_EXCEED_CONTEXT_SIZE), the numbers beside the text.
      return { status: 400, body: JSON.stringify({ error: { code: 400, message: `request (${prompt} tokens) exceeds the available context size (${window} tokens), try increasing it`, type: 'exceed_context_size_error', n_prompt_tokens: prompt, n_ctx: window } }) };
    case 'ollama-refuses':
      // Ollama with context shift off: llm/llama_server.go (StatusError 400, no numbers), on /v1 through
      // openai/openai.go NewError: {error:{message,type:"invalid_request_error",param:null,code:null}}.
      return { status: 400, body: openaiShape('the prompt is longer than the context length currently available to the model; shorten the prompt, adjust the context length in settings, or use a model with a longer context length', 'invalid_request_error', null) };
    case 'lmstudio':
      // LM Studio (closed source): the body its OpenAI-compatible server sends, as logged by its users —
      // lmstudio-ai/lmstudio-bug-tracker issues #237 ("BadRequestError 400--<LM Studio error> Trying to keep the
      // first 15857 tokens when context the overflows") and #546, and dyad-sh/dyad #925, whose client logged the
      // parsed body `{ error: 'Trying to keep the first 14538 tokens when context the overflows. However, …' }`:
      // `error` a plain string, not OpenAI's object (the OpenAI SDK shows no message).
      return { status: 400, body: JSON.stringify({ error: `Trying to keep the first ${prompt} tokens when context the overflows. However, the model is loaded with context length of only ${window} tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input` }) };
    case 'litellm':
      // LiteLLM proxy: litellm/exceptions.py ContextWindowExceededError ("litellm.ContextWindowExceededError: …"
      // around the upstream's text), sent by the proxy (litellm/proxy/_types.py ProxyException) with code "400".
      return { status: 400, body: openaiShape(`litellm.ContextWindowExceededError: litellm.BadRequestError: ContextWindowExceededError: Hosted_vllmException - This model's maximum context length is ${window} tokens. However, you requested ${total} tokens (${prompt} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`, null, '400') };
    case 'openrouter':
      // OpenRouter (openrouter.ai/docs/api-reference/errors): {error:{code,message,metadata}}; its own check says
      // "This endpoint's maximum context length…"; an upstream's refusal comes as "Provider returned error" with
      // the upstream's raw body in metadata.raw (here an SGLang-style one).
      if (prompt < window) return { status: 400, body: JSON.stringify({ error: { code: 400, message: `This endpoint's maximum context length is ${window} tokens. However, you requested about ${total} tokens (${prompt} of text input, ${maxTokens} in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.` } }) };
      return { status: 400, body: JSON.stringify({ error: { code: 400, message: 'Provider returned error', metadata: { provider_name: 'Fake', raw: topLevel(`The input (${prompt} tokens) is longer than the model's context length (${window} tokens).`) } } }) };
    case 'nonumber':
      // A server that names no number: llama.cpp's older text (examples/server/server.cpp, before the counts and
      // n_ctx were added; quoted as is in clients' overflow patterns), in OpenAI's shape with no code.
      return { status: 400, body: openaiShape('the request exceeds the available context size, try increasing it', 'invalid_request_error', null) };
    case 'opaque':
      // A gateway that says nothing useful (FastAPI's default for a failed validation).
      return { status: 400, body: JSON.stringify({ detail: 'Bad Request' }) };
  }
}
