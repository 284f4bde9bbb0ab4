// The shootout's neutral measures (test/bench/recall/identifiers.ts, stats.ts):
// one normalisation for every view, n/a that never reads as 100%, and the
// paired bootstrap that decides "cheaper".
import { describe, expect, it } from 'vitest';
import { identifiersOf, normalise, viewHas } from '../../bench/recall/identifiers.js';
import { bootstrapDiff, shareOf, shareText, verdict } from '../../bench/recall/stats.js';

describe('the neutral identifier measure', () => {
  it('takes paths, symbols, error codes, path:line and numbers with units from the original', () => {
    const ids = identifiersOf('File "django/db/models/query.py", line 12\nE501 line too long; took 3.5 s; QuerySet.filter_by failed: TypeError in get_queryset at query.py:128');
    for (const id of ['django/db/models/query.py', 'E501', '3.5 s', 'QuerySet.filter_by', 'TypeError', 'get_queryset', 'query.py:128']) expect(ids).toContain(id);
    // Plain words are not identifiers.
    expect(ids).not.toContain('line');
    expect(ids).not.toContain('failed');
  });

  it('a JSON-escaped command (quotes, backslashes, newlines) matches after the one normalisation', () => {
    const command = 'grep -n "def _check_line" pylint/checkers/format.py\nsed -n \'10,20p\' "a b/c_d.py"';
    const escaped = `ran: ${JSON.stringify({ command })}`;
    const view = normalise(escaped);
    for (const id of identifiersOf(command)) expect(viewHas(view, id)).toBe(true);
    // The raw text with its real newlines is found in the normalised view too.
    expect(view.includes(normalise(command))).toBe(true);
    // skein's one-line rendering (newlines as ⏎) normalises to the same text.
    expect(normalise(command.replace(/\n/g, ' ⏎ '))).toBe(normalise(command));
  });

  it('n/a is n/a, not 100%', () => {
    expect(shareOf(0, 0)).toBeUndefined();
    expect(shareText(0, 0)).toBe('n/a');
    expect(shareOf(3, 4)).toBe(0.75);
    expect(shareText(4, 4)).toBe('100.0% (4/4)');
  });
});

describe('the paired bootstrap', () => {
  it('identical costs: the interval is [0, 0], a tie', () => {
    const a = [1, 2, 3, 4, 5];
    const i = bootstrapDiff(a, a);
    expect(i).toMatchObject({ diff: 0, lo: 0, hi: 0, level: 0.95, p: 1, n: 5 });
    expect(verdict(i)).toBe('tie');
  });

  it('cheaper in every session: the interval excludes 0', () => {
    const b = [1.0, 2.0, 0.5, 3.0, 1.5, 2.2, 0.9, 1.1];
    const a = b.map((x) => x - 0.1);
    const i = bootstrapDiff(a, b);
    expect(i.diff).toBeCloseTo(-0.8);
    expect(i.hi).toBeLessThan(0);
    expect(verdict(i)).toBe('cheaper');
  });

  it('one session far cheaper, others dearer: the interval holds 0, a tie', () => {
    const b = [1, 1, 1, 1, 1, 1, 1, 1];
    const a = [0.2, 1.05, 1.05, 1.05, 1.05, 1.05, 1.05, 1.05];
    const i = bootstrapDiff(a, b);
    expect(i.diff).toBeCloseTo(-0.45);
    expect(i.lo).toBeLessThan(0);
    expect(i.hi).toBeGreaterThan(0);
    expect(verdict(i)).toBe('tie');
  });

  it('the same seed gives the same interval; unpaired lists are refused', () => {
    const a = [3, 1, 4, 1, 5, 9, 2, 6];
    const b = [2, 7, 1, 8, 2, 8, 1, 8];
    expect(bootstrapDiff(a, b)).toEqual(bootstrapDiff(a, b));
    expect(() => bootstrapDiff([1], [1, 2])).toThrow(/paired/);
  });
});
