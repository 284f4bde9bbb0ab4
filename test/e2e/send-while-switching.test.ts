// A message typed at the wrong moment is not lost: while the page switches to
// another session (its history still loading, its socket not yet open) the
// composer waits for the socket instead of "sending" into nothing, and a
// message the socket could not take stays in the box with its reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { converse, newSession, openPage, send } from '../helpers/ui.js';

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

describe('sending while the page changes sessions', () => {
  it('shows the new session as connecting (composer off) until its socket opens, then sends', async () => {
    const { page, errors } = await openPage(browser, server.url);
    await newSession(page);
    await converse(page, server.url, 'echo: the first session');
    // Hold the next session's history: the page has dropped the old socket and not yet opened the new one.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/api\/sessions\/[\w-]+\/events/, async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole('button', { name: '+ New session' }).click();
    await page.waitForURL(/\/s\/[\w-]+$/);
    await expect.poll(() => page.locator('span.conn').getAttribute('class'), { timeout: 30_000 }).toContain('connecting');
    await expect(page.getByRole('textbox', { name: 'Message' }).isDisabled()).resolves.toBe(true);
    release();
    const events = await converse(page, server.url, 'echo: the second session');
    expect(events.filter((e) => e.kind === 'user').map((e) => (e as { text: string }).text)).toEqual(['echo: the second session']);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('keeps a message the socket could not take in the box, and says so', async () => {
    const { page } = await openPage(browser, server.url);
    await newSession(page);
    await send(page, 'echo: warm up');
    await page.getByText('warm up', { exact: false }).first().waitFor();
    // The socket starts closing; its close event has not run yet, so the page still shows it open: the send fails.
    await page.evaluate(() => {
      const app = document.querySelector('skein-app') as unknown as HTMLElement & { connection: { drop(): void } };
      app.connection.drop();
      const composer = app.shadowRoot!.querySelector('skein-chat-input') as unknown as { value: string; submit(): void };
      composer.value = 'echo: typed as the socket closed';
      composer.submit();
    });
    await page.getByText('Not sent: the connection is down').waitFor();
    // Back on its own: the text is still there to send.
    await page.locator('span.conn.open').waitFor({ timeout: 60_000 });
    await expect(page.getByRole('textbox', { name: 'Message' }).inputValue()).resolves.toBe('echo: typed as the socket closed');
    await page.close();
  });
});
