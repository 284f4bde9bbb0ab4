// A secret holding a quote, a backslash or a line break, quoted by an error
// message through JSON.stringify, is written escaped: the mask finds that
// form too (a red team got `unknown frame type "pa\"ss…"` back unmasked).
import { describe, expect, it } from 'vitest';
import { maskSecrets } from '../../server/tools/env.js';

const secrets = [
  { name: 'QUX_API_KEY', value: 'pa"ss\\wo<rd>&12345678' },
  { name: 'ZED_API_KEY', value: 'multi\nline-secret-9876' },
];

describe('secrets quoted as JSON writes them', () => {
  it('masks the escaped form of a value with a quote and a backslash, and of one with a line break', () => {
    const quoted = `unknown frame type ${JSON.stringify(secrets[0]!.value)}; tool call ${JSON.stringify(secrets[1]!.value)} is not waiting`;
    expect(maskSecrets(quoted, secrets)).toBe('unknown frame type "[redacted QUX_API_KEY]"; tool call "[redacted ZED_API_KEY]" is not waiting');
  });

  it('still masks the values as written', () => {
    expect(maskSecrets(`a ${secrets[0]!.value} b ${secrets[1]!.value}`, secrets)).toBe('a [redacted QUX_API_KEY] b [redacted ZED_API_KEY]');
  });

  it('a value with nothing to escape has one form: masked once', () => {
    expect(maskSecrets('k=plainsecretvalue123 "plainsecretvalue123"', [{ name: 'K', value: 'plainsecretvalue123' }])).toBe('k=[redacted K] "[redacted K]"');
  });
});
