// Where the timeline goes on its own (issue 39): sending while scrolled up
// brings the reader back to the bottom (their message is in view), and a
// search jump lands on the match, drawn and marked, even after messages far
// taller than their estimate (a 100 KB paste before it).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { SkeinEvent } from '../../shared/protocol.js';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { sessionEvents } from '../helpers/session-logs.js';
import { openPage, send } from '../helpers/ui.js';

let server: TestServer;
let browser: Browser;
const LONG = '20250101-000000-long01';
const TALL = '20250101-000000-tall01';
/** A user message of the tall session with a very tall message just before it. */
let matchSeq = 0;

function writeLog(dataDir: string, id: string, events: SkeinEvent[]) {
  const header = { skein: 1, session: id, createdAt: '2025-06-01T00:00:00.000Z', model: 'predictable' };
  fs.mkdirSync(path.join(dataDir, 'sessions'), { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'sessions', `${id}.jsonl`), [header, ...events].map((e) => JSON.stringify(e) + '\n').join(''));
}

beforeAll(async () => {
  const dataDir = tempDir('timeline-jumps');
  writeLog(dataDir, LONG, sessionEvents({ id: LONG, events: 600 }, Date.parse('2025-06-01T00:00:00Z')));
  // Turns whose user messages are 100 KB pastes (thousands of lines each), the match right after the last of them.
  const tall = sessionEvents({ id: TALL, events: 1200 }, Date.parse('2025-06-02T00:00:00Z'));
  const users = tall.filter((e): e is Extract<SkeinEvent, { kind: 'user' }> => e.kind === 'user');
  const paste = Array.from({ length: 2500 }, (_, i) => `line ${i} of the pasted log: ${'x'.repeat(30)}`).join('\n');
  for (const u of users.slice(20, 26)) u.text = paste;
  users[26]!.text = 'where does the wombat sleep';
  matchSeq = users[26]!.seq;
  writeLog(dataDir, TALL, tall);
  server = await startTestServer({}, { dataDir });
  await server.sessions.scanned;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Whether the element's top part is inside the timeline's visible box. */
async function inView(page: Page, selector: string): Promise<boolean> {
  const row = page.locator(selector);
  if ((await row.count()) === 0) return false;
  const box = await row.boundingBox();
  const view = await page.locator('skein-timeline').boundingBox();
  return !!box && !!view && box.y >= view.y - 1 && box.y + Math.min(box.height, 40) <= view.y + view.height + 1;
}

describe('the timeline follows the reader', () => {
  it('sending while scrolled up scrolls to the bottom: the message sent is in view', async () => {
    const { page, errors } = await openPage(browser, server.url, `/s/${LONG}`);
    const timeline = page.locator('skein-timeline');
    const box = (await timeline.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    // Up as a reader does, until "Jump to latest" says they left the bottom.
    const jump = page.getByRole('button', { name: /Jump to latest/ });
    await expect
      .poll(async () => {
        await page.mouse.wheel(0, -1500);
        return jump.isVisible();
      }, { timeout: 30_000 })
      .toBe(true);
    await page.mouse.wheel(0, -3000);

    await send(page, 'echo: back at the bottom');
    await expect.poll(() => inView(page, `skein-timeline .row[data-kind="user"]:has-text("back at the bottom")`), { timeout: 15_000 }).toBe(true);
    await expect.poll(() => jump.count(), { timeout: 15_000 }).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('a search jump after very tall messages lands on the match, drawn and marked', async () => {
    const { page, errors } = await openPage(browser, server.url, `/s/${TALL}?at=${matchSeq}`);
    const match = `skein-timeline .row[data-seq="${matchSeq}"]`;
    await expect.poll(() => inView(page, `${match}[data-match]`), { timeout: 60_000 }).toBe(true);
    await page.locator(match).getByText('where does the wombat sleep').waitFor();
    // It stays there once everything around it is measured.
    await page.waitForFunction(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true)))));
    expect(await inView(page, `${match}[data-match]`)).toBe(true);
    expect(await page.locator('skein-timeline .row[data-match]').count()).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
