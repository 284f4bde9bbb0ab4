// A compaction that folded nothing (issue 23): a plain line saying so, no
// divider claiming "saved 0%".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { converse, newSession, openPage, send, waitForEvents } from '../helpers/ui.js';

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

describe('a compaction with nothing to fold', () => {
  it('draws no "saved 0%" divider, only a line saying there was nothing to compact', async () => {
    const { page, errors } = await openPage(browser, server.url);
    const id = await newSession(page);
    await converse(page, server.url, 'echo: the only message');
    await send(page, '/compact');
    const events = await waitForEvents(server.url, id, (es) => es.some((e) => e.kind === 'compaction' && e.phase === 'finished'));
    const done = events.find((e) => e.kind === 'compaction' && e.phase === 'finished')!;
    expect(done).toMatchObject({ strategy: 'none' });
    await page.getByText(/Nothing to compact: /).waitFor();
    expect(await page.locator('skein-compaction-divider').count()).toBe(0);
    expect(await page.getByText(/saved/).count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
