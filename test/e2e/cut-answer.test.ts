// A cut answer in the browser (issue 38, defect 2): the text so far stays on
// screen, and right under it a notice says it was cut and why; the
// continuation follows. Against the Anthropic fake, which stops an answer at
// max_tokens with stop_reason "max_tokens" as the API does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { AnswerCutEvent } from '../../shared/protocol.js';
import { PREDICTABLE_CONTINUED } from '../../server/llm/predictable.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic-fake.js';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { converse, newSession, openPage } from '../helpers/ui.js';

let fake: AnthropicFake;
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  fake = await startAnthropicFake();
  // A 4,000-token window asks for at most 1,000 tokens of answer: the echo below is longer.
  server = await startTestServer({ SKEIN_MODEL: 'claude-haiku-4-5', ANTHROPIC_API_KEY: fake.key, ANTHROPIC_BASE_URL: fake.url, SKEIN_CONTEXT_WINDOW: '4000' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await fake?.close();
});

const LONG = Array.from({ length: 600 }, (_, i) => `word${i % 50}`).join(' ');

describe('a cut answer in the UI', () => {
  it('shows the text so far, then a notice naming the cut (max_tokens N), then the continuation', async () => {
    const { page, errors } = await openPage(browser, server.url);
    await newSession(page);
    const events = await converse(page, server.url, `echo: ${LONG}`);
    const cut = events.find((e): e is AnswerCutEvent => e.kind === 'answer_cut' && !e.again)!;
    expect(cut.message).toContain(`reached its max_tokens limit of ${cut.maxTokens.toLocaleString('en-US')}`);
    // One notice, with the event's words, even when the note was sent again after a fold.
    const notices = page.locator('.notice.cut');
    await expect.poll(() => notices.count()).toBe(1);
    expect((await notices.first().textContent())!.trim()).toBe(`✂ ${cut.message}`);
    // In order: the cut answer, the notice, the continuation.
    const order = await page.evaluate(() => {
      const root = document.querySelector('skein-app')!.shadowRoot!.querySelector('skein-timeline')!.shadowRoot!;
      return [...root.querySelectorAll('skein-agent-message, .notice.cut')].map((el) => (el.matches('.notice') ? 'cut' : 'agent'));
    });
    expect(order.slice(-3)).toEqual(['agent', 'cut', 'agent']);
    await expect.poll(() => page.locator('skein-agent-message', { hasText: PREDICTABLE_CONTINUED }).count()).toBe(1);
    expect(errors).toEqual([]);
  });
});
