// Tokenizers that are not skein's. A real server counts with its model's own
// tokenizer (Llama, Qwen, Mistral, Gemma, Claude's, Gemini's), and against
// skein's o200k estimate the count differs by 0.5x-2x depending on the kind
// of text: prose, code, digits (logs, numbers), repeated lines. Each fake
// family counts with one of these: gpt-tokenizer's count of each piece, scaled
// by the family's factor for the piece's kind. Shares nothing with skein's
// estimator but the BPE library underneath (any tokenizer's counts would do).
import { countTokens } from 'gpt-tokenizer';

export type TextKind = 'prose' | 'code' | 'digits' | 'repeated';

export interface FakeTokenizer {
  name: string;
  /** Tokens per o200k token, by kind of text (each between 0.5 and 2). */
  factors: Record<TextKind, number>;
  /** Framing tokens per message (role markers): every chat template has its own. */
  perMessage: number;
}

const family = (name: string, prose: number, code: number, digits: number, repeated: number, perMessage: number): FakeTokenizer => ({
  name,
  factors: { prose, code, digits, repeated },
  perMessage,
});

/** Each family's tokenizer against o200k, by kind of text (roughly as the real ones lean; what matters is that they differ). */
export const TOKENIZERS = {
  /** OpenAI's own (o200k) with its own framing; Azure OpenAI serves the same models. */
  openai: family('o200k (OpenAI)', 1.0, 0.9, 1.3, 0.6, 7),
  llama3: family('Llama 3', 1.05, 1.25, 1.6, 0.55, 5),
  qwen2: family('Qwen 2.5', 0.95, 0.75, 1.9, 1.6, 5),
  mistral: family('Mistral (SentencePiece)', 1.2, 1.5, 2.0, 0.7, 4),
  gemma: family('Gemma', 0.85, 1.35, 1.7, 0.5, 6),
  internlm: family('InternLM 2', 1.1, 0.6, 1.8, 1.9, 5),
  deepseek: family('DeepSeek V3', 0.9, 0.8, 1.2, 1.45, 4),
  claude: family("Claude's", 1.2, 1.45, 1.75, 0.65, 3),
  gemini: family("Gemini's", 0.9, 0.7, 1.4, 0.5, 2),
} satisfies Record<string, FakeTokenizer>;

/** A tokenizer whose count is about `ratio` times o200k's, leaning by kind as real ones do (each factor within 0.5-2). */
export function ratioTokenizer(ratio: number): FakeTokenizer {
  const clamp = (x: number) => Math.min(2, Math.max(0.5, x));
  return family(`ratio ${ratio.toFixed(2)}`, clamp(ratio), clamp(ratio * 1.25), clamp(ratio * 1.5), clamp(ratio * 0.75), 4);
}

/** The kind of one piece of text (a line, or a JSON string's escaped line). */
export function kindOf(piece: string, previous: string | undefined): TextKind {
  if (piece === previous && piece.length > 8) return 'repeated';
  const visible = piece.replace(/\s/g, '');
  if (!visible) return 'prose';
  const digits = visible.replace(/[^0-9]/g, '').length;
  if (digits / visible.length >= 0.3) return 'digits';
  const punctuation = visible.replace(/[A-Za-z0-9]/g, '').length;
  if (punctuation / visible.length >= 0.15 || /[{};]|=>|\)\s*\{/.test(piece)) return 'code';
  return 'prose';
}

const MEMO_LIMIT = 50_000;
const memo = new Map<string, number>();

/** `text` counted by `tokenizer`: each line (also the escaped lines inside JSON strings) scaled by its kind. */
export function countWith(tokenizer: FakeTokenizer, text: string): number {
  if (!text) return 0;
  const key = `${tokenizer.name}\u0000${text}`;
  const hit = memo.get(key);
  if (hit !== undefined) return hit;
  let n = 0;
  let previous: string | undefined;
  for (const piece of text.split(/\n|\\n/)) {
    if (piece) n += countTokens(piece.length > 400 ? piece.replace(/\S{200}/g, '$& ') : piece) * tokenizer.factors[kindOf(piece, previous)];
    previous = piece;
  }
  const total = Math.max(1, Math.round(n));
  if (memo.size >= MEMO_LIMIT) memo.delete(memo.keys().next().value as string);
  memo.set(key, total);
  return total;
}
