// Images in user messages end to end: accepted (REST and socket), kept as
// files of the session (not in the log), read back for every provider in its
// own wire shape through the real SDKs, counted by pixels, acknowledged by the
// predictable model, refused with a clear error when bad or when the model
// reads no images (the message kept).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SkeinEvent, UserEvent } from '../../shared/protocol.js';
import { MAX_IMAGE_BYTES } from '../../shared/protocol.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic-fake.js';
import { startGeminiFake, type GeminiFake } from '../fakes/gemini-fake.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { startResponsesFake } from '../fakes/openai-responses-fake.js';
import { startSession } from '../fakes/scenario.js';
import { authHeaders } from '../helpers/auth.js';
import { gif, png } from '../helpers/images.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';
import { storedLines } from '../helpers/stored-events.js';

const servers: TestServer[] = [];
const fakes: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const f of fakes.splice(0)) await f.close();
});

const b64 = (b: Buffer) => b.toString('base64');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex').slice(0, 12);
const users = (events: SkeinEvent[]) => events.filter((e): e is UserEvent => e.kind === 'user');

describe('images in user messages', () => {
  it('are kept as files of the session, served back, acknowledged by the predictable model, and refused clearly when bad', async () => {
    const server = await startTestServer();
    servers.push(server);
    const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
    const id = body.id;
    const client = await TestClient.connect(server.url, id);
    const picture = png(64, 48);
    // Sent as JPEG by mistake: the bytes say PNG, and PNG it is.
    const sent = await api(server.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: what is this?', images: [{ mediaType: 'image/jpeg', data: b64(picture) }] } });
    expect(sent.status).toBe(202);
    const events = await client.untilIdle(1);
    const user = users(events)[0]!;
    expect(user.images).toHaveLength(1);
    expect(user.images![0]).toMatchObject({ mediaType: 'image/png', width: 64, height: 48, bytes: picture.length });
    expect(fs.readFileSync(user.images![0]!.file)).toEqual(picture);
    const answer = events.filter((e) => e.kind === 'agent').at(-1) as { text: string };
    expect(answer.text).toBe(`I see an image: PNG image, 64x48, ${picture.length} bytes, sha256 ${sha(picture)}.\n\nwhat is this?`);
    // The log (the file, or the database's rows) holds the reference, not the bytes.
    const logText = (await storedLines(server, id)).join('\n');
    expect(logText).not.toContain(b64(picture).slice(0, 40));
    // Served back by its name; a name the log does not hold is not.
    const name = path.basename(user.images![0]!.file);
    const served = await fetch(`${server.url}/api/sessions/${id}/images/${name}`, { headers: authHeaders(server.url) });
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(picture);
    expect((await api(server.url, `/api/sessions/${id}/images/..%2F..%2Fsecret.png`)).status).toBe(404);

    // An image alone, over the socket: a GIF.
    client.send({ type: 'user_message', text: '', images: [{ mediaType: 'image/gif', data: b64(gif()) }] });
    const second = await client.until(() => client.events.filter((e) => e.kind === 'agent').length === 2 && client.events, 'the second answer');
    expect((second.filter((e) => e.kind === 'agent').at(-1) as { text: string }).text).toBe(`I see an image: GIF image, 1x1, ${gif().length} bytes, sha256 ${sha(gif())}.`);

    // Refused, each with a sentence that says why; nothing is logged.
    const before = users(client.events).length;
    const refuse = async (images: unknown, text = 'look') => (await api<{ error: string }>(server.url, `/api/sessions/${id}/messages`, { body: { text, images } })).body.error;
    expect(await refuse([{ mediaType: 'image/bmp', data: b64(picture) }])).toBe('"mediaType" must be one of image/png, image/jpeg, image/gif, image/webp');
    expect(await refuse([{ mediaType: 'image/png', data: 'data:image/png;base64,' + b64(picture) }])).toContain('no "data:" prefix');
    expect(await refuse([{ mediaType: 'image/png', data: b64(Buffer.from('not an image at all')) }])).toBe('the image is not a PNG, JPEG, GIF or WebP file skein can read (sent as image/png, 19 bytes)');
    const big = Buffer.alloc(MAX_IMAGE_BYTES + 3, 1);
    picture.copy(big);
    expect(await refuse([{ mediaType: 'image/png', data: b64(big) }])).toBe(`the image is ${MAX_IMAGE_BYTES + 3} bytes; an image may be at most ${MAX_IMAGE_BYTES} bytes`);
    expect(await refuse([], '  ')).toBe('"text" must not be empty');
    client.send({ type: 'user_message', text: 'x', images: [{ mediaType: 'image/png', data: b64(Buffer.from('nope')) }] });
    await client.until(() => client.frames.some((f) => f.type === 'error' && /not a PNG, JPEG, GIF or WebP/.test(f.message)), 'the error frame');
    expect(users(client.events)).toHaveLength(before);

    // A fork carries the images, as its own files.
    const fork = await api<{ id: string }>(server.url, `/api/sessions/${id}/fork`, { body: { seq: user.seq } });
    const forkClient = await TestClient.connect(server.url, fork.body.id);
    const forked = await forkClient.until(() => users(forkClient.events)[0], 'the forked message');
    expect(forked.images![0]!.file).not.toBe(user.images![0]!.file);
    expect(fs.readFileSync(forked.images![0]!.file)).toEqual(picture);
    forkClient.close();
    client.close();
  });

  it("go to Anthropic as image blocks, billed by pixels; skein's estimate counts pixels too", async () => {
    const f: AnthropicFake = await startAnthropicFake();
    fakes.push(f);
    const run = await startSession({ SKEIN_MODEL: 'claude-sonnet-5-5', ANTHROPIC_API_KEY: f.key, ANTHROPIC_BASE_URL: f.url }, servers);
    await run.say('echo: plain first');
    const picture = png(300, 200, [10, 120, 250], true);
    run.client.send({ type: 'user_message', text: 'echo: and a picture', images: [{ mediaType: 'image/png', data: b64(picture) }] });
    await run.client.untilIdle(++run.turns, 20_000);
    const last = f.requests.at(-1);
    const content = last.messages.at(-1).content;
    expect(content[0]).toMatchObject({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64(picture) } });
    expect(content.find((b: { type: string }) => b.type === 'text').text).toBe('echo: and a picture');
    expect(f.violations).toEqual([]);
    // The fake billed the image at 300*200/750 = 80 tokens, not its base64 (thousands of tokens).
    const input = (i: number) => { const u = f.reported[i]!.usage; return u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens; };
    const grown = input(f.reported.length - 1) - input(f.reported.length - 2);
    expect(grown).toBeLessThan(200);
    expect(b64(picture).length).toBeGreaterThan(20_000);
    const view = await api<{ tokens: number; messages: { images?: unknown[] }[] }>(run.server.url, `/api/sessions/${run.id}/view`);
    expect(view.body.messages.some((m) => m.images?.length === 1)).toBe(true);
    expect(view.body.tokens).toBeLessThan(input(f.reported.length - 1) * 2);
  });

  it('go to OpenAI as image_url data URLs, to Gemini as inlineData, to the Responses API as input_image', async () => {
    const o: OpenAIFake = await startOpenAIFake();
    fakes.push(o);
    const run = await startSession({ SKEIN_MODEL: 'gpt-4.1', OPENAI_API_KEY: o.key!, OPENAI_BASE_URL: o.url }, servers);
    const picture = png(20, 10);
    run.client.send({ type: 'user_message', text: 'echo: seen?', images: [{ mediaType: 'image/png', data: b64(picture) }] });
    await run.client.untilIdle(++run.turns, 20_000);
    const user = o.requests.at(-1).messages.at(-1);
    expect(user.content).toEqual([{ type: 'text', text: 'echo: seen?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${b64(picture)}` } }]);
    expect(o.violations).toEqual([]);

    const g: GeminiFake = await startGeminiFake();
    fakes.push(g);
    const gem = await startSession({ SKEIN_MODEL: 'gemini-2.5-flash', GEMINI_API_KEY: g.key, GEMINI_BASE_URL: g.url }, servers);
    gem.client.send({ type: 'user_message', text: 'echo: seen?', images: [{ mediaType: 'image/png', data: b64(picture) }] });
    await gem.client.untilIdle(++gem.turns, 20_000);
    const parts = g.requests.at(-1).contents.at(-1).parts;
    expect(parts[0]).toEqual({ inlineData: { mimeType: 'image/png', data: b64(picture) } });
    expect(g.violations).toEqual([]);

    // The Responses API (a reasoning model): an input_image with a data URL.
    const r = await startResponsesFake();
    fakes.push(r);
    const resp = await startSession({ SKEIN_MODEL: 'gpt-5.6-terra', OPENAI_API_KEY: r.key, OPENAI_BASE_URL: r.url }, servers);
    resp.client.send({ type: 'user_message', text: 'echo: seen?', images: [{ mediaType: 'image/png', data: b64(picture) }] });
    await resp.client.untilIdle(++resp.turns, 20_000);
    const item = r.requests.at(-1).input.find((i: { role?: string }) => i.role === 'user');
    expect(item.content).toEqual([{ type: 'input_text', text: 'echo: seen?' }, { type: 'input_image', detail: 'auto', image_url: `data:image/png;base64,${b64(picture)}` }]);
    expect(r.refusals).toEqual([]);
  });

  it('a model that reads no images: one clear error, no retries, the message and its image kept', async () => {
    const o = await startOpenAIFake();
    o.textOnly = true;
    fakes.push(o);
    const run = await startSession({ SKEIN_MODEL: 'gpt-4.1', OPENAI_API_KEY: o.key!, OPENAI_BASE_URL: o.url }, servers);
    run.client.send({ type: 'user_message', text: 'describe it', images: [{ mediaType: 'image/png', data: b64(png(8, 8)) }] });
    const events = await run.client.untilIdle(++run.turns, 20_000);
    const error = events.find((e) => e.kind === 'error' && e.code !== 'retrying') as { message: string };
    expect(error.message).toMatch(/^this model cannot read images \(the server said: image input is not supported/);
    expect(error.message).toContain('Your message and its images are kept');
    expect(o.requests.filter((r) => JSON.stringify(r).includes('image_url'))).toHaveLength(1);
    expect(users(events)[0]!.images).toHaveLength(1);
  });
});
