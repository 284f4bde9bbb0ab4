// Token counts and a simulated prompt cache for the fake providers. A request
// is a list of blocks (tools, system, each message part) counted with
// gpt-tokenizer. Two ways to cache, as the providers do:
// - explicit (Anthropic): prefixes ending at a cache_control breakpoint are
//   written; a later request reads the longest cached prefix;
// - automatic (OpenAI, Gemini implicit): every prefix of a request is cached.
import { createHash } from 'node:crypto';
import { countTokens } from 'gpt-tokenizer';
import { countWith, type FakeTokenizer } from './tokenizers.js';

export interface Block {
  /** What identifies the block's content (JSON of it, without cache markers). */
  key: string;
  tokens: number;
  /** Anthropic: the block carries cache_control. */
  breakpoint?: boolean;
}

/** `tokenizer`: the server's own (tokenizers.ts); without one, o200k with 3 tokens of framing. */
export function block(value: unknown, breakpoint = false, tokenizer?: FakeTokenizer): Block {
  const key = typeof value === 'string' ? value : JSON.stringify(value);
  return { key, tokens: tokenizer ? countWith(tokenizer, key) + tokenizer.perMessage : countTokens(key) + 3, breakpoint };
}

export interface CacheSplit {
  /** All prompt tokens. */
  total: number;
  read: number;
  write: number;
  /** Tokens after the last cached or written prefix. */
  uncached: number;
}

export class PromptCache {
  private readonly prefixes = new Set<string>();

  constructor(private readonly mode: 'explicit' | 'automatic') {}

  /** `framing`: tokens of the request's own framing, never cached (role markers and such). */
  split(blocks: Block[], framing = 0): CacheSplit {
    const hashes = prefixHashes(blocks);
    const sums = [0];
    for (const b of blocks) sums.push(sums.at(-1)! + b.tokens);
    const total = sums.at(-1)! + framing;
    // The longest prefix (in blocks) that an earlier request cached.
    let hit = 0;
    for (let i = blocks.length; i > 0; i--) {
      if (this.prefixes.has(hashes[i - 1]!)) {
        hit = i;
        break;
      }
    }
    const read = sums[hit]!;
    // (Every prefix a request writes ends at a block boundary, so `hit` lands on one.)
    if (this.mode === 'automatic') {
      hashes.forEach((h) => this.prefixes.add(h));
      return { total, read, write: 0, uncached: total - read };
    }
    let lastBreakpoint = 0;
    blocks.forEach((b, i) => {
      if (!b.breakpoint) return;
      this.prefixes.add(hashes[i]!);
      lastBreakpoint = i + 1;
    });
    const write = Math.max(0, sums[lastBreakpoint]! - read);
    return { total, read, write, uncached: total - read - write };
  }
}

function prefixHashes(blocks: Block[]): string[] {
  const hash = createHash('sha256');
  return blocks.map((b) => {
    hash.update(b.key).update('\u0000');
    return hash.copy().digest('hex');
  });
}

export function tokens(text: string): number {
  return countTokens(text);
}
