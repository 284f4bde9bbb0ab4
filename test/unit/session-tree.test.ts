// The sessions list's tree (webui/session-tree.ts) and a fork's title
// (shared/session-title.ts): forks under their origin, orphans at the top, no
// loop, groups ordered by their latest activity; titles say what differs.
import { describe, expect, it } from 'vitest';
import type { ListedSession } from '../../shared/protocol.js';
import { TitleFacts } from '../../shared/session-title.js';
import { ancestorsOf, sessionTree, type SessionNode } from '../../webui/session-tree.js';

const at = (minute: number) => `2026-01-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
const s = (id: string, minute: number, origin?: string) => ({ id, lastActivity: at(minute), ...(origin && { forkOf: { session: origin, seq: 3 } }) }) as ListedSession;
const shape = (nodes: SessionNode[]): unknown => nodes.map((n) => (n.children.length ? { [n.session.id]: shape(n.children), n: n.descendants } : n.session.id));

describe('sessionTree', () => {
  it('nests forks under their origin, a fork of a fork under its parent, and orders groups by their latest activity', () => {
    const tree = sessionTree([s('a', 1), s('b', 2), s('a1', 3, 'a'), s('a1x', 9, 'a1'), s('a2', 4, 'a')]);
    // a's group was active at minute 9 (a1x): above b.
    expect(shape(tree)).toEqual([{ a: [{ a1: ['a1x'], n: 1 }, 'a2'], n: 3 }, 'b']);
    expect(tree[0]!.latest).toBe(at(9));
    expect(ancestorsOf([s('a', 1), s('a1', 3, 'a'), s('a1x', 9, 'a1')], 'a1x')).toEqual(['a1', 'a']);
  });

  it('puts a fork whose origin is not listed at the top, and cuts a loop', () => {
    expect(shape(sessionTree([s('orphan', 5, 'deleted'), s('x', 1)]))).toEqual(['orphan', 'x']);
    const loop = sessionTree([s('p', 1, 'q'), s('q', 2, 'p')]);
    expect(loop).toHaveLength(1);
    expect(loop[0]!.descendants).toBe(1);
  });
});

describe('TitleFacts', () => {
  const title = (forkOf: { seq: number; edit?: boolean } | undefined, messages: [number, string][]) => {
    const facts = new TitleFacts(forkOf);
    for (const [seq, text] of messages) facts.user(seq, text);
    return facts.title();
  };
  it('a session: its first line; a fork: where it branched off, then its own first words', () => {
    expect(title(undefined, [[1, 'fix the parser\nplease'], [5, 'and more']])).toBe('fix the parser');
    expect(title(undefined, [])).toBe('New session');
    expect(title({ seq: 8 }, [[1, 'one'], [5, 'two']])).toBe('↳ from message 2');
    expect(title({ seq: 8 }, [[1, 'one'], [5, 'two'], [9, 'three, my own']])).toBe('↳ three, my own');
    expect(title({ seq: 4, edit: true }, [[1, 'one']])).toBe('↳ editing message 2');
    expect(title({ seq: 4, edit: true }, [[1, 'one'], [5, 'two, better']])).toBe('↳ edited: two, better');
    expect(title({ seq: 4 }, [[5, 'x'.repeat(200)]])).toHaveLength(2 + 70);
  });
});
