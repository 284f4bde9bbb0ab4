// The pointer a huge pasted message leaves in the model's view says its size in plain words.
import { describe, expect, it } from 'vitest';
import { savedMessageView } from '../../server/compaction/large-message.js';

describe('savedMessageView', () => {
  const saved = (chars: number) => ({ file: 'data/messages/m.txt', chars, tokens: Math.ceil(chars / 4), headChars: 100 });
  it('one line is "1 line", more are "N lines", sizes with thousands separators', () => {
    const one = 'x'.repeat(12_345);
    expect(savedMessageView(one, saved(one.length), 7)).toContain('is 12,345 characters in 1 line, about 3,087 tokens');
    const many = Array.from({ length: 1_500 }, () => 'y').join('\n');
    expect(savedMessageView(many, saved(many.length), 7)).toContain('characters in 1,500 lines, about');
  });
});
