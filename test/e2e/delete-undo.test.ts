// Deleting the open session (issue 23): the next one opens, and an Undo brings
// the deleted one back from the trash, open again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { contrastViolations, converse, newSession, openPage } from '../helpers/ui.js';

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

describe('deleting the open session', () => {
  it('moves to the next session and offers an Undo that restores it', async () => {
    const { page, errors } = await openPage(browser, server.url);
    const first = await newSession(page);
    await converse(page, server.url, 'echo: words of the first session');
    const second = await newSession(page);
    await converse(page, server.url, 'echo: words of the second session');
    const row = page.locator(`skein-session-list li[data-id="${second}"]`);
    await row.locator('summary').click();
    await row.getByRole('menuitem', { name: 'Delete…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();

    await page.waitForURL((url) => url.pathname.endsWith(first));
    await page.locator('skein-agent-message', { hasText: 'words of the first session' }).waitFor();
    expect(await page.locator('skein-agent-message', { hasText: 'words of the second session' }).count()).toBe(0);
    expect(await page.getByText(/There is no session/).count()).toBe(0);
    expect((await api(server.url, `/api/sessions/${second}`)).status).toBe(404);
    await row.waitFor({ state: 'detached' });

    const undo = page.getByRole('status').filter({ hasText: /Deleted “echo: words of the second session”: it is in the Trash/ });
    await undo.waitFor();
    expect(await contrastViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await contrastViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
    await undo.getByRole('button', { name: 'Undo' }).click();
    await page.waitForURL((url) => url.pathname.endsWith(second));
    await page.locator('skein-agent-message', { hasText: 'words of the second session' }).waitFor();
    await row.waitFor();
    expect((await api(server.url, `/api/sessions/${second}`)).status).toBe(200);
    await converse(page, server.url, 'echo: back again');
    expect(errors).toEqual([]);
    await page.close();
  });
});
