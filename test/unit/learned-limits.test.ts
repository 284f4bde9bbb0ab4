// Limits asked again until answered (the back-off between asks), and what a
// data folder learned about model servers kept in learned-limits.json: per
// base URL and model, a corrupt file or entry ignored with a log line.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ContextEstimator } from '../../server/compaction/estimator.js';
import { RetryBackoff, retryDelayMs, RETRY_MAX_MS } from '../../server/llm/limits/backoff.js';
import { LimitsCache, type KnownLimits } from '../../server/llm/limits/cache.js';
import { LEARNED_FILE, LearnedFile } from '../../server/llm/limits/learned-file.js';
import { configureLog, toStderr } from '../../server/log.js';
import { sentence } from '../../shared/sentence.js';
import { tempDir } from '../helpers/temp-dir.js';

const limits = (model: string, contextWindow: number, source: KnownLimits['source'] = 'provider'): KnownLimits => ({ model, contextWindow, maxOutputTokens: 512, source, via: 'GET /props (n_ctx)', reported: { contextWindow } });

describe('asking again after a failure', () => {
  it('the first retry goes at the next request, then 1 s doubling, never more than a minute apart', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 20].map(retryDelayMs)).toEqual([0, 1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000]);
    expect(retryDelayMs(1000)).toBe(RETRY_MAX_MS);
  });

  it('a server that stays down is asked at most as the delays allow, however often requests go; an answer starts over', () => {
    let now = 0;
    const backoff = new RetryBackoff(() => now);
    let asked = 0;
    // A request every 100 ms for ten minutes.
    for (; now < 600_000; now += 100) {
      if (!backoff.due) continue;
      asked++;
      backoff.fail();
    }
    // 0, 0, 1, 3, 7, 15, 31, 63, 123, 183 ... s: the first minutes, then once a minute.
    expect(asked).toBeGreaterThanOrEqual(15);
    expect(asked).toBeLessThanOrEqual(17);
    expect(backoff.due).toBe(false);
    backoff.reset();
    expect(backoff.due).toBe(true);
    expect(backoff.failed).toBe(0);
  });
});

describe('learned-limits.json', () => {
  let dir: string;
  let logged: string[];
  beforeEach(() => {
    dir = tempDir('learned');
    logged = [];
    configureLog({ minLevel: 'info', write: (_level, line) => logged.push(line) });
  });
  afterEach(() => configureLog({ minLevel: 'info', write: toStderr }));

  const cache = (urls: Record<string, string | undefined> = {}) => new LimitsCache({ file: new LearnedFile(dir), baseURL: (m) => (m in urls ? urls[m] : 'http://127.0.0.1:8080/v1') });

  it('keeps the window and the ratio per base URL and model, for the next process; not what only this process settled', () => {
    const first = cache({ 'openai:a': 'http://one/v1', 'openai:b': 'http://one/v1', 'openai:predictable': undefined });
    first.set(limits('openai:a', 2048), true);
    first.set(limits('openai:b', 8192), true);
    first.setRatio('openai:a', 1.23);
    // A fallback, a window SKEIN_CONTEXT_WINDOW set, and anything not from an answer: this process only.
    first.set(limits('openai:c', 32_000, 'table'), true);
    first.set(limits('openai:d', 12_000, 'setting'), true);
    first.set(limits('openai:e', 4096), false);
    expect(first.get('openai:c')?.contextWindow).toBe(32_000);
    // Nothing kept for a model without a server (predictable).
    first.set(limits('openai:predictable', 100), true);

    const again = cache({ 'openai:a': 'http://one/v1', 'openai:b': 'http://one/v1' });
    expect(again.get('openai:a')).toBeUndefined(); // a new process still asks (a hint only)
    expect(again.remembered('openai:a')).toMatchObject({ contextWindow: 2048, source: 'provider', via: 'GET /props (n_ctx)' });
    expect(again.remembered('openai:b')?.contextWindow).toBe(8192);
    expect(again.ratio('openai:a')).toBe(1.23);
    expect(again.ratio('openai:b')).toBeUndefined();
    for (const m of ['openai:c', 'openai:d', 'openai:e']) expect(again.remembered(m)).toBeUndefined();
    const file = JSON.parse(fs.readFileSync(path.join(dir, LEARNED_FILE), 'utf8'));
    expect(file.servers.map((s: { model: string }) => s.model).sort()).toEqual(['openai:a', 'openai:b']);
    expect(fs.statSync(path.join(dir, LEARNED_FILE)).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir)).toEqual([LEARNED_FILE]); // no temporary file left
  });

  it('one model at two base URLs: two servers, two entries', () => {
    const atOne = cache({ 'openai:m': 'http://one:8080/v1' });
    atOne.set(limits('openai:m', 2048), true);
    atOne.setRatio('openai:m', 1.2);
    const atTwo = cache({ 'openai:m': 'http://two:8080/v1/' });
    expect(atTwo.remembered('openai:m')).toBeUndefined();
    atTwo.set(limits('openai:m', 8192), true);
    atTwo.setRatio('openai:m', 0.8);
    expect(cache({ 'openai:m': 'http://one:8080/v1/' }).remembered('openai:m')?.contextWindow).toBe(2048);
    expect(cache({ 'openai:m': 'http://one:8080/v1' }).ratio('openai:m')).toBe(1.2);
    expect(cache({ 'openai:m': 'http://two:8080/v1' }).remembered('openai:m')?.contextWindow).toBe(8192);
    expect(cache({ 'openai:m': 'http://two:8080/v1' }).ratio('openai:m')).toBe(0.8);
  });

  it('the same answer heard again (a resumed session) is not written again; another answer is', () => {
    const c = cache();
    c.set(limits('openai:m', 2048), true);
    const file = path.join(dir, LEARNED_FILE);
    const before = fs.readFileSync(file, 'utf8');
    const written = fs.statSync(file).mtimeMs;
    const { reported, via, ...rest } = limits('openai:m', 2048);
    cache().set({ reported, via, ...rest }, true); // keys in another order: the same answer
    expect(fs.readFileSync(file, 'utf8')).toBe(before); // updatedAt unchanged
    expect(fs.statSync(file).mtimeMs).toBe(written);
    cache().set(limits('openai:m', 4096), true);
    expect(cache().remembered('openai:m')?.contextWindow).toBe(4096);
  });

  it('a ratio that barely moved is not written again', () => {
    const c = cache();
    c.setRatio('openai:m', 1.2);
    const written = fs.statSync(path.join(dir, LEARNED_FILE)).mtimeMs;
    const before = fs.readFileSync(path.join(dir, LEARNED_FILE), 'utf8');
    c.setRatio('openai:m', 1.203);
    expect(fs.readFileSync(path.join(dir, LEARNED_FILE), 'utf8')).toBe(before);
    expect(fs.statSync(path.join(dir, LEARNED_FILE)).mtimeMs).toBe(written);
    c.setRatio('openai:m', 1.25);
    expect(cache().ratio('openai:m')).toBe(1.25);
  });

  it('a corrupt file is ignored with a log line, never thrown; the next thing learned rewrites it whole', () => {
    fs.writeFileSync(path.join(dir, LEARNED_FILE), '{"version": 1, "servers": [{"baseURL": ');
    const c = cache();
    expect(c.remembered('openai:m')).toBeUndefined();
    expect(c.ratio('openai:m')).toBeUndefined();
    expect(logged.join('\n')).toMatch(/ignored .*learned-limits\.json: not valid JSON/);
    c.set(limits('openai:m', 2048), true);
    expect(cache().remembered('openai:m')?.contextWindow).toBe(2048);

    for (const text of ['null', '[]', '{"servers": 3}', '\u0000\u0001', '{"version": 2, "servers": []}']) {
      fs.writeFileSync(path.join(dir, LEARNED_FILE), text);
      logged = [];
      expect(cache().remembered('openai:m')).toBeUndefined();
      expect(logged.join('\n')).toMatch(/ignored .*learned-limits\.json/);
    }
  });

  it('a link in its place is not followed: nothing of its target reaches the log, and what is learned replaces the link, not the target', () => {
    const secret = path.join(tempDir('secret'), 'id_rsa');
    fs.writeFileSync(secret, 'SECRET-LINE do not print me\n');
    fs.symlinkSync(secret, path.join(dir, LEARNED_FILE));
    const c = cache();
    expect(c.remembered('openai:m')).toBeUndefined();
    expect(logged.join('\n')).toMatch(/ignored .*learned-limits\.json: not a regular file/);
    expect(logged.join('\n')).not.toContain('SECRET');
    c.set(limits('openai:m', 2048), true);
    expect(fs.lstatSync(path.join(dir, LEARNED_FILE)).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(secret, 'utf8')).toBe('SECRET-LINE do not print me\n');
    // Text that is not JSON is not quoted either.
    fs.rmSync(path.join(dir, LEARNED_FILE));
    fs.writeFileSync(path.join(dir, LEARNED_FILE), 'SECRET-LINE not json');
    logged = [];
    cache();
    expect(logged.join('\n')).toMatch(/not valid JSON/);
    expect(logged.join('\n')).not.toContain('SECRET');
  });

  it('bad entries are skipped (said in the log), good ones kept', () => {
    const good = { baseURL: 'http://127.0.0.1:8080/v1', model: 'openai:good', limits: limits('openai:good', 2048), ratio: 1.1, updatedAt: '2025-01-01T00:00:00Z' };
    const bad = [
      { ...good, model: 'openai:neg', limits: limits('openai:neg', -5) },
      { ...good, model: 'openai:ratio', ratio: 40 },
      { ...good, model: 'openai:source', limits: { ...limits('openai:source', 2048), source: 'hearsay' } },
      { ...good, model: 'openai:other', limits: limits('openai:someone-else', 2048) },
      { ...good, baseURL: 7 },
      'a string',
      // Numbers no server has (red team): a window of 10 or 10^15, an answer room larger than the window.
      { ...good, model: 'openai:tiny', limits: limits('openai:tiny', 10) },
      { ...good, model: 'openai:huge', limits: limits('openai:huge', 1e15) },
      { ...good, model: 'openai:room', limits: { ...limits('openai:room', 2048), maxOutputTokens: 999_999 } },
    ];
    fs.writeFileSync(path.join(dir, LEARNED_FILE), JSON.stringify({ version: 1, servers: [good, ...bad] }));
    const c = cache();
    expect(c.remembered('openai:good')?.contextWindow).toBe(2048);
    expect(c.ratio('openai:good')).toBe(1.1);
    for (const m of ['openai:neg', 'openai:ratio', 'openai:source', 'openai:other', 'openai:tiny', 'openai:huge', 'openai:room']) expect(c.remembered(m)).toBeUndefined();
    expect(logged.join('\n')).toMatch(/learned-limits\.json: ignored 9 unreadable entries/);
  });

  it('a data folder that cannot be written: logged, the session goes on', () => {
    const file = new LearnedFile(path.join(dir, 'missing'));
    fs.writeFileSync(path.join(dir, 'missing'), 'a file where the folder should be');
    expect(() => file.update('http://x/v1', 'openai:m', { ratio: 1.1 })).not.toThrow();
    expect(logged.join('\n')).toMatch(/could not keep what was learned about openai:m/);
  });
});

describe('the estimator starts from a learned ratio', () => {
  it('before any real number; the first real number replaces it; an implausible one is not taken', () => {
    const e = new ContextEstimator();
    e.reset(1.23);
    expect(e.ratio).toBe(1.23);
    expect(e.calibrated).toBe(false);
    // The spread is not assumed from it: the lower bound stays the cautious one.
    expect(e.lowerRatio).toBe(0.5);
    e.observe(1000, 980, 10, 1);
    expect(e.ratio).toBeCloseTo(0.98);
    e.reset(40);
    expect(e.ratio).toBe(1);
    e.reset();
    expect(e.ratio).toBe(1);
  });
});

describe('sentence', () => {
  it('never doubles a final period ("Connection error." stays one sentence)', () => {
    expect(sentence('Connection error.')).toBe('Connection error.');
    expect(sentence('connection failed: Connection error.')).toBe('connection failed: Connection error.');
    expect(sentence('the request timed out')).toBe('the request timed out.');
    expect(sentence('really?')).toBe('really?');
    expect(sentence('stop!  ')).toBe('stop!');
    expect(sentence('and so…')).toBe('and so…');
    expect(`${sentence('Connection error.')} Retrying in 5 ms`).not.toContain('..');
  });
});
