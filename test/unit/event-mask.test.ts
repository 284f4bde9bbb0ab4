// The mask over everything a session logs: every string of an event, URL
// credentials among the configured secrets, and streamed text held back while
// it could still be the start of a secret.
import { describe, expect, it } from 'vitest';
import type { DeltaFrame, NewEvent } from '../../shared/protocol.js';
import { maskDeep, maskedError, maskEvent, maskLiveFrame, StreamMask } from '../../server/agent/event-mask.js';
import { maskSecrets, secretValues, urlSecrets } from '../../server/tools/env.js';

const TOKEN = { name: 'skein access token', value: 'tok-0123456789abcdef' };
const KEY = { name: 'ANTHROPIC_API_KEY', value: 'sk-ant-0123456789' };

describe('event mask', () => {
  it('masks every string of an event, nested inputs and object keys too, and leaves an event without secrets as it was', () => {
    const call: NewEvent = { kind: 'tool_call', callId: 'c1', name: 'bash', input: { command: `curl -H "x: ${TOKEN.value}"`, env: { [KEY.value]: [KEY.value, 3] } } };
    const masked = maskEvent(call, [TOKEN, KEY]);
    expect(JSON.stringify(masked)).not.toMatch(/tok-0123456789abcdef|sk-ant-0123456789/);
    expect(masked).toEqual({
      kind: 'tool_call',
      callId: 'c1',
      name: 'bash',
      input: { command: 'curl -H "x: [redacted skein access token]"', env: { '[redacted ANTHROPIC_API_KEY]': ['[redacted ANTHROPIC_API_KEY]', 3] } },
    });
    const clean: NewEvent = { kind: 'user', text: 'nothing secret here' };
    expect(maskEvent(clean, [TOKEN, KEY])).toBe(clean);
  });

  it('a reasoning block that held a secret loses its prefix, so it is never sent back as if the provider had signed it', () => {
    const answer: NewEvent = {
      kind: 'agent',
      text: 'done',
      model: 'claude',
      endOfTurn: true,
      reasoning: { provider: 'anthropic', model: 'claude', output: [{ type: 'thinking', thinking: `the key is ${KEY.value}`, signature: 'sig' }], text: `the key is ${KEY.value}`, prefix: 'abc' },
    };
    const masked = maskEvent(answer, [KEY]);
    expect(masked.kind === 'agent' && masked.reasoning).toEqual({
      provider: 'anthropic',
      model: 'claude',
      output: [{ type: 'thinking', thinking: 'the key is [redacted ANTHROPIC_API_KEY]', signature: 'sig' }],
      text: 'the key is [redacted ANTHROPIC_API_KEY]',
    });
    // Untouched reasoning keeps its prefix.
    const plain = maskEvent({ ...answer, reasoning: { ...answer.reasoning!, output: [], text: 'fine' } } as NewEvent, [KEY]);
    expect(plain.kind === 'agent' && plain.reasoning?.prefix).toBe('abc');
  });

  it('a database URL gives its whole text and its password, as written and decoded, whatever the variable is called', () => {
    const url = 'postgres://skein:p%40ss-w0rd-long@db.example:5432/skein';
    expect(urlSecrets('SKEIN_DATABASE_URL', url)).toEqual([
      { name: 'SKEIN_DATABASE_URL', value: url },
      { name: 'SKEIN_DATABASE_URL password', value: 'p%40ss-w0rd-long' },
      { name: 'SKEIN_DATABASE_URL password', value: 'p@ss-w0rd-long' },
    ]);
    // A user name alone makes the URL a credential; a plain account name is not masked on its own.
    expect(urlSecrets('X', 'postgres://skein@db/skein')).toEqual([{ name: 'X', value: 'postgres://skein@db/skein' }]);
    expect(urlSecrets('X', 'not a url: user:pass@host')).toEqual([]);
    const secrets = secretValues({ SKEIN_DATABASE_URL: url, HTTPS_PROXY: 'http://me:proxy-pass-123@proxy:3128', SKEIN_PORT: '8420' });
    const text = `failed: ${url}; psql -W p@ss-w0rd-long; proxy-pass-123`;
    expect(maskDeep(text, secrets)).toBe('failed: [redacted SKEIN_DATABASE_URL]; psql -W [redacted SKEIN_DATABASE_URL password]; [redacted HTTPS_PROXY password]');
  });

  it('streamed text: a secret split across pieces never goes out, and every frame keeps its index', () => {
    const mask = new StreamMask(() => [TOKEN]);
    const pieces = ['the token is tok-0123', '456789ab', 'cdef and more', ' text.'];
    const frames = pieces.map((text, index) => mask.frame({ type: 'delta', afterSeq: 4, attempt: 0, index, text } satisfies DeltaFrame));
    expect(frames.map((f) => f.index)).toEqual([0, 1, 2, 3]);
    const shown = frames.map((f) => f.text).join('');
    expect(shown).toBe('the token is [redacted skein access token] and more text.');
    for (const f of frames) expect(TOKEN.value.includes(f.text) && f.text.length > 3).toBe(false);
    // A held start that turns out to be no secret is sent with the next piece.
    const other = new StreamMask(() => [TOKEN]);
    expect(other.frame({ type: 'delta', afterSeq: 9, attempt: 0, index: 0, text: 'a tok-01' }).text).toBe('a ');
    expect(other.frame({ type: 'delta', afterSeq: 9, attempt: 0, index: 1, text: 'x' }).text).toBe('tok-01x');
    // A new model call starts afresh: nothing held from the last one leaks into it.
    expect(other.frame({ type: 'delta', afterSeq: 9, attempt: 0, index: 2, text: 'tok' }).text).toBe('');
    expect(other.frame({ type: 'delta', afterSeq: 12, attempt: 0, index: 0, text: 'new' }).text).toBe('new');
  });

  it('streamed text: a secret that repeats its own start is never cut in two', () => {
    const secret = { name: 'S', value: 'abcabcab' };
    const mask = new StreamMask(() => [secret]);
    const out = ['xabcabcab', 'cabc', 'zz'].map((text, index) => mask.frame({ type: 'delta', afterSeq: 1, attempt: 0, index, text }).text).join('');
    expect(out).toBe('x[redacted S]cabczz');
  });
});

describe('live frames', () => {
  it('an error note sent live (never logged) is masked, every copy, whoever wrote it', () => {
    const mask = new StreamMask(() => [TOKEN, KEY]);
    const message = `could not write: postgres://skein:${TOKEN.value}@db/skein refused ${TOKEN.value} and ${KEY.value}`;
    expect(maskLiveFrame({ type: 'error', message }, mask, () => [TOKEN, KEY])).toEqual({
      type: 'error',
      message: 'could not write: postgres://skein:[redacted skein access token]@db/skein refused [redacted skein access token] and [redacted ANTHROPIC_API_KEY]',
    });
    expect(maskedError(`bad frame: ${KEY.value}`, [KEY])).toEqual({ type: 'error', message: 'bad frame: [redacted ANTHROPIC_API_KEY]' });
    expect(maskedError('nothing secret', [KEY])).toEqual({ type: 'error', message: 'nothing secret' });
    expect(maskedError(`no secrets configured: ${KEY.value}`, [])).toEqual({ type: 'error', message: `no secrets configured: ${KEY.value}` });
  });

  it("an error note reads the secrets as of now, not the stream's", () => {
    const mask = new StreamMask(() => []);
    expect(maskLiveFrame({ type: 'error', message: `x ${KEY.value}` }, mask, () => [KEY])).toEqual({ type: 'error', message: 'x [redacted ANTHROPIC_API_KEY]' });
  });

  it("streamed text goes through the stream's mask: a secret's start is held back for the next piece", () => {
    const mask = new StreamMask(() => [TOKEN]);
    const piece = (index: number, text: string) => maskLiveFrame({ type: 'delta', afterSeq: 2, attempt: 0, index, text }, mask, () => [TOKEN]);
    expect(piece(0, 'the token is tok-0123')).toEqual({ type: 'delta', afterSeq: 2, attempt: 0, index: 0, text: 'the token is ' });
    expect(piece(1, '456789abcdef, done')).toEqual({ type: 'delta', afterSeq: 2, attempt: 0, index: 1, text: '[redacted skein access token], done' });
  });
});

describe('event mask: what changes and what stays', () => {
  const signed = { provider: 'anthropic' as const, model: 'claude', output: [{ type: 'thinking', thinking: 'plan the fix', signature: 'sig' }], text: 'plan the fix', prefix: 'abc' };

  it('a secret only in the answer, not in its thinking: the answer is masked, the thinking keeps its prefix (it is still sent back)', () => {
    const answer: NewEvent = { kind: 'agent', text: `use ${KEY.value}`, model: 'claude', endOfTurn: true, reasoning: signed };
    const masked = maskEvent(answer, [KEY]);
    expect(masked.kind === 'agent' && masked.text).toBe('use [redacted ANTHROPIC_API_KEY]');
    expect(masked.kind === 'agent' && masked.reasoning).toEqual(signed);
    // No secret anywhere: the event itself, its thinking (a non-empty list of blocks) signed as it was.
    const clean: NewEvent = { ...answer, text: 'done' };
    expect(maskEvent(clean, [KEY])).toBe(clean);
  });

  it('a secret only in an object key is masked; nulls, numbers and booleans pass as they are', () => {
    expect(maskDeep({ [KEY.value]: 1 }, [KEY])).toEqual({ '[redacted ANTHROPIC_API_KEY]': 1 });
    const input = { command: null, timeout: 3, background: false, args: [null, 2] };
    expect(maskDeep(input, [KEY])).toBe(input);
  });
});

describe('streamed text: where the held-back tail starts', () => {
  const piece = (mask: StreamMask, index: number, text: string, channel?: 'thinking') => mask.frame({ type: 'delta', afterSeq: 1, attempt: 0, index, text, ...(channel && { channel }) }).text;

  it('a piece that ends in a whole secret sends it masked at once, holding nothing', () => {
    const mask = new StreamMask(() => [TOKEN]);
    expect(piece(mask, 0, `key ${TOKEN.value}`)).toBe('key [redacted skein access token]');
    expect(piece(mask, 1, ' done')).toBe(' done');
  });

  it("the thinking and the answer hold their tails apart: one's held start never joins the other's text", () => {
    const mask = new StreamMask(() => [TOKEN]);
    expect(piece(mask, 0, 'a tok-01')).toBe('a ');
    expect(piece(mask, 1, '23456789abcdef', 'thinking')).toBe('23456789abcdef');
    expect(piece(mask, 2, '23456789abcdef')).toBe('[redacted skein access token]');
  });

  it("a later secret's start inside an earlier one's held start does not move the cut forward", () => {
    const long = { name: 'L', value: 'abcdefghijklmnop' };
    const other = { name: 'O', value: 'defxyz12345678' };
    const mask = new StreamMask(() => [long, other]);
    expect(piece(mask, 0, 'see abcdef')).toBe('see ');
    expect(piece(mask, 1, 'ghijklmnop!')).toBe('[redacted L]!');
  });

  it('a secret that repeats its own start, streamed after a whole one: no copy is cut in two', () => {
    const secret = { name: 'S', value: 'q9Zq9Zq9Z' };
    const mask = new StreamMask(() => [secret]);
    const frames = ['q9Z'.repeat(7), 'm4Ym4Yq9Z', '.'].map((text, index) => piece(mask, index, text));
    expect(frames).toEqual(['', '[redacted S][redacted S]q9Zm4Ym4Y', 'q9Z.']);
  });

  it('cutting before one secret can put another across the cut: the cut moves again until none is', () => {
    const one = { name: 'A', value: 'm4Yq9Zm4Y' };
    const two = { name: 'B', value: 'm4Ym4Ym4Yq9Z' };
    const mask = new StreamMask(() => [one, two]);
    // The first secret's start is at 0, the second's at 6 (inside the first's): all of it is held.
    expect(piece(mask, 0, 'm4Yq9Zm4Ym4Ym4Yq9Z')).toBe('');
    // Then masked as the whole text would be (the two overlap: the first one masked takes the second's start).
    expect(piece(mask, 1, '.')).toBe(maskSecrets('m4Yq9Zm4Ym4Ym4Yq9Z.', [one, two]));
  });
});
