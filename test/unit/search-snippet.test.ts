// The words a search result shows around its match: cut around the first
// word found (prefixes count, as in the search index), on one line, "…" where
// cut; the words searched for are marked.
import { describe, expect, it } from 'vitest';
import { markedParts, snippetAround } from '../../shared/search-snippet.js';

describe('search snippets', () => {
  it('are the whole message when short, on one line', () => {
    expect(snippetAround('where does\n\nthe quokka live', 'quokk')).toBe('where does the quokka live');
  });

  it('are cut around the first word found in a long message, never mid-word', () => {
    const text = `${'alpha '.repeat(200)}the capybara sleeps here ${'omega '.repeat(200)}`;
    const snippet = snippetAround(text, 'CAPY');
    expect(snippet.startsWith('…alpha ')).toBe(true);
    expect(snippet.endsWith('…')).toBe(true);
    expect(snippet).toContain('the capybara sleeps here');
    expect(snippet.length).toBeLessThan(200);
  });

  it('start at the beginning when no word is found (a title match)', () => {
    expect(snippetAround(`${'word '.repeat(100)}`, 'zzz').startsWith('word word')).toBe(true);
  });

  it('mark each word the query finds, whole', () => {
    expect(markedParts('…the Quokka lives here', 'quok live')).toEqual([
      { text: '…the ', mark: false },
      { text: 'Quokka', mark: true },
      { text: ' ', mark: false },
      { text: 'lives', mark: true },
      { text: ' here', mark: false },
    ]);
    expect(markedParts('nothing', '')).toEqual([{ text: 'nothing', mark: false }]);
  });
});
