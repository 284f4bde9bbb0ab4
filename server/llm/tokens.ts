// Token estimates with gpt-tokenizer. Counts are memoised per string because
// the same history is counted again on every request, and per line of a
// long text, which is often rebuilt from lines counted before.
import { createRequire } from 'node:module';
import type { Reasoning, ViewMessage } from '../../shared/protocol.js';
import type { LlmRequest, ToolSpec } from './types.js';

/** Framing tokens per message (role markers and separators), as chat formats add. */
const PER_MESSAGE_OVERHEAD = 4;
/** Entries: whole texts and the lines of long ones. */
const MEMO_LIMIT = 50_000;
const memo = new Map<string, number>();

type CountTokens = (text: string) => number;
let loaded: CountTokens | undefined;
/**
 * The tokenizer's tables are most of an idle server's memory (about 70 MB)
 * and a second of its start: loaded (synchronously) at the first count, which
 * an empty server never makes.
 */
function countTokens(text: string): number {
  return (loaded ??= loadTokenizer())(text);
}

function loadTokenizer(): CountTokens {
  return (createRequire(import.meta.url)('gpt-tokenizer') as { countTokens: CountTokens }).countTokens;
}

/** Loads the tokenizer now: once a session exists it will count, and its first turn should not wait for the load. */
export function warmTokenizer(): void {
  loaded ??= loadTokenizer();
}

export function tokensOf(text: string): number {
  if (text.length === 0) return 0;
  const hit = memo.get(text);
  if (hit !== undefined) return hit;
  const n = text.length < SPLIT_FROM || text.length > SPLIT_UP_TO ? countRuns(text) : sumOfLines(text);
  remember(text, n);
  return n;
}

function sumOfLines(text: string): number {
  let n = 0;
  for (const piece of piecesOf(text)) {
    // One long line: nothing to split.
    if (piece.length === text.length) return countRuns(text);
    n += piece.length < MEMO_PIECE_FROM ? countRuns(piece) : tokensOf(piece);
  }
  return n;
}

function remember(text: string, n: number): void {
  if (memo.size >= MEMO_LIMIT) memo.delete(memo.keys().next().value as string);
  memo.set(text, n);
}

function countRuns(text: string): number {
  // BPE is quadratic in the length of one unbroken run (minified code, base64, '=====');
  // breaking runs every 200 characters keeps it linear and changes the count by under 1%.
  return countTokens(/\S{200}/.test(text) ? text.replace(/\S{200}/g, '$& ') : text);
}

/**
 * A long text is counted line by line, each line remembered: a summary, a
 * ledger or the user's messages joined are built anew at each fold, but
 * mostly of lines counted before (a busy server's largest counting cost was
 * the same 30 KB summaries counted whole again). The sum is exact: the
 * tokenizer first splits text into pieces that BPE never merges across
 * (o200k's pattern), and a line break followed by a character that starts a
 * piece of its own is always such a split (see `startsPiece`).
 */
const SPLIT_FROM = 1024;
/** Past this, one text (a flood) would fill the memo with its lines: counted whole. */
const SPLIT_UP_TO = 1 << 20;
/** A line this short costs less to count than to remember. */
const MEMO_PIECE_FROM = 48;

function* piecesOf(text: string): Generator<string> {
  let start = 0;
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', nl + 1)) {
    if (!startsPiece(text, nl + 1)) continue;
    yield text.slice(start, nl + 1);
    start = nl + 1;
  }
  if (start < text.length) yield text.slice(start);
}

/**
 * Whether the tokenizer's pre-split always starts a piece at `at`, just after
 * a '\n': no piece reaches past a line break unless the next characters are
 * more line breaks (`\s*[\r\n]+` takes spaces and breaks together), or a '/'
 * right after it (punctuation takes `[\r\n/]*` after itself). Spaces or tabs
 * then anything but white space are safe: the break ends its piece there.
 */
function startsPiece(text: string, at: number): boolean {
  let i = at;
  while (text[i] === ' ' || text[i] === '\t') i++;
  const c = text[i];
  return c !== undefined && !/\s/.test(c) && !(i === at && c === '/');
}

export function messageTokens(message: ViewMessage): number {
  let n = PER_MESSAGE_OVERHEAD + tokensOf(message.content);
  for (const image of message.images ?? []) n += imageTokens(image.width, image.height);
  for (const call of message.toolCalls ?? []) n += tokensOf(call.name) + tokensOf(JSON.stringify(call.input)) + 3;
  return n + reasoningTokens(message.reasoning);
}

/** The long edge and the pixels past which Anthropic scales an image down before reading it. */
const IMAGE_LONG_EDGE = 1568;
const IMAGE_PIXELS = 1_150_000;

/**
 * An image costs what its pixels say, not its base64's length: Anthropic's
 * rule (width x height / 750, after scaling to at most 1568 px and 1.15
 * megapixels: about 1,600 tokens at most). OpenAI's tiles and Gemini's 258 a
 * tile come out lower for the same picture, so this errs on the side of room.
 */
export function imageTokens(width: number, height: number): number {
  const scale = Math.min(1, IMAGE_LONG_EDGE / Math.max(width, height), Math.sqrt(IMAGE_PIXELS / (width * height)));
  return Math.max(1, Math.ceil((Math.round(width * scale) * Math.round(height * scale)) / 750));
}

/** Reasoning sent back costs context: its readable text, and opaque data (redacted or encrypted) at about 4 characters a token. */
export function reasoningTokens(reasoning: Reasoning | undefined): number {
  if (!reasoning) return 0;
  let opaque = 0;
  for (const item of reasoning.output) {
    if (typeof item.data === 'string') opaque += item.data.length;
    if (typeof item.encrypted_content === 'string') opaque += item.encrypted_content.length;
  }
  return tokensOf(reasoning.text ?? '') + Math.ceil(opaque / 4);
}

/**
 * Per tool spec, what it was counted as: every request counts its tools, and
 * joining and hashing each spec's text again was a busy server's largest
 * token-counting cost. A spec whose fields were replaced is counted again.
 */
const specTokens = new WeakMap<ToolSpec, { name: string; description: string; schema: unknown; tokens: number }>();

export function toolsTokens(tools: ToolSpec[]): number {
  let n = 0;
  for (const t of tools) {
    const known = specTokens.get(t);
    if (known && known.name === t.name && known.description === t.description && known.schema === t.inputSchema) {
      n += known.tokens;
      continue;
    }
    const tokens = tokensOf(t.name + t.description + JSON.stringify(t.inputSchema));
    specTokens.set(t, { name: t.name, description: t.description, schema: t.inputSchema, tokens });
    n += tokens;
  }
  return n;
}

/** Estimated input tokens of a whole request: system, tools and messages. */
export function requestTokens(request: Pick<LlmRequest, 'system' | 'messages' | 'tools'>): number {
  return (
    PER_MESSAGE_OVERHEAD +
    tokensOf(request.system) +
    toolsTokens(request.tools) +
    request.messages.reduce((n, m) => n + messageTokens(m), 0)
  );
}
