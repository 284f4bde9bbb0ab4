// A session of 5,000 events, written as a log file before the server starts:
// it opens, shows its end, scrolls to its start, jumps to a compaction from
// the sparkline, and keeps only a window of rows in the DOM. The timings and
// memory go to test/bench/results/ui.json; they are reported, not asserted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { SkeinEvent } from '../../shared/protocol.js';
import { measureOpenAndScroll, writeLongSession, writeUiResults, RESULTS_FILE } from '../bench/ui-measure.js';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';

let server: TestServer;
let browser: Browser;
let id: string;
let events: SkeinEvent[];

beforeAll(async () => {
  const dataDir = tempDir('long');
  ({ id, events } = writeLongSession(dataDir, 5000));
  server = await startTestServer({}, { dataDir });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('a 5,000-event session', () => {
  it('opens at its end, scrolls to its start, jumps to a compaction, and stays windowed', async () => {
    expect(events.length).toBeGreaterThanOrEqual(5000);
    const { page, measurement } = await measureOpenAndScroll(browser, server.url, id, events.length);
    writeUiResults(measurement);
    console.log(`[ui bench] ${JSON.stringify(measurement)} -> ${RESULTS_FILE}`);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));

    // Only a window of the thousands of rows is in the DOM.
    expect(measurement.rows).toBeGreaterThan(1000);
    expect(measurement.renderedRows).toBeGreaterThan(0);
    expect(measurement.renderedRows).toBeLessThan(120);

    // After the measured scroll to the top, the first message is on screen.
    const firstUser = events.find((e) => e.kind === 'user')!;
    if (firstUser.kind !== 'user') throw new Error('no user event');
    await page.locator('skein-user-message', { hasText: firstUser.text }).first().waitFor();

    // The sparkline has a point per request and a mark per compaction.
    const requests = events.filter((e) => e.kind === 'usage' && !e.gauge.estimated).length;
    const compactions = events.filter((e) => e.kind === 'compaction' && e.phase === 'finished');
    expect(compactions.length).toBeGreaterThanOrEqual(3);
    const spark = page.locator('skein-sparkline svg');
    expect(Number(await spark.getAttribute('data-points'))).toBe(requests);
    expect(await page.locator('skein-sparkline button.mark').count()).toBe(compactions.length);

    // A mark far down the log scrolls the timeline to that compaction.
    const target = compactions[2]!;
    const started = events.find((e) => e.kind === 'compaction' && e.phase === 'started' && e.seq < target.seq && e.seq > target.seq - 3)!;
    await page.locator('skein-sparkline button.mark').nth(2).click();
    const divider = page.locator(`skein-compaction-divider#compaction-${started.seq}`);
    await divider.waitFor();
    await expectInViewport(page, divider);
    expect(await divider.locator('[role=separator]').innerText()).toContain(`${(target as { tokensBefore: number }).tokensBefore.toLocaleString('en-US')} →`);

    // The keyboard moves through the whole log: End and Home on the focused timeline.
    await page.locator('skein-timeline').focus();
    await page.keyboard.press('End');
    const lastUser = events.filter((e) => e.kind === 'user').at(-1)!;
    await page.locator(`skein-timeline .row[data-seq="${lastUser.seq}"]`).waitFor();
    await page.keyboard.press('Home');
    await page.locator('skein-timeline .row[data-seq="1"]').waitFor();

    // Jump to latest brings back the end of the log.
    await page.getByRole('button', { name: /Jump to latest/ }).click();
    const lastAgent = events.filter((e) => e.kind === 'agent' && e.text).at(-1)!;
    await page.locator(`[data-seq="${lastAgent.seq}"]`).waitFor();
    const seqs = await page.evaluate(() => (document.querySelector('skein-app')!.shadowRoot!.querySelector('skein-timeline') as unknown as { renderedSeqs(): number[] }).renderedSeqs());
    expect(new Set(seqs).size).toBe(seqs.length);
    await page.screenshot({ path: screenshotPath('long-session') });
    expect(errors).toEqual([]);
    await page.close();
  });
});

async function expectInViewport(page: import('playwright-core').Page, locator: import('playwright-core').Locator) {
  const box = await locator.boundingBox();
  const viewport = page.viewportSize()!;
  expect(box).not.toBeNull();
  expect(box!.y).toBeGreaterThanOrEqual(0);
  expect(box!.y).toBeLessThan(viewport.height);
}
