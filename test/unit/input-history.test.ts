// The ↑ history's storage: per session, newest last, bounded in entries and
// characters, a big paste recalled in the page but not stored, and a damaged
// or refused storage costs only the reload.
import { describe, expect, it } from 'vitest';
import { InputHistory, MAX_CHARS, MAX_ENTRIES, MAX_ENTRY_CHARS, type HistoryStorage } from '../../webui/input-history.js';

function memory(): HistoryStorage & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return { items, getItem: (k) => items.get(k) ?? null, setItem: (k, v) => void items.set(k, v) };
}

describe('the message box history', () => {
  it('is saved per session and read back by a new page', () => {
    const store = memory();
    const page = new InputHistory(store);
    page.load('a');
    page.push('one');
    page.push('two');
    page.push('two');
    page.push('  ');
    page.load('b');
    page.push('other');
    const reloaded = new InputHistory(store);
    reloaded.load('a');
    expect([reloaded.at(0), reloaded.at(1), reloaded.at(2)]).toEqual(['two', 'one', undefined]);
    reloaded.load('b');
    expect(reloaded.length).toBe(1);
  });

  it('keeps the last entries within the bounds; a big paste only in the page', () => {
    const store = memory();
    const page = new InputHistory(store);
    page.load('a');
    for (let i = 0; i < MAX_ENTRIES + 10; i++) page.push(`message ${i}`);
    const big = 'x'.repeat(MAX_ENTRY_CHARS + 1);
    page.push(big);
    expect(page.at(0)).toBe(big);
    const saved = JSON.parse(store.items.get('skein:history:a')!) as string[];
    expect(saved.length).toBe(MAX_ENTRIES - 1);
    expect(saved.at(-1)).toBe(`message ${MAX_ENTRIES + 9}`);
    for (let i = 0; i < 10; i++) page.push(`${i}${'y'.repeat(MAX_ENTRY_CHARS - 10)}`);
    expect(store.items.get('skein:history:a')!.length).toBeLessThan(MAX_CHARS + 1000);
  });

  it('starts empty from a damaged record, and works without storage', () => {
    const store = memory();
    store.items.set('skein:history:a', '{not json');
    const page = new InputHistory(store);
    page.load('a');
    expect(page.length).toBe(0);
    const refusing = new InputHistory({ getItem: () => null, setItem: () => { throw new Error('QuotaExceededError'); } });
    refusing.load('a');
    refusing.push('kept here');
    expect(refusing.at(0)).toBe('kept here');
  });
});
