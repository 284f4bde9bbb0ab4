// Layout that holds (issue 23): one header row from 1024 px up whatever the
// view, at most 150 px of header on a phone (issue 39: the title and the
// gauge's numbers, whole, take second rows there; see header-fit.test.ts),
// WCAG AA contrast in light and dark, the sessions list showing each
// session's tokens and cost and its live state whole, the row menu closing
// after Export, the rename field showing the title's start.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { SessionSnapshot } from '../../shared/protocol.js';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { axeViolations, converse, newSession, openPage, send } from '../helpers/ui.js';

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

/** The bottom of the header and the context bar (what stays above the timeline), in px. */
function headerBottom(page: Page): Promise<number> {
  return page.evaluate(() => document.querySelector('skein-app')!.shadowRoot!.querySelector('.context')!.getBoundingClientRect().bottom);
}

/** How many rows the context bar's visible parts take (distinct vertical centres, 4 px apart). */
function contextRows(page: Page): Promise<number> {
  return page.evaluate(() => {
    const context = document.querySelector('skein-app')!.shadowRoot!.querySelector('.context')!;
    const centres = [...context.children].map((c) => c.getBoundingClientRect()).filter((r) => r.height > 0).map((r) => r.top + r.height / 2);
    return centres.filter((c, i) => centres.findIndex((d) => Math.abs(d - c) < 4) === i).length;
  });
}

async function contrast(page: Page): Promise<string[]> {
  return (await axeViolations(page)).filter((v) => v.includes('color-contrast'));
}

describe('layout', () => {
  it('one header row from 1024 px up in every view; at most 150 px of header on a phone; AA contrast in light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const [width, height] of [[1024, 768], [1280, 800], [390, 844]] as const) {
        const { page, errors } = await openPage(browser, server.url, '/', { colorScheme, width, height, reducedMotion: true });
        if (width > 600) {
          await newSession(page);
          await converse(page, server.url, 'echo: a **reply** with `code`');
          const heights: number[] = [];
          for (const view of ['timeline', 'What the model sees', 'Changes'] as const) {
            if (view !== 'timeline') await page.getByRole('button', { name: view }).click();
            expect(await contextRows(page)).toBe(1);
            heights.push(await headerBottom(page));
            expect(await contrast(page)).toEqual([]);
            if (view !== 'timeline') await page.getByRole('button', { name: 'Back to timeline' }).click();
          }
          expect(new Set(heights).size).toBe(1);
        } else {
          await converse(page, server.url, 'echo: on a phone');
          expect(await headerBottom(page)).toBeLessThanOrEqual(150);
          expect(await contrast(page)).toEqual([]);
        }
        if (colorScheme === 'dark' && width === 1280) {
          fs.mkdirSync('test/e2e/screenshots', { recursive: true });
          await page.screenshot({ path: screenshotPath('dark-mode') });
          fs.copyFileSync(screenshotPath('dark-mode'), 'test/e2e/screenshots/dark-mode.png');
          // The delete dialog's primary button too.
          const id = new URL(page.url()).pathname.split('/').pop()!;
          const row = page.locator(`skein-session-list li[data-id="${id}"]`);
          await row.locator('summary').click();
          await row.getByRole('menuitem', { name: 'Delete…' }).click();
          await page.getByRole('dialog').waitFor();
          expect(await contrast(page)).toEqual([]);
          await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
        }
        expect(errors).toEqual([]);
        await page.close();
      }
    }
  }, 240_000);

  it('the sessions list: tokens and cost of each session, its live state whole; the row menu closes after Export; rename shows the start', async () => {
    const { page, errors } = await openPage(browser, server.url, '/', { width: 1280, height: 800 });
    const id = await newSession(page);
    const title = `echo: ${'a long title that does not fit the list '.repeat(3)}end`;
    await converse(page, server.url, title);
    const row = page.locator(`skein-session-list li[data-id="${id}"]`);
    const snapshot = (await api<SessionSnapshot>(server.url, `/api/sessions/${id}`)).body;
    expect(snapshot.gauge.totalTokens).toBeGreaterThan(1000);
    const usage = row.getByTestId('list-usage');
    await expect.poll(() => usage.textContent()).toBe(`${snapshot.gauge.totalTokens!.toLocaleString('en-US')} tokens · $0`);

    await send(page, 'delay: 20000');
    const state = row.getByTestId('list-state');
    await expect.poll(() => state.textContent(), { timeout: 15_000 }).toBe('Thinking…');
    expect(await state.evaluate((el) => el.scrollWidth <= el.clientWidth && el.getBoundingClientRect().width > 0)).toBe(true);
    await page.getByRole('button', { name: 'Cancel' }).click();

    await row.locator('summary').click();
    const details = row.locator('details.actions');
    expect(await details.getAttribute('open')).not.toBeNull();
    const download = page.waitForEvent('download');
    await row.getByRole('menuitem', { name: 'Export Markdown' }).click();
    await download;
    expect(await details.getAttribute('open')).toBeNull();

    await row.locator('summary').click();
    await row.getByRole('menuitem', { name: 'Rename' }).click();
    const input = page.getByRole('textbox', { name: /New title/ });
    await input.waitFor();
    expect(await input.evaluate((el) => (el as HTMLInputElement).scrollWidth > (el as HTMLInputElement).clientWidth)).toBe(true);
    expect(await input.evaluate((el) => (el as HTMLInputElement).scrollLeft)).toBe(0);
    await input.press('Escape');
    expect(errors).toEqual([]);
    await page.close();
  });
});
