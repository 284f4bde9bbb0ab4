// Images in the composer, in Chromium: pasted and dropped images show as
// thumbnails with a remove button, something that is no image is refused
// with a sentence, the message goes with its image, the model names it (the
// predictable model hashes the bytes it got), and the timeline shows it.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { UserEvent } from '../../shared/protocol.js';
import { launchBrowser } from '../helpers/browser.js';
import { png } from '../helpers/images.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { contrastViolations, newSession, openPage, waitForEvents } from '../helpers/ui.js';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Pastes (or drops) a file into the composer as the browser would: a real DataTransfer with a File. */
async function give(page: Page, how: 'paste' | 'drop', file: { name: string; type: string; base64: string }): Promise<void> {
  const target = how === 'paste' ? page.getByRole('textbox', { name: 'Message' }) : page.locator('skein-chat-input form');
  await target.evaluate((el, { how, file }) => {
    const bytes = Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0));
    const data = new DataTransfer();
    data.items.add(new File([bytes], file.name, { type: file.type }));
    const event = how === 'paste' ? new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }) : new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true });
    el.dispatchEvent(event);
  }, { how, file });
}

describe('images in the composer', () => {
  it('paste and drop show thumbnails, remove works, a non-image is refused, and the sent image reaches the model and the timeline', async () => {
    const { page, errors } = await openPage(browser, server.url);
    const id = await newSession(page);
    await page.locator('span.conn.open').waitFor({ timeout: 60_000 });
    const picture = png(40, 30, [30, 90, 200]);
    const other = png(10, 10, [250, 200, 0]);
    await give(page, 'paste', { name: 'shot.png', type: 'image/png', base64: picture.toString('base64') });
    await give(page, 'drop', { name: 'other.png', type: 'image/png', base64: other.toString('base64') });
    const thumbs = page.getByTestId('draft-image');
    await expect.poll(() => thumbs.count()).toBe(2);
    expect(await thumbs.first().evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(40);
    expect(await contrastViolations(page)).toEqual([]);

    // Not an image: a sentence says so, nothing is added.
    await give(page, 'paste', { name: 'notes.txt', type: 'text/plain', base64: Buffer.from('hello').toString('base64') });
    await page.getByRole('alert').filter({ hasText: 'notes.txt is not an image skein can send (text/plain): PNG, JPEG, GIF or WebP.' }).waitFor();
    expect(await thumbs.count()).toBe(2);

    // The second one removed before sending.
    await page.getByRole('button', { name: 'Remove image 2' }).click();
    await expect.poll(() => thumbs.count()).toBe(1);

    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('echo: what do you see?');
    await box.press('Enter');
    await expect.poll(() => thumbs.count()).toBe(0);
    const events = await waitForEvents(server.url, id, (es) => es.some((e) => e.kind === 'agent'), 60_000);
    const user = events.find((e): e is UserEvent => e.kind === 'user')!;
    expect(user.images).toHaveLength(1);
    expect(user.images![0]).toMatchObject({ mediaType: 'image/png', width: 40, height: 30, bytes: picture.length });
    const sha = createHash('sha256').update(picture).digest('hex').slice(0, 12);
    await page.locator('skein-agent-message', { hasText: `I see an image: PNG image, 40x30, ${picture.length} bytes, sha256 ${sha}.` }).waitFor();

    // The timeline shows the image in the user's message, loaded from the server.
    const shown = page.getByTestId('message-image');
    await shown.waitFor();
    await expect.poll(() => shown.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(40);
    expect(await shown.getAttribute('alt')).toBe('Image 1: PNG, 40x30');
    await page.screenshot({ path: 'test/e2e/screenshots/image-in-message.png' });
    expect(errors).toEqual([]);
  });
});
