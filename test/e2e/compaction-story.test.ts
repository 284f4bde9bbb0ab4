// The compaction story and streaming, against a real server whose model is
// the local OpenAI-compatible fake (test/fakes): it streams answers as delta
// frames, can fail on demand (for retries), and can be slow to summarise, which
// holds a compaction open long enough to watch the live row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { CompactionEvent, ViewMessage } from '../../shared/protocol.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { withToken } from '../helpers/auth.js';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { converse, eventsOf, lastUsage, openPage, send, sessionId, waitForEvents, waitIdle } from '../helpers/ui.js';

let fake: OpenAIFake;
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  fake = await startOpenAIFake({ models: ['gpt-4.1'] });
  server = await startTestServer({ OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: fake.key!, SKEIN_RETRY_BASE_MS: '50' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await fake?.close();
});

describe('compaction story', () => {
  it('/compact focus from the chat box: a live row while the summariser works, then a divider with the right numbers', async () => {
    const { page, errors } = await openPage(browser, server.url);
    const id = await sessionId(page);
    for (const text of ['bash: ls', 'big: 300', 'echo: first answer', 'big: 300', 'echo: second answer', 'bash: echo done']) {
      await converse(page, server.url, text);
    }
    fake.summaryDelayMs = 2500; // a slow summariser holds the compaction open

    // Typing "/" offers the command; Tab completes it.
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('/');
    await page.getByRole('option', { name: /\/compact/ }).waitFor();
    await box.press('Tab');
    expect(await box.inputValue()).toBe('/compact ');
    await box.pressSequentially('keep the file list');
    await box.press('Enter');

    const live = page.getByTestId('compacting');
    await live.waitFor();
    const liveText = await live.innerText();
    expect(liveText).toContain('Compacting…');
    expect(liveText).toContain('you asked for it');
    expect(liveText).toContain('keep the file list');
    await page.getByTestId('agent-state').filter({ hasText: 'Compacting' }).waitFor();
    await page.screenshot({ path: screenshotPath('compacting-live') });

    // It becomes a divider with the numbers of the finished event.
    const events = await waitForEvents(server.url, id, (es) => es.some((e) => e.kind === 'compaction' && e.phase === 'finished'));
    fake.summaryDelayMs = 0;
    const done = events.find((e): e is CompactionEvent => e.kind === 'compaction' && e.phase === 'finished')!;
    expect(done.trigger).toBe('manual');
    expect(done.instructions).toBe('keep the file list');
    expect(done.strategy).not.toBe('none');
    const separator = page.locator('skein-compaction-divider [role=separator]');
    await separator.waitFor();
    expect(await separator.innerText()).toContain(`${done.tokensBefore!.toLocaleString('en-US')} → ${done.tokensAfter!.toLocaleString('en-US')} tokens`);
    expect(await live.count()).toBe(0);
    const divider = page.locator('skein-compaction-divider');
    expect(await divider.locator(".facts").innerText()).toContain(`${(done.messagesBefore ?? 0) - (done.messagesAfter ?? 0)} messages folded`);
    await waitIdle(page);

    // The summary and the ledger open; the folded messages are marked.
    await divider.getByText('Summary the model sees now').click();
    await divider.locator('.markdown').getByText(done.summary!.split('\n').find((l) => /^#+ /.test(l))!.replace(/^#+ /, '')).first().waitFor();
    await divider.getByText(/^Ledger:/).click();
    await divider.getByText('big: 300').first().waitFor();
    expect(await page.getByText('folded, not seen by the model').count()).toBeGreaterThan(0);
    await page.screenshot({ path: screenshotPath('compaction-divider') });

    // "What the model sees" is the server's view, summary in place of the folded span.
    const view = (await api<{ messages: ViewMessage[]; tokens: number }>(server.url, `/api/sessions/${id}/view`)).body;
    await page.getByRole('button', { name: 'What the model sees' }).click();
    const head = page.getByTestId('view-head');
    await head.waitFor();
    expect(await head.innerText()).toContain(`${view.messages.length} messages, about ${view.tokens.toLocaleString('en-US')} tokens`);
    expect(await page.locator('skein-model-view article.summary').count()).toBe(1);
    expect(await page.locator('skein-model-view article').count()).toBe(view.messages.length);
    await page.screenshot({ path: screenshotPath('model-view') });
    await page.getByRole('button', { name: 'Back to timeline' }).click();
    await separator.waitFor();
    // Back where the reader was: at the end, following.
    await page.waitForFunction(() => {
      const t = document.querySelector('skein-app')!.shadowRoot!.querySelector('skein-timeline')!;
      return t.scrollHeight - t.scrollTop - t.clientHeight < 2;
    });
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000); // six turns and a slow summariser: well over 30 s on a loaded 2-core machine

  it('streams the answer as it arrives, shows a retry, and switches the model', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    page.setDefaultTimeout(12_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // Frames pass through the test in order; after each delta it waits a little, so
    // the streamed text is on screen part-way whatever the machine's speed.
    await page.routeWebSocket(/\/ws\?/, (ws) => {
      const server = ws.connectToServer();
      let chain = Promise.resolve();
      server.onMessage((m) => {
        chain = chain.then(async () => {
          ws.send(m);
          if (String(m).startsWith('{"type":"delta"')) await new Promise((r) => setTimeout(r, 40));
        });
      });
    });
    await page.goto(withToken(server.url));
    await page.getByText('connected', { exact: true }).waitFor();
    await page.getByRole('button', { name: '+ New session' }).click();
    await page.getByText('Say something to start').waitFor();
    const id = await sessionId(page);
    // Record, every frame, the streamed text the timeline shows before the answer lands.
    await page.evaluate(() => {
      const w = window as unknown as { streamed: string[]; shift: number };
      w.streamed = [];
      w.shift = 0;
      // Layout shifts (content moving without a scroll or input) while the answer streams in.
      new PerformanceObserver((list) => {
        for (const e of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) if (!e.hadRecentInput) w.shift += e.value;
      }).observe({ type: 'layout-shift' });
      const timeline = document.querySelector('skein-app')!.shadowRoot!.querySelector('skein-timeline')!;
      const look = () => {
        const text = timeline.shadowRoot!.querySelector('skein-agent-message[streaming]')?.shadowRoot?.querySelector('.markdown')?.textContent;
        if (text && text !== w.streamed.at(-1)) w.streamed.push(text);
        requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
    fake.failures.next(503);
    const long = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    await converse(page, server.url, `echo: ${long}`);
    await page.locator('skein-agent-message:not([streaming])', { hasText: 'word29' }).waitFor();
    const { streamed, shift } = await page.evaluate(() => {
      const w = window as unknown as { streamed: string[]; shift: number };
      return { streamed: w.streamed, shift: w.shift };
    });
    expect(shift).toBeLessThan(0.01); // no layout shift worth the name while text streams in
    expect(streamed.length).toBeGreaterThan(0);
    expect(streamed.some((t) => t.includes('word0') && !t.includes('word29'))).toBe(true); // seen part-way
    expect(await page.locator('skein-agent-message[streaming]').count()).toBe(0);
    expect(await page.locator('skein-agent-message', { hasText: 'word29' }).count()).toBe(1);
    // The 503 was retried, and the timeline said so.
    const events = await eventsOf(server.url, id);
    const retry = events.find((e) => e.kind === 'error' && e.code === 'retrying');
    expect(retry).toBeDefined();
    await page.locator('.notice.retry').first().waitFor();

    // Switch to the offline model; it applies before the next request, with a line in the timeline.
    const picker = page.getByRole('combobox', { name: 'Model' });
    expect(await picker.locator('option').allInnerTexts()).toEqual(expect.arrayContaining([expect.stringContaining('predictable'), expect.stringContaining('openai:gpt-4.1')]));
    await picker.selectOption('predictable');
    await converse(page, server.url, 'echo: on the small model');
    await page.locator('skein-agent-message', { hasText: 'on the small model' }).waitFor();
    await page.getByText(/Model switched from openai:gpt-4.1 to predictable/).waitFor();
    const usage = lastUsage(await eventsOf(server.url, id))!;
    expect(usage.gauge.model).toBe('predictable');
    expect(await page.getByRole('meter', { name: 'Context window' }).getAttribute('aria-valuemax')).toBe(String(usage.gauge.contextWindow));
    expect(errors).toEqual([]);
    await page.close();
  });
});
