// Forks belong to their conversation (issue 39, item 5): in the sessions list
// a fork and an Edit and resend sit under the session they came from (a fork
// of a fork under its own parent), folded behind a count until opened, the
// session one is in always shown; each is titled by what differs, in the list
// and the header, never "… (fork) (fork)". A "Rewound…" notice stays with the
// session it was said in. A fork whose origin is deleted stands at the top.
// Screenshots at 1280, 1024 and 390 px, light and dark, to
// test/e2e/screenshots/fork-tree-<width>-<theme>.png.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { contrastViolations, converse, eventsOf, newSession, openPage, sessionId } from '../helpers/ui.js';

const SHOTS = 'test/e2e/screenshots';
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

const list = (page: Page) => page.locator('skein-session-list');
const row = (page: Page, id: string) => list(page).locator(`li[data-id="${id}"]`);
const depth = (page: Page, id: string) => row(page, id).getAttribute('data-depth');
const headerTitle = (page: Page) => page.locator('header h1.title');

/** A timeline row's menu item; waits for the page to leave `from` (a fork opens). */
async function rowAction(page: Page, seq: number, item: string, from: string): Promise<string> {
  const r = page.locator(`skein-timeline .row[data-seq="${seq}"]`);
  await r.hover();
  await r.locator('summary').click();
  await r.getByRole('menuitem', { name: item }).click();
  await page.waitForURL((url) => !url.pathname.endsWith(from));
  return sessionId(page);
}

const lastAgent = async (id: string) => (await eventsOf(server.url, id)).filter((e) => e.kind === 'agent').at(-1)!.seq;

describe('forks in the sessions list', () => {
  it('nest under their origin, folded with a count, titled by what differs; the Rewound notice stays where it was said', async () => {
    const { page, errors } = await openPage(browser, server.url, '/', { width: 1280, height: 900, reducedMotion: true });
    const origin = await newSession(page);
    await converse(page, server.url, 'echo: plan the trip to Lisbon');
    await converse(page, server.url, 'echo: pick a hotel near the river');
    const events = await eventsOf(server.url, origin);
    const secondMessage = events.filter((e) => e.kind === 'user').at(-1)!.seq;

    // A rewind of the files only: its notice is this session's.
    const firstAnswer = events.find((e) => e.kind === 'agent')!.seq;
    const r = page.locator(`skein-timeline .row[data-seq="${firstAnswer}"]`);
    await r.hover();
    await r.locator('summary').click();
    await r.getByRole('menuitem', { name: 'Rewind to here…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rewind files only' }).click();
    const info = page.getByTestId('command-info');
    await info.filter({ hasText: /^Rewound/ }).waitFor();

    // A plain fork: under its origin, titled by where it branched off, and the notice did not follow it.
    const plain = await rowAction(page, await lastAgent(origin), 'Fork from here', origin);
    await expect.poll(() => headerTitle(page).textContent()).toBe('↳ from message 2');
    expect(await info.count()).toBe(0);
    await row(page, plain).waitFor();
    expect(await depth(page, plain)).toBe('1');
    expect(await row(page, plain).locator('.title').textContent()).toBe('↳ from message 2');
    await expect.poll(() => row(page, origin).getByTestId('forks-toggle').textContent()).toContain('1 fork');

    // Edit and resend from the origin: a fork titled by the new words.
    await row(page, origin).locator('> a').click();
    await page.waitForURL((url) => url.pathname.endsWith(origin));
    await page.locator('skein-agent-message', { hasText: 'pick a hotel near the river' }).waitFor();
    const edited = await rowAction(page, secondMessage, 'Edit and resend', origin);
    await expect.poll(() => page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('echo: pick a hotel near the river');
    await expect.poll(() => headerTitle(page).textContent()).toBe('↳ editing message 2');
    await converse(page, server.url, 'echo: pick a cheaper hotel by the station');
    await expect.poll(() => headerTitle(page).textContent()).toBe('↳ edited: echo: pick a cheaper hotel by the station');
    await expect.poll(() => row(page, edited).locator('.title').textContent()).toBe('↳ edited: echo: pick a cheaper hotel by the station');
    expect(await depth(page, edited)).toBe('1');

    // A fork of the fork: under its own parent.
    const nested = await rowAction(page, await lastAgent(edited), 'Fork from here', edited);
    await row(page, nested).waitFor();
    expect(await depth(page, nested)).toBe('2');
    await expect.poll(() => row(page, origin).getByTestId('forks-toggle').textContent()).toContain('3 forks');
    expect(await row(page, edited).getByTestId('forks-toggle').textContent()).toContain('1 fork');
    expect(await list(page).locator('.title').allTextContents()).not.toContainEqual(expect.stringContaining('(fork)'));
    // Folding the origin: the other forks hide, the session one is in stays (with the way to it).
    await row(page, origin).getByTestId('forks-toggle').click();
    await row(page, plain).waitFor({ state: 'detached' });
    expect(await row(page, nested).isVisible()).toBe(true);
    expect(await row(page, edited).isVisible()).toBe(true);
    await row(page, origin).getByTestId('forks-toggle').click();
    await row(page, plain).waitFor();
    expect(errors).toEqual([]);
    await page.close();

    // Another page, in the origin: its forks are folded behind their count until opened.
    const fresh = await openPage(browser, server.url, `/s/${origin}`, { width: 1280, height: 900, reducedMotion: true });
    const toggle = row(fresh.page, origin).getByTestId('forks-toggle');
    await expect.poll(() => toggle.textContent()).toContain('▸ 3 forks');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await row(fresh.page, plain).count()).toBe(0);
    await toggle.click();
    await row(fresh.page, plain).waitFor();
    await row(fresh.page, edited).waitFor();
    expect(await row(fresh.page, nested).count()).toBe(0);
    await row(fresh.page, edited).getByTestId('forks-toggle').click();
    await row(fresh.page, nested).waitFor();
    expect(fresh.errors).toEqual([]);
    await fresh.page.close();

    // Screenshots, in the fork of the fork: the list (on a phone, the drawer) and the header.
    fs.mkdirSync(SHOTS, { recursive: true });
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const [width, height] of [[1280, 800], [1024, 768], [390, 844]] as const) {
        const shot = await openPage(browser, server.url, `/s/${nested}`, { colorScheme, width, height, reducedMotion: true });
        await expect.poll(() => headerTitle(shot.page).textContent()).toBe('↳ from message 2');
        if (width < 700) await shot.page.getByRole('button', { name: 'Sessions' }).click();
        await row(shot.page, nested).waitFor();
        expect(await depth(shot.page, nested)).toBe('2');
        await expect.poll(() => row(shot.page, nested).isVisible()).toBe(true);
        expect(await contrastViolations(shot.page)).toEqual([]);
        await shot.page.screenshot({ path: `${SHOTS}/fork-tree-${width}-${colorScheme}.png` });
        expect(shot.errors).toEqual([]);
        await shot.page.close();
      }
    }

    // The origin deleted: its forks stand at the top; the fork of a fork stays under its parent.
    expect((await api(server.url, `/api/sessions/${origin}`, { method: 'DELETE' })).status).toBe(200);
    const after = await openPage(browser, server.url, `/s/${nested}`, { width: 1280, height: 900, reducedMotion: true });
    await row(after.page, plain).waitFor();
    expect(await depth(after.page, plain)).toBe('0');
    expect(await depth(after.page, edited)).toBe('0');
    expect(await depth(after.page, nested)).toBe('1');
    expect(after.errors).toEqual([]);
    await after.page.close();
  }, 240_000);
});
