// Long messages collapse (issue 39): a 100 KB paste and the answer that
// echoes it are drawn at a bounded height with "Show all", which shows them
// whole, and "Show less"; a search jump into a long message opens it.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator } from 'playwright-core';
import type { SkeinEvent } from '../../shared/protocol.js';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { sessionEvents } from '../helpers/session-logs.js';
import { converse, eventsOf, newSession, openPage, waitForEvents } from '../helpers/ui.js';

let server: TestServer;
let browser: Browser;
const ID = '20250101-000000-paste1';
let matchSeq = 0;
/** About 100 KB over 2,500 lines. */
const PASTE = Array.from({ length: 2500 }, (_, i) => `line ${i} of the pasted log: ${'x'.repeat(30)}`).join('\n');
/** Bounded: well under a screen (the whole paste is tens of thousands of pixels). */
const BOUNDED = 700;

beforeAll(async () => {
  const dataDir = tempDir('long-messages');
  const events: SkeinEvent[] = sessionEvents({ id: ID, events: 600 }, Date.parse('2025-06-01T00:00:00Z'));
  const target = events.filter((e): e is Extract<SkeinEvent, { kind: 'user' }> => e.kind === 'user')[10]!;
  target.text = `${PASTE}\nand at the very end: the capybara`;
  matchSeq = target.seq;
  const header = { skein: 1, session: ID, createdAt: '2025-06-01T00:00:00.000Z', model: 'predictable' };
  fs.mkdirSync(path.join(dataDir, 'sessions'), { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'sessions', `${ID}.jsonl`), [header, ...events].map((e) => JSON.stringify(e) + '\n').join(''));
  server = await startTestServer({}, { dataDir });
  await server.sessions.scanned;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const height = async (row: Locator) => (await row.boundingBox())?.height ?? 0;

describe('long messages', () => {
  it('a 100 KB paste and a long answer are collapsed with "Show all" and "Show less"', async () => {
    const { page, errors } = await openPage(browser, server.url);
    const id = await newSession(page);
    const box = page.getByRole('textbox', { name: 'Message' });
    /** Sends as a paste does (playwright's fill types 100 KB for longer than a test may wait): the value, one input event, Enter. */
    const pasteAndSend = async (text: string) => {
      const before = (await eventsOf(server.url, id)).length;
      await box.evaluate((el: HTMLTextAreaElement, value) => {
        el.value = value;
        el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      }, text);
      await box.press('Enter');
      const events = await waitForEvents(server.url, id, (es) => es.slice(before).some((e) => e.kind === 'state' && e.to === 'WaitingForUserInput'), 60_000);
      return events.slice(before);
    };
    // The paste: kept whole as a file for the model, shown whole (once opened) in the timeline.
    const pasted = (await pasteAndSend(PASTE)).find((e) => e.kind === 'user')!.seq;
    // An answer of 400 lines.
    const answer = (await pasteAndSend(`echo: ${Array.from({ length: 400 }, (_, i) => `answer line ${i}`).join('\n')}`)).find((e) => e.kind === 'agent')!.seq;
    for (const [seq, whole, size] of [[pasted, 20_000, /Show all \(2,500 lines, 1\d\d KB\)/], [answer, 5_000, /Show all \(400 lines, \d KB\)/]] as const) {
      const row = page.locator(`skein-timeline .row[data-seq="${seq}"]`);
      await row.scrollIntoViewIfNeeded();
      await expect.poll(() => height(row)).toBeLessThan(BOUNDED);
      const more = row.getByRole('button', { name: /^Show all/ });
      expect(await more.textContent()).toMatch(size);
      await more.click();
      await expect.poll(() => height(row), { timeout: 15_000 }).toBeGreaterThan(whole);
      await row.getByRole('button', { name: 'Show less' }).click();
      await expect.poll(() => height(row), { timeout: 15_000 }).toBeLessThan(BOUNDED);
      // Its top is in view again, with the button that opens it.
      await expect.poll(() => more.isVisible()).toBe(true);
    }
    // A short message has no such button.
    await converse(page, server.url, 'echo: short');
    expect(await page.locator('skein-timeline .row', { hasText: 'short' }).getByRole('button', { name: /^Show all/ }).count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('a search jump into a collapsed message opens it', async () => {
    const { page, errors } = await openPage(browser, server.url);
    await page.getByRole('searchbox', { name: 'Search sessions' }).fill('capybara');
    const result = page.locator(`skein-session-list li[data-id="${ID}"] > a`);
    await expect.poll(() => result.getAttribute('href'), { timeout: 30_000 }).toBe(`/s/${ID}?at=${matchSeq}`);
    await result.click();
    const row = page.locator(`skein-timeline .row[data-seq="${matchSeq}"][data-match]`);
    await row.waitFor({ timeout: 60_000 });
    await expect.poll(() => height(row), { timeout: 30_000 }).toBeGreaterThan(20_000);
    await row.getByRole('button', { name: 'Show less' }).waitFor();
    await row.getByText(/the capybara/).waitFor({ state: 'attached' });
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
