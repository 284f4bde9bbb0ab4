// An answer that carried reasoning goes back exactly as it was returned: the
// same items (Anthropic content blocks, Gemini parts, OpenAI Responses output
// items), in the same order, each unchanged. Each fake remembers what it
// returned, keyed by what identifies the reasoning (a thinking block's
// signature, a part's thought signature, a reasoning item's id), and a
// request that sends a remembered answer back any other way is refused: a
// thinking block moved in front of its text, a part dropped, an item edited.
// A turn sent back without its reasoning (skein leaves thinking out when its
// prefix changed) carries no key and is not compared. Shares no code with skein.

type Item = Record<string, unknown>;

interface Returned {
  /** The answer's items as returned, each in canonical form. */
  items: string[];
  /** Where the keyed item stands among them. */
  at: number;
}

export interface ChangedTurn {
  /** The index (in the list checked) of the first item that is not as returned. */
  index: number;
  /** What was expected there, for the refusal. */
  expected: string;
}

export class ReturnedAnswers {
  private readonly byKey = new Map<string, Returned>();

  /** `keyOf`: what identifies an item that carries reasoning (undefined for other items). */
  constructor(private readonly keyOf: (item: Item) => string | undefined) {}

  /** An answer as it goes out (after signing: the keys are in it). */
  remember(items: readonly Item[]): void {
    const canonical = items.map(canonicalItem);
    items.forEach((item, at) => {
      const key = this.keyOf(item);
      if (key) this.byKey.set(key, { items: canonical, at });
    });
  }

  /**
   * The first place where `sent` (one turn's items, or a whole input list)
   * holds a remembered answer that is not exactly as returned; undefined when
   * every remembered answer in it is whole and in order.
   */
  firstChange(sent: readonly Item[]): ChangedTurn | undefined {
    for (const [i, item] of sent.entries()) {
      const key = this.keyOf(item);
      const returned = key === undefined ? undefined : this.byKey.get(key);
      if (!returned) continue;
      const start = i - returned.at;
      for (const [j, expected] of returned.items.entries()) {
        const at = start + j;
        const got = at >= 0 && at < sent.length ? canonicalItem(sent[at]!) : undefined;
        if (got !== expected) return { index: Math.min(Math.max(at, 0), sent.length - 1), expected };
      }
    }
    return undefined;
  }
}

/** An item as text: keys sorted (key order is not content), cache markers dropped (they move each request), array order kept. */
export function canonicalItem(item: Item): string {
  return stable(item);
}

function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([k, v]) => k !== 'cache_control' && v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stable(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
