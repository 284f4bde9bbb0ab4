// Two tabs on one session (issue 39: a phone and a desktop): what one changes,
// the other shows within moments, without a reload: the approval mode (even
// when this tab's own picker was used before), the model, and an approval
// answered elsewhere. A mode has one name everywhere: its id.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { SessionSnapshot } from '../../shared/protocol.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { launchBrowser } from '../helpers/browser.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { newSession, openPage, send } from '../helpers/ui.js';

let fake: OpenAIFake;
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  fake = await startOpenAIFake({ models: ['gpt-4.1'] });
  server = await startTestServer({ OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: fake.key!, SKEIN_APPROVAL: 'never' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await fake?.close();
});

/** What another tab does shows here within this (generous on a loaded machine; it is about one socket frame). */
const SOON = { timeout: 5_000 };
const snapshot = async (id: string) => (await api<SessionSnapshot>(server.url, `/api/sessions/${id}`)).body;

describe('two tabs on one session', () => {
  it('the mode, the model and approvals follow the server in both', async () => {
    const desk = await openPage(browser, server.url, '/', { width: 1280 });
    const id = await newSession(desk.page);
    const phone = await openPage(browser, server.url, `/s/${id}`, { width: 390, height: 800 });
    const deskMode = desk.page.getByRole('combobox', { name: 'Approval mode' });
    const phoneMode = phone.page.getByRole('combobox', { name: 'Approval mode' });

    // The desk picks with its own picker; the phone then switches twice, back to what the desk had picked.
    for (const [tab, mode] of [[desk.page, 'always'], [phone.page, 'never'], [phone.page, 'always']] as const) {
      await tab.getByRole('combobox', { name: 'Approval mode' }).selectOption(mode);
      await expect.poll(async () => (await snapshot(id)).mode).toBe(mode);
      await expect.poll(() => deskMode.inputValue(), SOON).toBe(mode);
      await expect.poll(() => phoneMode.inputValue(), SOON).toBe(mode);
    }
    // One name per mode: the picker shows the ids /mode and the docs use.
    expect(await deskMode.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(['plan', 'always', 'on-write', 'never']);
    for (const text of await deskMode.locator('option').allInnerTexts()) expect(text).toMatch(/^(plan|always|on-write|never) · /);
    expect((await deskMode.locator('option').allInnerTexts()).join(' ')).not.toMatch(/Auto/);

    // The model: switched on the phone, shown on the desk.
    const deskModel = desk.page.getByRole('combobox', { name: 'Model' });
    expect(await deskModel.inputValue()).toBe('openai:gpt-4.1');
    await phone.page.getByRole('combobox', { name: 'Model' }).selectOption('predictable');
    await expect.poll(async () => (await snapshot(id)).model).toBe('predictable');
    await expect.poll(() => deskModel.inputValue(), SOON).toBe('predictable');

    // An approval: asked on both, answered on the phone, gone from the desk with the answer.
    await send(desk.page, 'tool: write_file {"path":"two-tabs.txt","content":"approved on the phone"}');
    await phone.page.locator('skein-approval-card').waitFor({ timeout: 30_000 });
    await desk.page.locator('skein-approval-card').waitFor({ timeout: 30_000 });
    await phone.page.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect.poll(() => desk.page.locator('skein-approval-card').count(), SOON).toBe(0);
    await expect.poll(() => desk.page.getByTestId('approval-decision').first().textContent(), SOON).toContain('Approved');
    const file = path.join(server.workDir, 'two-tabs.txt');
    await expect.poll(() => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined)).toBe('approved on the phone');

    expect(desk.errors).toEqual([]);
    expect(phone.errors).toEqual([]);
    await phone.page.close();
    await desk.page.close();
  }, 120_000);
});
