// The editor's session ids and the skein sessions open for them
// (server/acp/session-map.ts): an id not open is none (the agent answers
// "session not found"); a second load of an id closes the first before the
// new one opens; a new id opens beside the others; the end of the connection
// closes each; which load failures mean "no such session". Over a real
// connection: test/acp/acp.test.ts.
import { describe, expect, it } from 'vitest';
import { CliError, EXIT } from '../../server/cli/exit-codes.js';
import { isUnknownSession, SessionMap } from '../../server/acp/session-map.js';

class Fake {
  closed = 0;
  constructor(
    readonly id: string,
    private readonly log: string[],
  ) {
    log.push(`open ${id}`);
  }
  close(): void {
    this.closed++;
    this.log.push(`close ${this.id}`);
  }
}

describe('acp session map', () => {
  it('an id never opened, or opened on another connection, is none', () => {
    const map = new SessionMap<Fake>();
    expect(map.get('s1')).toBeUndefined();
    const log: string[] = [];
    new SessionMap<Fake>().replace('s1', () => new Fake('s1', log));
    expect(map.get('s1')).toBeUndefined();
  });

  it('new ids open side by side; a second load of one closes the first before the new one opens', () => {
    const log: string[] = [];
    const map = new SessionMap<Fake>();
    const a = map.replace('a', () => new Fake('a', log));
    const b = map.replace('b', () => new Fake('b', log));
    expect(map.get('a')).toBe(a);
    expect(map.get('b')).toBe(b);
    expect(log).toEqual(['open a', 'open b']);
    const again = map.replace('a', () => new Fake('a', log));
    expect(log).toEqual(['open a', 'open b', 'close a', 'open a']);
    expect(a.closed).toBe(1);
    expect(b.closed).toBe(0);
    expect(map.get('a')).toBe(again);
    expect(again).not.toBe(a);
  });

  it('the end of the connection closes every open session once, and forgets them', () => {
    const log: string[] = [];
    const map = new SessionMap<Fake>();
    const a = map.replace('a', () => new Fake('a', log));
    map.replace('a', () => new Fake('a', log));
    const b = map.replace('b', () => new Fake('b', log));
    map.closeAll();
    expect(log.filter((l) => l.startsWith('close'))).toEqual(['close a', 'close a', 'close b']);
    expect([a.closed, b.closed]).toEqual([1, 1]);
    expect(map.get('a')).toBeUndefined();
    expect(map.get('b')).toBeUndefined();
    map.closeAll();
    expect(b.closed).toBe(1);
  });

  it("a load fails as \"no such session\" only for the server's not found (API or stream)", () => {
    expect(isUnknownSession(new CliError(EXIT.notFound, 'no such session'))).toBe(true);
    expect(isUnknownSession(new Error('no skein session s1'))).toBe(true);
    for (const err of [
      new CliError(EXIT.server, 'no skein session, the server said'),
      new CliError(EXIT.usage, 'bad'),
      new Error('the skein server refused the WebSocket (500)'),
      new Error('a skein session s1 is gone: no skein session'),
      'no skein session s1',
      undefined,
      { message: 'no skein session s1' },
    ]) {
      expect(isUnknownSession(err), String(err instanceof Error ? err.message : err)).toBe(false);
    }
  });
});
