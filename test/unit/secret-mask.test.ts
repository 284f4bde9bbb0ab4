// What the mask hides in a tool's output: every copy of every secret-named
// value (any case), a URL's password in either spelling, values of eight
// characters or more only, without their blanks. Pure functions: each test runs in
// milliseconds, so a mutation run tries these instead of starting bash.
import { describe, expect, it } from 'vitest';
import { MIN_MASKED_LENGTH, maskSecrets, secretValues, urlSecrets } from '../../server/tools/env.js';

const maskWith = (env: NodeJS.ProcessEnv, text: string) => maskSecrets(text, secretValues(env));

describe('secret masking', () => {
  it('masks every copy of a secret, not only the first', () => {
    const text = 'a=tok-12345678 b=tok-12345678\ntok-12345678';
    expect(maskWith({ API_TOKEN: 'tok-12345678' }, text)).toBe('a=[redacted API_TOKEN] b=[redacted API_TOKEN]\n[redacted API_TOKEN]');
  });

  it('takes every secret-like name, in any case and anywhere in the name', () => {
    const names = ['GITHUB_TOKEN', 'stripe_key', 'MySecretThing', 'DB_PASSWORD', 'SMTP_PASSWD', 'GCP_CREDENTIALS', 'npm_config_authToken'];
    for (const name of names) {
      expect(maskWith({ [name]: 'value-0123456789' }, `got value-0123456789.`), name).toBe(`got [redacted ${name}].`);
    }
    // Other names are no secrets (a path, an editor), whatever their length; KEY inside a word still counts
    // (a false hit costs a redacted word, a miss a leaked key).
    expect(secretValues({ HOME: '/home/someone-long', EDITOR: 'emacsclient', KEYBOARD_LAYOUT: 'de-nodeadkeys' })).toEqual([
      { name: 'KEYBOARD_LAYOUT', value: 'de-nodeadkeys' },
    ]);
  });

  it('masks values of exactly the floor length and leaves shorter ones alone', () => {
    expect(MIN_MASKED_LENGTH).toBe(8);
    const env = { EIGHT_KEY: 'abcd1234', SEVEN_KEY: 'abc1234' };
    expect(secretValues(env)).toEqual([{ name: 'EIGHT_KEY', value: 'abcd1234' }]);
    expect(maskWith(env, 'abcd1234 abc1234')).toBe('[redacted EIGHT_KEY] abc1234');
    // maskSecrets keeps the floor on its own too: a short value handed in directly is no secret to hunt for.
    expect(maskSecrets('x abcd1234 abc1234', [{ name: 'A', value: 'abcd1234' }, { name: 'B', value: 'abc1234' }])).toBe('x [redacted A] abc1234');
  });

  it('a value counts without its blanks: a padded short value is no secret, a padded long one is found in output', () => {
    expect(secretValues({ PAD_TOKEN: '   abc1234   ' })).toEqual([]);
    expect(maskWith({ PAD_TOKEN: '\tabcd1234\n' }, 'echo abcd1234')).toBe('echo [redacted PAD_TOKEN]');
  });

  it('an unset variable is skipped, not an error', () => {
    expect(secretValues({ API_TOKEN: undefined, DATABASE_URL: undefined, OTHER_KEY: 'value-0123456789' })).toEqual([
      { name: 'OTHER_KEY', value: 'value-0123456789' },
    ]);
  });

  it('one entry per value, the longest first, so a secret inside another is masked as part of the whole', () => {
    const found = secretValues({ A_KEY: 'inner-0123', B_KEY: 'outer-inner-0123', C_TOKEN: 'inner-0123' });
    expect(found).toEqual([{ name: 'B_KEY', value: 'outer-inner-0123' }, { name: 'A_KEY', value: 'inner-0123' }]);
    expect(maskSecrets('outer-inner-0123 inner-0123', found)).toBe('[redacted B_KEY] [redacted A_KEY]');
  });

  it('a URL with a password is a secret under any name: the URL, the password as written and decoded', () => {
    const env = { HTTPS_PROXY: 'http://me:s3cr%2Fet-pass@proxy.example:3128', PLAIN_URL: 'https://example.com/path' };
    const text = 'via http://me:s3cr%2Fet-pass@proxy.example:3128, said s3cr%2Fet-pass or s3cr/et-pass; https://example.com/path';
    expect(maskWith(env, text)).toBe(
      'via [redacted HTTPS_PROXY], said [redacted HTTPS_PROXY password] or [redacted HTTPS_PROXY password]; https://example.com/path',
    );
  });

  it('every spelling the URL parser reads a password in is masked, not only `scheme://user:password@`', () => {
    // Each of these is a URL with a password to the WHATWG parser (Node's, and every client built on it).
    const spellings = [
      'http:me:password1@host.example',
      'HTTPS:me:password1@host.example',
      'http:/me:password1@host.example',
      'http:\\\\me:password1@host.example',
      'https:///me:password1@host.example',
      'ws:me:password1@host.example',
      'ftp:me:password1@host.example/file',
      'ht\ttp://me:password1@host.example',
      'http://me:pass\nword1@host.example',
      'x:\t//me:password1@host.example',
      '\u0001http://me:password1@host.example',
      'http://me:pass%2Fword1@host.example',
      'http://me:p@ss-word1@host.example',
    ];
    for (const url of spellings) {
      const parsed = new URL(url).password;
      expect(parsed, JSON.stringify(url)).not.toBe('');
      const plain = decodeURIComponent(parsed);
      const masked = maskWith({ SOME_URL: url }, `url ${url} password ${parsed} decoded ${plain}`);
      expect(masked, JSON.stringify(url)).toBe('url [redacted SOME_URL] password [redacted SOME_URL password] decoded [redacted SOME_URL password]');
    }
  });

  it('a scheme the parser does not know, written without `//`, is read with the slashes the user meant', () => {
    // To the parser `postgres:me:secret-99@db/x` is a path, no password; the user meant one.
    expect(new URL('postgres:me:secret-99@db/x').password).toBe('');
    expect(urlSecrets('DATABASE_URL', 'postgres:me:secret-99@db.example/x')).toEqual([
      { name: 'DATABASE_URL', value: 'postgres:me:secret-99@db.example/x' },
      { name: 'DATABASE_URL password', value: 'secret-99' },
    ]);
    expect(urlSecrets('DATABASE_URL', 'postgres:me:s%40cret-99@db.example/x')).toEqual([
      { name: 'DATABASE_URL', value: 'postgres:me:s%40cret-99@db.example/x' },
      { name: 'DATABASE_URL password', value: 's%40cret-99' },
      { name: 'DATABASE_URL password', value: 's@cret-99' },
    ]);
    // Written with slashes it is read as it is; no password, or no URL, is still nothing.
    expect(urlSecrets('DATABASE_URL', 'postgres://me:secret-99@db.example/x')[1]).toEqual({ name: 'DATABASE_URL password', value: 'secret-99' });
    for (const none of ['postgres:me@db.example/x', 'postgres:db.example/x', 'mailto:someone@example.com', 'C:\\Users\\me', 'plain-text-value', '']) {
      expect(urlSecrets('X', none), none).toEqual([]);
    }
  });

  it('a URL that looks like one with a password but does not parse, or whose percent-encoding is broken, loses nothing', () => {
    // An unclosed IPv6 host: the URL parser refuses it; no secrets from it, no error either.
    expect(urlSecrets('PROXY', 'http://me:password1@[::1/')).toEqual([]);
    // `%zz` is no escape: the password as written is all there is.
    expect(urlSecrets('DB_URL', 'postgres://me:pass%zzword@db.example/x')).toEqual([
      { name: 'DB_URL', value: 'postgres://me:pass%zzword@db.example/x' },
      { name: 'DB_URL password', value: 'pass%zzword' },
    ]);
  });
});
