// Approval modes in the page (issue 25): the mode picker beside the message
// box switches the open session to plan mode, a write the agent then asks for
// is refused with the reason on its card and nothing is written; `/mode`
// completes its argument (`/mode p` → `/mode plan`) and switches; an unknown
// mode gets the list of modes. Another session keeps its own mode.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { SessionSnapshot } from '../../shared/protocol.js';
import { launchBrowser } from '../helpers/browser.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { contrastViolations, converse, newSession, openPage, send } from '../helpers/ui.js';
import { screenshotPath } from '../helpers/browser.js';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({ SKEIN_APPROVAL: 'never' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const modeOf = async (id: string) => (await api<SessionSnapshot>(server.url, `/api/sessions/${id}`)).body.mode;

describe('approval modes in the page', () => {
  it('the picker switches to plan; a write is refused with the reason on its card; the timeline notes the switch (dark theme, AA contrast)', async () => {
    const { page, errors } = await openPage(browser, server.url, '/', { colorScheme: 'dark', width: 1280, height: 800, reducedMotion: true });
    const other = await newSession(page);
    const id = await newSession(page);
    const picker = page.getByRole('combobox', { name: 'Approval mode' });
    await expect.poll(() => picker.inputValue()).toBe('never');
    await picker.selectOption('plan');
    await expect.poll(() => modeOf(id)).toBe('plan');
    await page.getByText('Approval mode switched from never to plan (read-only).').waitFor();
    expect(await modeOf(other)).toBe('never');

    await converse(page, server.url, 'tool: write_file {"path":"planned.txt","content":"must not be written"}');
    await page.locator('skein-tool-card', { hasText: 'refused: this session is in plan mode (read-only), so write_file was not run' }).waitFor();
    expect(fs.existsSync(path.join(server.workDir, 'planned.txt'))).toBe(false);
    expect(await contrastViolations(page)).toEqual([]);
    fs.mkdirSync('test/e2e/screenshots', { recursive: true });
    await page.screenshot({ path: screenshotPath('plan-mode') });
    fs.copyFileSync(screenshotPath('plan-mode'), 'test/e2e/screenshots/plan-mode.png');

    // always: the write waits on its card; switching to never while it waits approves it, and it runs.
    await picker.selectOption('always');
    await expect.poll(() => modeOf(id)).toBe('always');
    await send(page, 'tool: write_file {"path":"planned.txt","content":"now written"}');
    await page.locator('skein-approval-card').waitFor();
    expect(await contrastViolations(page)).toEqual([]);
    await picker.selectOption('never');
    await expect.poll(() => page.getByTestId('approval-decision').first().textContent()).toContain('Approved: the session switched to never mode');
    // Polled whole: the file exists a moment before its bytes are in it.
    const planned = path.join(server.workDir, 'planned.txt');
    await expect.poll(() => (fs.existsSync(planned) ? fs.readFileSync(planned, 'utf8') : undefined)).toBe('now written');
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('/mode completes its argument and switches; an unknown mode lists the modes', async () => {
    const { page, errors } = await openPage(browser, server.url);
    const id = await newSession(page);
    const box = page.getByRole('textbox', { name: 'Message' });
    const options = page.getByRole('listbox', { name: 'Commands' }).getByRole('option');

    await box.fill('/mod');
    expect(await options.locator('code').allTextContents()).toEqual(['/model', '/mode']);
    await box.fill('/mode ');
    expect(await options.locator('code').allTextContents()).toEqual(['never', 'on-write', 'always', 'plan']);
    await box.fill('/mode p');
    expect(await options.locator('code').allTextContents()).toEqual(['plan']);
    expect(await contrastViolations(page)).toEqual([]);
    await box.press('Tab');
    expect(await box.inputValue()).toBe('/mode plan');
    await box.press('Enter');
    await expect.poll(() => modeOf(id)).toBe('plan');
    const info = page.getByTestId('command-info');
    await expect.poll(() => info.textContent()).toContain('Approval mode: plan · read-only.');
    await expect.poll(() => page.getByRole('combobox', { name: 'Approval mode' }).inputValue()).toBe('plan');
    expect(await contrastViolations(page)).toEqual([]);
    // Not a message: the model never saw it.
    expect((await api<{ events: { kind: string }[] }>(server.url, `/api/sessions/${id}/events`)).body.events.some((e) => e.kind === 'user')).toBe(false);

    await send(page, '/mode yolo');
    await expect.poll(() => info.textContent()).toMatch(/No mode yolo\. \/mode <name> switches this session's approval mode:[\s\S]*plan · read-only: [\s\S]*never · never ask: /);
    expect(await modeOf(id)).toBe('plan');
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);
});
