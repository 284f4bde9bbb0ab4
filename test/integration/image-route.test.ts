// The image route's own folder check (server/http/image-route.ts): a name the
// session's log holds is served only when the file really lies in the
// session's folder. A reference to a file elsewhere (another folder, a
// sibling whose name only starts like it), a link in the images folder to a
// file outside, or an images folder that is itself a link out: each refused,
// with the route's answer saying which decision it made.
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import type { ImageRef } from '../../shared/protocol.js';
import { mountImageRoute } from '../../server/http/image-route.js';
import type { Sessions } from '../../server/sessions/sessions.js';
import { png } from '../helpers/images.js';
import { tempDir } from '../helpers/temp-dir.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** The route on a real port, over one session whose log is `sessions/s1.jsonl` (its images in `sessions/s1/images/`), holding a user message with `images`. */
async function serve(sessionDir: string, images: ImageRef[]): Promise<string> {
  const events = [{ kind: 'user', seq: 1, text: 'look', images }];
  const sessions = { open: async (id: string) => (id === 's1' ? { session: { log: { file: path.join(sessionDir, 's1.jsonl'), all: () => events } } } : undefined) };
  const app = express();
  mountImageRoute(app, sessions as unknown as Sessions);
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const ref = (file: string): ImageRef => ({ file, mediaType: 'image/png', bytes: 10, width: 2, height: 2 });
const picture = png(2, 2);
const SECRET = 'the contents of a file outside the session\n';

async function get(base: string, name: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${base}/api/sessions/s1/images/${name}`);
  return { status: res.status, text: Buffer.from(await res.arrayBuffer()).toString('latin1') };
}

/** The sessions folder with one session's images folder, and a folder outside it holding a secret named like an image. */
function layout() {
  const root = tempDir('image-route');
  const sessionDir = path.join(root, 'sessions');
  fs.mkdirSync(path.join(sessionDir, 's1', 'images'), { recursive: true });
  const outside = path.join(root, 'outside');
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.png'), SECRET);
  return { root, sessionDir, outside };
}

describe('the image route serves only files in the session\'s own folder', () => {
  it('the control: a file in the images folder is served', async () => {
    const { sessionDir } = layout();
    fs.writeFileSync(path.join(sessionDir, 's1', 'images', 'a.png'), picture);
    const base = await serve(sessionDir, [ref(path.join(sessionDir, 's1', 'images', 'a.png'))]);
    const res = await get(base, 'a.png');
    expect(res.status).toBe(200);
    expect(Buffer.from(res.text, 'latin1')).toEqual(picture);
  });

  it('a reference to a file in another folder: refused, its bytes never sent', async () => {
    const { sessionDir, outside } = layout();
    const base = await serve(sessionDir, [ref(path.join(outside, 'secret.png'))]);
    expect(await get(base, 'secret.png')).toEqual({ status: 404, text: '{"error":"no image \\"secret.png\\" in this session"}' });
  });

  it('a sibling folder whose name starts like the session\'s: refused', async () => {
    const { sessionDir } = layout();
    fs.mkdirSync(`${sessionDir}-other`);
    fs.writeFileSync(`${sessionDir}-other/secret.png`, SECRET);
    const base = await serve(sessionDir, [ref(`${sessionDir}-other/secret.png`)]);
    expect((await get(base, 'secret.png')).status).toBe(404);
  });

  it('a link in the images folder to a file outside: refused, the target never sent', async () => {
    const { sessionDir, outside } = layout();
    fs.symlinkSync(path.join(outside, 'secret.png'), path.join(sessionDir, 's1', 'images', 'b.png'));
    const base = await serve(sessionDir, [ref(path.join(sessionDir, 's1', 'images', 'b.png'))]);
    expect(await get(base, 'b.png')).toEqual({ status: 404, text: '{"error":"no image \\"b.png\\" in this session"}' });
  });

  it('an images folder that is itself a link out of the session: refused', async () => {
    const { sessionDir, outside } = layout();
    fs.rmdirSync(path.join(sessionDir, 's1', 'images'));
    fs.symlinkSync(outside, path.join(sessionDir, 's1', 'images'));
    const base = await serve(sessionDir, [ref(path.join(sessionDir, 's1', 'images', 'secret.png'))]);
    expect((await get(base, 'secret.png')).status).toBe(404);
  });

  it('a file gone from the data folder: a 404 that says so', async () => {
    const { sessionDir } = layout();
    const base = await serve(sessionDir, [ref(path.join(sessionDir, 's1', 'images', 'gone.png'))]);
    expect(await get(base, 'gone.png')).toEqual({ status: 404, text: '{"error":"the image file is gone from the data folder"}' });
  });
});
