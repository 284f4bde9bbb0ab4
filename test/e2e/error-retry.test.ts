// The error box of a failed turn (issue 39), in Chromium with the predictable
// model's `error: 500` (fails once; the same message again succeeds): its text
// starts and ends where the words do (no blank line or indentation from the
// template), and Retry sends the failed turn's message again, its image too,
// once however often it is clicked. Retry is offered on the latest failed turn
// only.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { SkeinEvent, UserEvent } from '../../shared/protocol.js';
import { launchBrowser } from '../helpers/browser.js';
import { png } from '../helpers/images.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { contrastViolations, converse, eventsOf, newSession, openPage, waitForEvents } from '../helpers/ui.js';

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

const users = (events: SkeinEvent[]) => events.filter((e): e is UserEvent => e.kind === 'user');

/** The text the error box shows, as a person reads it (innerText keeps what CSS white-space shows). */
function boxText(page: Page, index: number): Promise<string> {
  return page.locator('skein-error-message').nth(index).evaluate((el) => (el.shadowRoot!.querySelector('.body') as HTMLElement).innerText);
}

describe('the error box of a failed turn', () => {
  it('shows the trimmed text; Retry resends the message with its image, once; only the latest failure offers it', { timeout: 240_000 }, async () => {
    const { page, errors } = await openPage(browser, server.url, '/', { colorScheme: 'dark' });
    const id = await newSession(page);
    await page.locator('span.conn.open').waitFor({ timeout: 60_000 });
    const picture = png(24, 16, [200, 60, 60]);
    await page.getByRole('textbox', { name: 'Message' }).evaluate((el, base64) => {
      const data = new DataTransfer();
      data.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], 'shot.png', { type: 'image/png' }));
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    }, picture.toString('base64'));
    await expect.poll(() => page.getByTestId('draft-image').count(), { timeout: 30_000 }).toBe(1);
    await converse(page, server.url, 'error: 500');

    const box = page.locator('skein-error-message');
    await box.waitFor();
    const text = await boxText(page, 0);
    expect(text).toBe('Error provider_500: api_error: Internal server error (simulated 500, not retried)\nThe provider failed; the turn stopped.\nRetry');
    expect(await contrastViolations(page)).toEqual([]);

    // Two clicks in a row: one resend.
    const retry = box.getByRole('button', { name: 'Retry' });
    await retry.dblclick();
    const after = await waitForEvents(server.url, id, (es) => es.some((e) => e.kind === 'agent' && e.text.endsWith('recovered from simulated error: 500')), 60_000);
    const [failed, resent] = users(after);
    expect(users(after)).toHaveLength(2);
    expect(resent!.text).toBe('error: 500');
    expect(resent!.images).toHaveLength(1);
    expect(resent!.images![0]).toMatchObject({ mediaType: 'image/png', width: 24, height: 16, bytes: picture.length });
    expect(fs.readFileSync(resent!.images![0]!.file)).toEqual(fs.readFileSync(failed!.images![0]!.file));
    // The model got the image again (the predictable model describes the images of the message it answers).
    expect(after.find((e) => e.kind === 'agent')).toMatchObject({ text: expect.stringMatching(/^I see an image: PNG image, 24x16, \d+ bytes/) });
    // The turn it started succeeded: no failed turn is the latest any more, so no Retry.
    await page.locator('skein-agent-message', { hasText: 'recovered from simulated error: 500' }).waitFor();
    await expect.poll(() => page.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    expect((await eventsOf(server.url, id)).filter((e) => e.kind === 'user')).toHaveLength(2);

    // A new failure offers Retry; a message sent after it takes it away.
    await converse(page, server.url, 'error: overloaded');
    await expect.poll(() => box.count()).toBe(2);
    await expect.poll(() => box.nth(1).getByRole('button', { name: 'Retry' }).count()).toBe(1);
    expect(await box.nth(0).getByRole('button', { name: 'Retry' }).count()).toBe(0);
    await converse(page, server.url, 'echo: moving on');
    await expect.poll(() => page.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    expect(await boxText(page, 1)).toBe('Error provider_529: overloaded_error: Overloaded (simulated, not retried)\nThe provider failed; the turn stopped. Send again to retry.');
    expect(errors).toEqual([]);
  });
});
