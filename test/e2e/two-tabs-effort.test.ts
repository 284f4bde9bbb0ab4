// Two tabs on one session of a reasoning model (issue 39: live state
// everywhere): the effort one tab picks shows in the other within moments,
// without a reload, both ways, as the mode and the model do (two-tabs.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { SessionSnapshot } from '../../shared/protocol.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic-fake.js';
import { launchBrowser } from '../helpers/browser.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { newSession, openPage } from '../helpers/ui.js';

let fake: AnthropicFake;
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  fake = await startAnthropicFake();
  server = await startTestServer({ SKEIN_MODEL: 'claude-sonnet-5-5', ANTHROPIC_API_KEY: fake.key, ANTHROPIC_BASE_URL: fake.url });
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

describe('two tabs on one session: the reasoning effort', () => {
  it('an effort picked in one tab shows in the other, both ways', async () => {
    const desk = await openPage(browser, server.url, '/', { width: 1280 });
    const id = await newSession(desk.page);
    const phone = await openPage(browser, server.url, `/s/${id}`, { width: 390, height: 800 });
    const deskEffort = desk.page.getByRole('combobox', { name: 'Reasoning effort' });
    const phoneEffort = phone.page.getByRole('combobox', { name: 'Reasoning effort' });
    await expect.poll(() => phoneEffort.inputValue(), SOON).toBe('default');
    expect(await deskEffort.inputValue()).toBe('default');

    for (const [tab, effort] of [[desk.page, 'low'], [phone.page, 'high'], [desk.page, 'medium']] as const) {
      await tab.getByRole('combobox', { name: 'Reasoning effort' }).selectOption(effort);
      await expect.poll(async () => (await snapshot(id)).effort).toBe(effort);
      await expect.poll(() => deskEffort.inputValue(), SOON).toBe(effort);
      await expect.poll(() => phoneEffort.inputValue(), SOON).toBe(effort);
    }

    expect(desk.errors).toEqual([]);
    expect(phone.errors).toEqual([]);
    await phone.page.close();
    await desk.page.close();
  }, 120_000);
});
