// The search index on its own: words, every word required (the last letters
// of one may be missing), the seq it points at, removal, and a save/load round
// trip that keeps only sessions with a mark.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SearchIndex, words } from '../../server/store/search-index.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('search index', () => {
  it('splits text into distinct lower-cased words, any script, long ones cut', () => {
    expect(words('Fix the PARSER, the parser! naïve_café 42')).toEqual(['fix', 'the', 'parser', 'naïve_café', '42']);
    expect(words('x'.repeat(100))).toEqual(['x'.repeat(40)]);
    expect(words(' -- ')).toEqual([]);
  });

  it('finds sessions holding every word, points at the last message with the rarest, forgets removed ones', () => {
    const index = new SearchIndex(tempDir('search-unit'));
    index.add('a', 3, 'the harbour at dawn');
    index.add('a', 9, 'back to the harbour');
    index.add('b', 4, 'harbour master');
    index.add('b', 4, 'harbour master'); // read twice: no change
    expect(index.search('harbour')).toEqual(new Map([['a', 9], ['b', 4]]));
    expect(index.search('harb dawn')).toEqual(new Map([['a', 3]]));
    expect(index.search('HARBOUR MAST')).toEqual(new Map([['b', 4]]));
    expect(index.search('master dawn')).toEqual(new Map());
    expect(index.search('')).toEqual(new Map());
    index.remove('a');
    expect(index.search('harbour')).toEqual(new Map([['b', 4]]));
  });

  it('saves and loads back; a session without a mark is dropped (read again from its log)', async () => {
    const dir = tempDir('search-unit-save');
    const index = new SearchIndex(dir);
    index.add('a', 2, 'quokka island');
    index.setMark('a', { seq: 5, offset: 900 });
    index.add('b', 7, 'quokka zoo');
    await index.save();
    const back = new SearchIndex(dir);
    back.load();
    expect(back.search('quokka')).toEqual(new Map([['a', 2]]));
    expect(back.mark('a')).toEqual({ seq: 5, offset: 900 });
    expect(back.mark('b')).toBeUndefined();
    fs.writeFileSync(back.file, '{"version":1,"ids":[');
    back.load();
    expect(back.search('quokka')).toEqual(new Map());
  });
});
