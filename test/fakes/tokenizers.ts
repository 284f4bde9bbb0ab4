// Tokenizers that are not skein's. A real server counts with its model's own
// tokenizer (Llama, Qwen, Mistral, Gemma, Claude's, Gemini's), and against
// skein's o200k estimate the count differs by 0.5x-2x depending on the kind
// of text: prose, code, logs, JSON, repeated lines. Each fake family counts
// with its own rules here: no BPE, no vocabulary, nothing shared with skein's
// estimator (gpt-tokenizer is not imported). Three ways of cutting text, as
// the real families do:
// - SentencePiece-like (Llama 2, Mistral, Gemma, InternLM): a word (with the
//   space before it) is one piece up to a length, longer ones several; each
//   digit its own piece; each symbol its own; runs of spaces in pieces;
// - byte-level-like (Llama 3, Qwen, DeepSeek): words up to a length one token,
//   digits in groups (Qwen: one by one), symbols in runs, whitespace runs one;
// - character-class (Claude's, Gemini's, OpenAI's as a fake of it): letters
//   per token, each digit and symbol weighed, each line's break.
// test/unit/fake-tokenizers.test.ts measures each against skein's estimate by
// kind of text: within 0.5x-2x, and not skein's count.

export interface FakeTokenizer {
  name: string;
  /** Framing tokens per message (role markers): every chat template has its own. */
  perMessage: number;
  /** The count of a piece of text (no framing). */
  count(text: string): number;
}

/** Letters (any script), digits, whitespace, anything else. */
const LETTER = /\p{L}/u;
const DIGIT = /\p{Nd}/u;
const SPACE = /\s/u;

type CharClass = 'letter' | 'digit' | 'space' | 'symbol';
function classOf(ch: string): CharClass {
  if (LETTER.test(ch)) return 'letter';
  if (DIGIT.test(ch)) return 'digit';
  if (SPACE.test(ch)) return 'space';
  return 'symbol';
}

/** Runs of one class (letters, digits, spaces, symbols), in order. */
function runs(text: string): { kind: CharClass; text: string }[] {
  const out: { kind: CharClass; text: string }[] = [];
  for (const ch of text) {
    const kind = classOf(ch);
    const last = out[out.length - 1];
    if (last && last.kind === kind) last.text += ch;
    else out.push({ kind, text: ch });
  }
  return out;
}

/** A camelCase or snake word split where a tokenizer's vocabulary would split it. */
function subwords(word: string): string[] {
  return word.split(/(?<=\p{Ll})(?=\p{Lu})/u);
}

interface SentencePieceRules {
  /** A word up to this many letters is one piece. */
  whole: number;
  /** Letters per further piece of a longer word. */
  perPiece: number;
  /** Spaces per piece in a run (indentation): SentencePiece keeps a few lengths of "▁" runs. */
  spacesPerPiece: number;
  /** Symbols per piece in a run (a large vocabulary holds `//`, `=>`, `();`). */
  symbolsPerPiece: number;
}

/** SentencePiece-like: the space before a word is part of it, digits one by one, each symbol a piece, newlines a byte each. */
function sentencePiece(name: string, perMessage: number, rules: SentencePieceRules): FakeTokenizer {
  return {
    name,
    perMessage,
    count(text) {
      let n = 0;
      for (const run of runs(text)) {
        if (run.kind === 'letter') {
          for (const w of subwords(run.text)) n += w.length <= rules.whole ? 1 : 1 + Math.ceil((w.length - rules.whole) / rules.perPiece);
        } else if (run.kind === 'digit') n += run.text.length;
        else if (run.kind === 'symbol') n += Math.ceil([...run.text].length / rules.symbolsPerPiece);
        else {
          const newlines = run.text.split('\n').length - 1;
          // One space is the "▁" of the next word; more are pieces of their own, and each newline is a byte.
          const spaces = run.text.replace(/\n/g, '').length;
          n += newlines + (spaces > 1 ? Math.ceil((spaces - 1) / rules.spacesPerPiece) : 0);
        }
      }
      return n;
    },
  };
}

interface ByteLevelRules {
  /** Letters per token of a word (a word up to this long is one token). */
  letters: number;
  /** Digits per token (Qwen splits every digit; Llama 3 and DeepSeek keep up to three together). */
  digits: number;
  /** Symbols per token in a run (`=>`, `});`, `---`). */
  symbols: number;
  /** The share of neighbouring tokens a larger vocabulary holds as one (0: none). */
  merges?: number;
}

/** Byte-level BPE-like: a word with its leading space, digits in groups, symbol runs in chunks, each whitespace run one. */
function byteLevel(name: string, perMessage: number, rules: ByteLevelRules): FakeTokenizer {
  return {
    name,
    perMessage,
    count(text) {
      let n = 0;
      for (const run of runs(text)) {
        const length = [...run.text].length;
        if (run.kind === 'letter') for (const w of subwords(run.text)) n += Math.ceil(w.length / rules.letters);
        else if (run.kind === 'digit') n += Math.ceil(length / rules.digits);
        else if (run.kind === 'symbol') n += Math.ceil(length / rules.symbols);
        // A single space joins the next word; longer runs (indentation, blank lines) are one token.
        else if (run.text !== ' ') n += 1;
      }
      return n * (1 - (rules.merges ?? 0));
    },
  };
}

interface CharClassRules {
  /** Letters per token. */
  lettersPerToken: number;
  /** Tokens per digit. */
  perDigit: number;
  /** Tokens per symbol. */
  perSymbol: number;
  /** Tokens per line break. */
  perLine: number;
}

/** Character-class: no words at all, a weight per character class (how a provider's billing-side estimate often works). */
function charClass(name: string, perMessage: number, rules: CharClassRules): FakeTokenizer {
  return {
    name,
    perMessage,
    count(text) {
      let letters = 0;
      let digits = 0;
      let symbols = 0;
      let lines = 0;
      for (const ch of text) {
        const kind = classOf(ch);
        if (kind === 'letter') letters++;
        else if (kind === 'digit') digits++;
        else if (kind === 'symbol') symbols++;
        else if (ch === '\n') lines++;
      }
      return letters / rules.lettersPerToken + digits * rules.perDigit + symbols * rules.perSymbol + lines * rules.perLine;
    },
  };
}

/** Each family's tokenizer (what matters is that they differ from skein's, and from one another, by kind of text). */
export const TOKENIZERS = {
  /** A fake of OpenAI's own (and Azure's): character classes, its own framing. */
  openai: charClass('OpenAI-like (character classes)', 7, { lettersPerToken: 6.2, perDigit: 0.9, perSymbol: 0.75, perLine: 0.5 }),
  llama3: byteLevel('Llama 3-like (byte-level)', 5, { letters: 9, digits: 3, symbols: 1 }),
  qwen2: byteLevel('Qwen 2.5-like (byte-level, digits one by one)', 5, { letters: 6, digits: 1, symbols: 1 }),
  deepseek: byteLevel('DeepSeek V3-like (byte-level)', 4, { letters: 10, digits: 1, symbols: 4, merges: 0.2 }),
  mistral: sentencePiece('Mistral-like (SentencePiece)', 4, { whole: 5, perPiece: 3, spacesPerPiece: 4, symbolsPerPiece: 1 }),
  gemma: sentencePiece('Gemma-like (SentencePiece, large vocabulary)', 6, { whole: 10, perPiece: 6, spacesPerPiece: 16, symbolsPerPiece: 3 }),
  internlm: sentencePiece('InternLM 2-like (SentencePiece)', 5, { whole: 6, perPiece: 4, spacesPerPiece: 2, symbolsPerPiece: 1 }),
  claude: charClass("Claude's-like (character classes)", 3, { lettersPerToken: 3.4, perDigit: 0.9, perSymbol: 0.8, perLine: 0.6 }),
  gemini: charClass("Gemini's-like (character classes)", 2, { lettersPerToken: 5, perDigit: 1, perSymbol: 0.4, perLine: 0.3 }),
} satisfies Record<string, FakeTokenizer>;

/**
 * A tokenizer counting about `ratio` times skein's estimate: Llama 3-like
 * rules (about 1x skein's on average, leaning by kind of text) scaled.
 */
export function ratioTokenizer(ratio: number): FakeTokenizer {
  const base = byteLevel('base', 4, { letters: 6, digits: 2, symbols: 2 });
  return { name: `ratio ${ratio} (byte-level-like, scaled)`, perMessage: 4, count: (text) => base.count(text) * ratio };
}

const MEMO_LIMIT = 50_000;
const memo = new Map<string, number>();

/** `text` counted by `tokenizer` (at least 1 for any text). */
export function countWith(tokenizer: FakeTokenizer, text: string): number {
  if (!text) return 0;
  const key = `${tokenizer.name}\u0000${text}`;
  const hit = memo.get(key);
  if (hit !== undefined) return hit;
  const total = Math.max(1, Math.round(tokenizer.count(text)));
  if (memo.size >= MEMO_LIMIT) memo.delete(memo.keys().next().value as string);
  memo.set(key, total);
  return total;
}
