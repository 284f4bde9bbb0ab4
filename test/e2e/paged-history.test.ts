// Tail first: a long session's page fetches only its last events for the first
// screen; scrolling up (the wheel, as a reader does) fetches earlier pages
// until the very first event, with no duplicate or missing seq, while new
// events keep arriving at the end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { SkeinEvent } from '../../shared/protocol.js';
import { writeLongSession } from '../bench/ui-measure.js';
import { withToken } from '../helpers/auth.js';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

let server: TestServer;
let browser: Browser;
let id: string;
let events: SkeinEvent[];

beforeAll(async () => {
  const dataDir = tempDir('paged');
  ({ id, events } = writeLongSession(dataDir, 3000));
  server = await startTestServer({}, { dataDir });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const heldSeqs = (page: Page) => page.evaluate(() => (document.querySelector('skein-app') as unknown as { eventSeqs(): number[] }).eventSeqs());
const rowSeqs = (page: Page) =>
  page.evaluate(() => (document.querySelector('skein-app')!.shadowRoot!.querySelector('skein-timeline') as unknown as { rows: { seq: number }[] }).rows.map((r) => r.seq));

describe('paged history in the browser', () => {
  it('opens with the tail only, then scrolls up to the first event with every seq exactly once', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    const requests: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/events')) requests.push(r.url());
    });
    await page.goto(withToken(`${server.url}/s/${id}`));
    const last = events.at(-1)!.seq;
    await page.locator(`skein-timeline .row[data-seq="${events.filter((e) => e.kind === 'agent' && e.text).at(-1)!.seq}"]`).waitFor();
    const first = await heldSeqs(page);
    // The first screen came from one page: the tail, not the whole log.
    expect(first.length).toBeLessThan(events.length / 2);
    expect(first.at(-1)).toBe(last);
    expect(first).toEqual(Array.from({ length: first.length }, (_, i) => last - first.length + 1 + i));
    expect(requests.every((u) => /before=\d+&limit=\d+/.test(u))).toBe(true);

    // A new event arrives at the end while the reader pages back.
    const live = server.sessions.get(id)!;
    live.session.append({ kind: 'error', message: 'a new event at the end', code: 'internal' });

    const box = (await page.locator('skein-timeline').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const deadline = Date.now() + 120_000;
    while ((await heldSeqs(page))[0] !== 1) {
      if (Date.now() > deadline) throw new Error(`never reached the first event; holding from ${(await heldSeqs(page))[0]}`);
      await page.mouse.wheel(0, -3000);
    }
    await page.waitForFunction((n) => ((document.querySelector('skein-app') as unknown as { eventSeqs(): number[] }).eventSeqs().at(-1) ?? 0) >= n, last + 1);
    const all = await heldSeqs(page);
    expect(all).toEqual(Array.from({ length: last + 1 }, (_, i) => i + 1));
    const rows = await rowSeqs(page);
    expect(new Set(rows).size).toBe(rows.length);
    expect(rows).toEqual([...rows].sort((a, b) => a - b));
    // Pages grew: far fewer requests than a fixed small page would need.
    expect(requests.length).toBeLessThan(10);
    // Keep scrolling to the very top: the first row is on screen.
    await page.locator('skein-timeline').focus();
    await page.keyboard.press('Home');
    await page.locator('skein-timeline .row[data-seq="1"]').waitFor();
    await page.close();
  });

  it('Home against a server whose page does not reach further back stops after that page instead of asking for ever', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    const asked: number[] = [];
    await page.goto(withToken(`${server.url}/s/${id}`));
    await page.locator(`skein-timeline .row[data-seq="${events.filter((e) => e.kind === 'agent' && e.text).at(-1)!.seq}"]`).waitFor();
    // From now on (the tail came from the real server) every earlier page is answered with events at or after `before`: a loop that waits for seq to shrink would never end.
    await page.route(/\/events\?before=/, (route) => {
      const before = Number(new URL(route.request().url()).searchParams.get('before'));
      asked.push(before);
      void route.fulfill({ contentType: 'application/json', body: JSON.stringify({ events: events.filter((e) => e.seq >= before && e.seq < before + 5), more: true }) });
    });
    const held = await heldSeqs(page);
    await page.locator('skein-timeline').focus();
    await page.keyboard.press('Home');
    await until(() => asked.length > 0, 'a request for earlier events');
    // The load ends (the app is ready to load again) after the one page that went nowhere.
    await page.waitForFunction(() => (document.querySelector('skein-app') as unknown as { loadingEarlier: boolean }).loadingEarlier === false, undefined, { timeout: 20_000 });
    expect(asked).toHaveLength(1);
    // What was held is held still: the useless page was not added.
    expect(await heldSeqs(page)).toEqual(held);
    await page.close();
  }, 120_000);
});
