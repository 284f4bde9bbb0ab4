// The message box's ↑ history survives a reload (issue 39): kept per session
// in the browser's storage, so ↑ after a reload brings back what was sent in
// that session (newest first, ↓ forward again), and another session has its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { converse, newSession, openPage } from '../helpers/ui.js';

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

describe('the message box history', () => {
  it('is kept per session across a reload', async () => {
    const { page, errors } = await openPage(browser, server.url);
    const first = await newSession(page);
    await converse(page, server.url, 'echo: the first one');
    await converse(page, server.url, 'echo: the second one');
    const box = page.getByRole('textbox', { name: 'Message' });

    await page.reload();
    await page.getByText('connected', { exact: true }).waitFor();
    await box.click();
    await box.press('ArrowUp');
    await expect.poll(() => box.inputValue()).toBe('echo: the second one');
    await box.press('ArrowUp');
    await expect.poll(() => box.inputValue()).toBe('echo: the first one');
    await box.press('ArrowDown');
    await expect.poll(() => box.inputValue()).toBe('echo: the second one');
    await box.press('ArrowDown');
    await expect.poll(() => box.inputValue()).toBe('');

    // Another session: nothing of the first one's.
    await newSession(page);
    await converse(page, server.url, 'echo: elsewhere');
    await page.reload();
    await page.getByText('connected', { exact: true }).waitFor();
    await box.click();
    await box.press('ArrowUp');
    await expect.poll(() => box.inputValue()).toBe('echo: elsewhere');
    await box.press('ArrowUp');
    expect(await box.inputValue()).toBe('echo: elsewhere');

    // Back in the first one (opened by its address), its own history.
    await page.goto(new URL(`/s/${first}`, page.url()).toString());
    await page.getByText('connected', { exact: true }).waitFor();
    await box.click();
    await box.press('ArrowUp');
    await expect.poll(() => box.inputValue()).toBe('echo: the second one');
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
