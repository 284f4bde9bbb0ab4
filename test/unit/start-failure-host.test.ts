// A SKEIN_HOST the system cannot look up (a typo, a stray word such as
// "NEVER") ends the start with one line naming the setting, not a DNS stack trace.
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../server/cli/exit-codes.js';
import { startFailure } from '../../server/start-failure.js';

const config = { host: 'NEVER', port: 4317, dataDir: '/data' };
const lookupError = (code: string, syscall = 'getaddrinfo') => Object.assign(new Error(`${syscall} ${code} NEVER`), { code, syscall });

describe('a host name that does not resolve', () => {
  for (const code of ['ENOTFOUND', 'EAI_AGAIN']) {
    it(`${code} from getaddrinfo: one line naming SKEIN_HOST and the name`, () => {
      const failure = startFailure(lookupError(code), config);
      expect(failure?.code).toBe(EXIT.cannotStart);
      expect(failure?.message).toBe(`cannot listen on NEVER:4317: the host name "NEVER" does not resolve (${code}); give another SKEIN_HOST (--host): a host name or IP address of this machine`);
    });
  }

  it('the same code from another call is not taken for the host', () => {
    expect(startFailure(lookupError('ENOTFOUND', 'queryA'), config)).toBeUndefined();
  });
});
