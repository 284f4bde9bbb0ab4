// What a data folder has learned about each model server, kept in
// <data dir>/learned-limits.json (mode 0600, replaced atomically): per base URL
// and model, the limits it said (or a refusal taught) and the ratio of its
// token count to skein's. A restart, or a `skein run` without a standing
// server, starts from them instead of the model table and an uncalibrated
// estimate. Only a hint: each process still asks the server once. A file that
// cannot be read is ignored with a log line (and rewritten whole at the next
// thing learned); deleting it forgets everything.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { LimitsEventSchema } from '../../../shared/wire/events.js';
import { log } from '../../log.js';
import type { KnownLimits } from './types.js';

export const LEARNED_FILE = 'learned-limits.json';

/** Ratios outside this range are no tokenizer's: an entry that says one is ignored. */
const PLAUSIBLE_RATIO = { min: 0.3, max: 3 };

export interface Learned {
  /** The server's base URL as skein calls it (OPENAI_BASE_URL, or the provider's own). */
  baseURL: string;
  /** The model as the session names it (e.g. `openai:qwen2.5-coder`). */
  model: string;
  limits?: KnownLimits;
  /** The server's prompt tokens per token skein counts (the estimator's calibration). */
  ratio?: number;
  updatedAt: string;
}

/** A window no server runs a chat model in (or none has): such an entry is someone's edit, not something learned. */
const PLAUSIBLE_WINDOW = { min: 256, max: 10_000_000 };
const LimitsSchema = LimitsEventSchema.omit({ seq: true, ts: true, kind: true, message: true, unanswered: true })
  .extend({
    contextWindow: z.number().int().min(PLAUSIBLE_WINDOW.min).max(PLAUSIBLE_WINDOW.max),
    maxOutputTokens: z.number().int().positive(),
  })
  .refine((l) => l.maxOutputTokens <= l.contextWindow, 'maxOutputTokens is larger than the window');
const EntrySchema = z.object({
  baseURL: z.string(),
  model: z.string(),
  limits: LimitsSchema.optional(),
  ratio: z.number().min(PLAUSIBLE_RATIO.min).max(PLAUSIBLE_RATIO.max).optional(),
  updatedAt: z.string(),
});

export class LearnedFile {
  readonly file: string;
  private readonly entries = new Map<string, Learned>();

  constructor(dataDir: string) {
    this.file = path.join(dataDir, LEARNED_FILE);
    this.load();
  }

  get(baseURL: string, model: string): Learned | undefined {
    return this.entries.get(keyOf(baseURL, model));
  }

  /** Merges what was learned into the entry and writes the file; a write that fails is logged, never thrown. */
  update(baseURL: string, model: string, learned: Pick<Learned, 'limits' | 'ratio'>): void {
    const key = keyOf(baseURL, model);
    const before = this.entries.get(key);
    this.entries.set(key, { baseURL, model, ...before, ...definedOnly(learned), updatedAt: new Date().toISOString() });
    try {
      this.write();
    } catch (err) {
      log.warn(`could not keep what was learned about ${model} at ${baseURL} in ${this.file}: ${(err as Error).message}`);
    }
  }

  private load(): void {
    let text: string;
    try {
      // Only skein's own regular file: a link is not followed (its target's text would reach the log).
      if (!fs.lstatSync(this.file).isFile()) {
        log.warn(`ignored ${this.file}: not a regular file (a link or a folder); limits are asked of the servers again and it is replaced`);
        return;
      }
      text = fs.readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log.warn(`ignored ${this.file}: cannot read it (${(err as Error).message}); limits are asked of the servers again`);
      return;
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      // The parser's message quotes the text: only where it failed is said.
      log.warn(`ignored ${this.file}: not valid JSON (${(err as Error).message.replace(/,? ".*"/s, '').slice(0, 120)}); limits are asked of the servers again and the file is rewritten`);
      return;
    }
    const list = (data as { servers?: unknown } | null)?.servers;
    if (!Array.isArray(list) || (data as { version?: unknown }).version !== 1) {
      log.warn(`ignored ${this.file}: expected {"version": 1, "servers": [...]}; limits are asked of the servers again and the file is rewritten`);
      return;
    }
    let bad = 0;
    for (const raw of list) {
      const parsed = EntrySchema.safeParse(raw);
      if (!parsed.success) {
        bad++;
        continue;
      }
      // The limits belong to the entry's model: one that names another is not trusted.
      if (parsed.data.limits && parsed.data.limits.model !== parsed.data.model) {
        bad++;
        continue;
      }
      const entry = parsed.data as Learned;
      this.entries.set(keyOf(entry.baseURL, entry.model), entry);
    }
    if (bad) log.warn(`${this.file}: ignored ${bad} unreadable entr${bad === 1 ? 'y; its server is' : 'ies; their servers are'} asked again`);
  }

  private write(): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
    const data = { version: 1, servers: [...this.entries.values()] };
    try {
      fs.writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      fs.renameSync(tmp, this.file);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw err;
    }
  }
}

function keyOf(baseURL: string, model: string): string {
  return JSON.stringify([baseURL.replace(/\/+$/, ''), model]);
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
