// A reasoning model in the browser: the collapsed Thinking section above the
// answer ("redacted" when encrypted) and the effort selector beside the model picker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic-fake.js';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { converse, eventsOf, newSession, openPage, waitForEvents } from '../helpers/ui.js';

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

describe('thinking in the UI', () => {
  it('shows each answer\'s thinking collapsed above it, "redacted" when encrypted, and sets the effort per session', async () => {
    const { page, errors } = await openPage(browser, server.url);
    const id = await newSession(page);
    await converse(page, server.url, 'echo: first');
    await converse(page, server.url, 'echo: second');
    await converse(page, server.url, 'echo: third');
    const sections = page.locator('skein-agent-message details.thinking');
    expect(await sections.count()).toBe(3);
    // Collapsed until opened; then the readable thinking.
    const first = sections.first();
    expect(await first.getAttribute('open')).toBeNull();
    expect(await first.locator('.text').isVisible()).toBe(false);
    await first.locator('summary').click();
    expect(await first.locator('.text').textContent()).toContain('Thinking about "echo: first"');
    // The fake's third answer has a redacted block beside the readable one.
    expect(await sections.nth(2).locator('summary').textContent()).toContain('partly redacted');
    // The thinking is not part of the answer.
    expect(await page.locator('skein-agent-message .body', { hasText: 'Thinking about' }).count()).toBe(0);

    const effort = page.getByRole('combobox', { name: 'Reasoning effort' });
    expect(await effort.inputValue()).toBe('default');
    await effort.selectOption('low');
    await waitForEvents(server.url, id, (es) => es.some((e) => e.kind === 'model' && e.effort === 'low'));
    await converse(page, server.url, 'echo: easy');
    expect(fake.requests.at(-1).output_config).toEqual({ effort: 'low' });
    expect((await eventsOf(server.url, id)).filter((e) => e.kind === 'error')).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('offers the efforts the provider says the model has (its Models API), not the model table\'s, also after a reload', async () => {
    const advertising = await startAnthropicFake({ modelInfo: 'advertise' });
    const on = { supported: true };
    const off = { supported: false };
    // Adaptive thinking with two effort levels: the table lists none, low, medium, high and max for this model.
    advertising.advertise('claude-sonnet-5-5', {
      thinking: { supported: true, types: { adaptive: on, enabled: off, disabled: on, between_tools: off } },
      effort: { supported: true, low: on, medium: off, high: on, max: off, xhigh: off },
    });
    const own = await startTestServer({ SKEIN_MODEL: 'claude-sonnet-5-5', ANTHROPIC_API_KEY: advertising.key, ANTHROPIC_BASE_URL: advertising.url });
    try {
      const { page, errors } = await openPage(browser, own.url);
      const id = await newSession(page);
      const options = () => page.getByRole('combobox', { name: 'Reasoning effort' }).locator('option').allTextContents();
      await expect.poll(options).toContain('effort: max'); // the table's, before the provider was asked
      await converse(page, own.url, 'echo: ask first');
      await expect.poll(options).toEqual(['effort: default', 'effort: none', 'effort: low', 'effort: high']);
      await page.reload();
      await page.locator('skein-agent-message', { hasText: 'ask first' }).waitFor();
      await expect.poll(options).toEqual(['effort: default', 'effort: none', 'effort: low', 'effort: high']);
      expect((await eventsOf(own.url, id)).filter((e) => e.kind === 'error')).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await own.close();
      await advertising.close();
    }
  });
});
