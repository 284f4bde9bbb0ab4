// WebP's lossy (VP8) and extended (VP8X) headers through the server, from the
// user's side: each accepted with the size its header gives, and that is what
// the session logs (the user event's image reference); a corrupt one refused
// with a sentence that says why, and nothing logged.
import { afterEach, describe, expect, it } from 'vitest';
import { webpExtended, webpLossy } from '../helpers/images.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { storedEvents } from '../helpers/stored-events.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const b64 = (b: Buffer) => b.toString('base64');

describe('WebP images sent by the user', () => {
  it('lossy and extended: accepted and logged with their sizes; a corrupt one refused and not logged', async () => {
    const server = await startTestServer();
    servers.push(server);
    const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
    const logged = async () => (await storedEvents(server, body.id)).filter((e) => e.kind === 'user') as { images?: { mediaType: string; width: number; height: number; bytes: number }[] }[];

    const lossy = webpLossy(320, 200, 1);
    const extended = webpExtended(1000, 70_000);
    // Sent as PNG by mistake: the bytes say WebP.
    const sent = await api(server.url, `/api/sessions/${body.id}/messages`, { body: { text: 'two pictures', images: [{ mediaType: 'image/png', data: b64(lossy) }, { mediaType: 'image/webp', data: b64(extended) }] } });
    expect(sent.status).toBe(202);
    await expect.poll(logged, { timeout: 30_000 }).toHaveLength(1);
    expect((await logged())[0]!.images).toMatchObject([
      { mediaType: 'image/webp', width: 320, height: 200, bytes: lossy.length },
      { mediaType: 'image/webp', width: 1000, height: 70_000, bytes: extended.length },
    ]);

    const corrupt = webpLossy(320, 200);
    corrupt[24] = 0; // the key frame's start code broken
    const refused = await api<{ error: string }>(server.url, `/api/sessions/${body.id}/messages`, { body: { text: 'and this', images: [{ mediaType: 'image/webp', data: b64(lossy) }, { mediaType: 'image/webp', data: b64(corrupt) }] } });
    expect(refused).toEqual({ status: 400, body: { error: `image 2 is not a PNG, JPEG, GIF or WebP file skein can read (sent as image/webp, ${corrupt.length} bytes)` } });
    expect(await logged()).toHaveLength(1);
  }, 60_000);
});
