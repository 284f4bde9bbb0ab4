// Search jumps to the match (issue 26): a word typed early in a long session
// is found from the list's search box, and opening the result fetches the
// earlier pages it needs, scrolls to that message and marks its row.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { SkeinEvent } from '../../shared/protocol.js';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { sessionEvents, writeSessionLogs } from '../helpers/session-logs.js';
import { openPage } from '../helpers/ui.js';

let server: TestServer;
let browser: Browser;
const ID = '20250101-000000-long01';
/** A user message of the sixth turn: far before the last page the UI loads first. */
const MATCH_SEQ = 31;

beforeAll(async () => {
  const dataDir = tempDir('search-jump');
  writeSessionLogs(dataDir, 5, 12);
  const events: SkeinEvent[] = sessionEvents({ id: ID, events: 3_000 }, Date.parse('2025-06-01T00:00:00Z'));
  const target = events.find((e) => e.seq === MATCH_SEQ)!;
  expect(target.kind).toBe('user');
  (target as { text: string }).text = 'where does the quokka live';
  const header = { skein: 1, session: ID, createdAt: '2025-06-01T00:00:00.000Z', model: 'predictable' };
  fs.writeFileSync(path.join(dataDir, 'sessions', `${ID}.jsonl`), [header, ...events].map((e) => JSON.stringify(e) + '\n').join(''));
  server = await startTestServer({}, { dataDir });
  await server.sessions.scanned;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('search in the web UI', () => {
  it('each result shows the words around its match, the words searched for marked', async () => {
    const { page, errors } = await openPage(browser, server.url, '/s/20250101-000000-s00001');
    await page.getByRole('searchbox', { name: 'Search sessions' }).fill('QUOKK live');
    const snippet = page.locator(`skein-session-list li[data-id="${ID}"]`).getByTestId('search-snippet');
    await expect.poll(() => snippet.textContent(), { timeout: 30_000 }).toBe('where does the quokka live');
    expect(await snippet.locator('mark').allTextContents()).toEqual(['quokka', 'live']);
    // Read from its log: the search loaded no session.
    expect(server.sessions.isLoaded(ID)).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('opens a result at the matching message: earlier pages fetched, the row in view and marked', async () => {
    const { page, errors } = await openPage(browser, server.url, '/s/20250101-000000-s00001');
    await page.getByRole('searchbox', { name: 'Search sessions' }).fill('QUOKK');
    const result = page.locator(`skein-session-list li[data-id="${ID}"] > a`);
    await expect.poll(() => page.locator('skein-session-list li[data-id] > a').evaluateAll((as) => as.map((a) => a.getAttribute('data-id')))).toEqual([ID]);
    expect(await result.getAttribute('href')).toBe(`/s/${ID}?at=${MATCH_SEQ}`);
    await result.click();
    await page.waitForURL((url) => url.pathname === `/s/${ID}` && url.searchParams.get('at') === String(MATCH_SEQ));

    const row = page.locator(`skein-timeline .row[data-seq="${MATCH_SEQ}"]`);
    await row.waitFor();
    expect(await row.getAttribute('data-match')).not.toBeNull();
    await row.getByText('where does the quokka live').waitFor();
    // In view: inside the timeline's visible box.
    await expect
      .poll(async () => {
        const box = await row.boundingBox();
        const view = await page.locator('skein-timeline').boundingBox();
        return !!box && !!view && box.y >= view.y && box.y + Math.min(box.height, 40) <= view.y + view.height;
      })
      .toBe(true);
    // Only that row is marked, and the last rows of the session were not where the reader was left.
    expect(await page.locator('skein-timeline .row[data-match]').count()).toBe(1);
    expect(await page.locator('skein-timeline .row[data-seq="2999"]').count()).toBe(0);

    // Opening it from its own link (a new tab) does the same.
    const tab = await openPage(browser, server.url, `/s/${ID}?at=${MATCH_SEQ}`);
    await tab.page.locator(`skein-timeline .row[data-seq="${MATCH_SEQ}"][data-match]`).waitFor();
    expect(errors).toEqual([]);
    expect(tab.errors).toEqual([]);
    await tab.page.close();
    await page.close();
  }, 120_000);
});
