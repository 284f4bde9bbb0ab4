// What servers said about their models' limits, kept for the life of the
// process: what a session uses when its own ask finds the server unreachable
// (each session asks once, since a local server may restart with another
// context); sessions also start from their own log's `limits` events.
// With a data folder's file (learned-file.ts) what was learned also outlives
// the process, per base URL and model: the window and the tokenizer ratio a
// new process starts from before its first request (it still asks once).
import type { LearnedFile } from './learned-file.js';
import type { KnownLimits } from './types.js';

export type { KnownLimits } from './types.js';

export interface LimitsCacheOptions {
  file: LearnedFile;
  /** The base URL a model's requests go to (the file's key with the model); undefined: nothing to keep (predictable, replay). */
  baseURL(model: string): string | undefined;
}

export class LimitsCache {
  private readonly known = new Map<string, KnownLimits>();

  constructor(private readonly disk?: LimitsCacheOptions) {}

  /** What this process was told: the model is settled. */
  get(model: string): KnownLimits | undefined {
    return this.known.get(model);
  }

  /** `learned`: the server answered (or refused), so the data folder keeps it too; else only this process. */
  set(limits: KnownLimits, learned = false): void {
    this.known.set(limits.model, limits);
    // A window SKEIN_CONTEXT_WINDOW set is not the server's: a later run without it must not take it for one.
    const baseURL = this.disk?.baseURL(limits.model);
    if (!learned || baseURL === undefined || (limits.source !== 'provider' && limits.source !== 'refusal')) return;
    // A resumed session hears the same answer again: the file keeps it already (not a write per session).
    if (sameAnswer(this.disk!.file.get(baseURL, limits.model)?.limits, limits)) return;
    this.disk!.file.update(baseURL, limits.model, { limits });
  }

  /** What an earlier process learned about the model at its base URL (a hint: the server is still asked). */
  remembered(model: string): KnownLimits | undefined {
    const limits = this.entry(model)?.limits;
    return limits && { ...limits };
  }

  /** The ratio of the server's token count to skein's, as last learned. */
  ratio(model: string): number | undefined {
    return this.entry(model)?.ratio;
  }

  /** Keeps the ratio when it moved by more than half a percent (not a write per request). */
  setRatio(model: string, ratio: number): void {
    const baseURL = this.disk?.baseURL(model);
    if (baseURL === undefined || !Number.isFinite(ratio) || ratio <= 0) return;
    const before = this.ratio(model);
    if (before !== undefined && Math.abs(ratio - before) <= 0.005 * before) return;
    this.disk!.file.update(baseURL, model, { ratio });
  }

  private entry(model: string) {
    const baseURL = this.disk?.baseURL(model);
    return baseURL === undefined ? undefined : this.disk!.file.get(baseURL, model);
  }
}

function sameAnswer(kept: KnownLimits | undefined, now: KnownLimits): boolean {
  return kept !== undefined && sorted(kept) === sorted(now);
}

/** JSON with keys in one order (what the file parsed back may list them in another). */
function sorted(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v));
}
