// Which file the image route serves (server/images/image-lookup.ts): only an
// image a user event of the session names, looked up by its base name, and
// only when its file lies inside the session's own folder; a log naming a file
// elsewhere (a sibling folder whose name starts the same, `..`, the folder
// itself) gets nothing, and the lookup stops there.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { imageToServe, isInside } from '../../server/images/image-lookup.js';
import type { ImageRef } from '../../shared/protocol.js';

const dir = path.resolve('/data/sessions/s1');
const ref = (file: string): ImageRef => ({ file, mediaType: 'image/png', bytes: 10, width: 1, height: 1 });
const own = ref(path.join(dir, 'images', 'aaa.png'));

describe('imageToServe', () => {
  it("serves an image of a user event that lies in the session's folder", () => {
    const other = ref(path.join(dir, 'images', 'bbb.png'));
    const events = [{ kind: 'assistant' }, { kind: 'user' }, { kind: 'user', images: [other, own] }];
    expect(imageToServe(events, 'aaa.png', dir)).toBe(own);
    expect(imageToServe(events, 'bbb.png', dir)).toBe(other);
    expect(imageToServe(events, 'ccc.png', dir)).toBeUndefined();
    expect(imageToServe([], 'aaa.png', dir)).toBeUndefined();
  });

  it('serves only what a user event names: the same image on another kind of event is not served', () => {
    expect(imageToServe([{ kind: 'tool_result', images: [own] }], 'aaa.png', dir)).toBeUndefined();
  });

  it('looks on past events that do not name it', () => {
    const events = [{ kind: 'user', images: [ref(path.join(dir, 'images', 'zzz.png'))] }, { kind: 'user', images: [own] }];
    expect(imageToServe(events, 'aaa.png', dir)).toBe(own);
  });

  it("refuses a file outside the session's folder, and does not look further", () => {
    const outside = ref('/etc/aaa.png');
    expect(imageToServe([{ kind: 'user', images: [outside] }], 'aaa.png', dir)).toBeUndefined();
    expect(imageToServe([{ kind: 'user', images: [outside] }, { kind: 'user', images: [own] }], 'aaa.png', dir)).toBeUndefined();
    expect(imageToServe([{ kind: 'user', images: [ref(`${dir}-evil/images/aaa.png`)] }], 'aaa.png', dir)).toBeUndefined();
    expect(imageToServe([{ kind: 'user', images: [ref(path.join(dir, '..', 'aaa.png'))] }], 'aaa.png', dir)).toBeUndefined();
  });
});

describe('isInside', () => {
  it('is true only strictly below the folder', () => {
    expect(isInside(path.join(dir, 'a.png'), dir)).toBe(true);
    expect(isInside(path.join(dir, 'images', 'a.png'), dir)).toBe(true);
    expect(isInside(`${dir}/../s1/a.png`, dir)).toBe(true);
    expect(isInside(path.join(dir, 'images', '..', 'a.png'), `${dir}/images/..`)).toBe(true);
    expect(isInside(dir, dir)).toBe(false);
    expect(isInside(`${dir}2/a.png`, dir)).toBe(false);
    expect(isInside(`${dir}/../s2/a.png`, dir)).toBe(false);
  });
});
