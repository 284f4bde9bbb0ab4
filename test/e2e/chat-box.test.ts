// The chat box in headless Chromium: keys, history, Cancel, and what it does
// while the connection is down.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, WebSocketRoute } from 'playwright-core';
import { authHeaders, withToken } from '../helpers/auth.js';
import { launchBrowser } from '../helpers/browser.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { converse, eventsOf, newSession, openPage, sessionId, waitForEvents, waitIdle } from '../helpers/ui.js';

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

describe('chat box', () => {
  it('Enter sends, Shift+Enter is a newline, the up arrow recalls, Escape cancels the agent', async () => {
    const { page, errors } = await openPage(browser, server.url);
    const id = await newSession(page);
    const box = page.getByRole('textbox', { name: 'Message' });

    // The empty timeline offers examples; one click puts it in the box.
    await page.getByRole('button', { name: 'bash: ls -la' }).click();
    expect(await box.inputValue()).toBe('bash: ls -la');
    await box.fill('');

    await box.pressSequentially('echo: line one');
    await box.press('Shift+Enter');
    await box.pressSequentially('line two');
    expect(await box.inputValue()).toBe('echo: line one\nline two');
    expect((await eventsOf(server.url, id)).filter((e) => e.kind === 'user')).toHaveLength(0);
    await box.press('Enter');
    await page.locator('skein-agent-message', { hasText: 'line two' }).waitFor();
    await waitIdle(page);
    expect(await box.inputValue()).toBe('');
    const users = (await eventsOf(server.url, id)).filter((e) => e.kind === 'user');
    expect(users.map((e) => e.kind === 'user' && e.text)).toEqual(['echo: line one\nline two']);

    await box.press('ArrowUp');
    expect(await box.inputValue()).toBe('echo: line one\nline two');
    await box.fill('');

    // While the agent works: a Cancel button, and Escape does the same.
    await box.fill('delay: 30000');
    await box.press('Enter');
    await page.getByRole('button', { name: 'Cancel' }).waitFor();
    await page.getByTestId('agent-state').filter({ hasText: 'SendingToLLM' }).waitFor();
    await box.press('Escape');
    await page.locator('.notice.cancel').first().waitFor();
    await waitIdle(page);
    const events = await eventsOf(server.url, id);
    expect(events.some((e) => e.kind === 'state' && e.to === 'Cancelled')).toBe(true);
    expect(await page.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('follows new messages at the bottom, stays put when scrolled up, and jumps back to the latest', async () => {
    const { page, errors } = await openPage(browser, server.url, '/', { height: 600 });
    const id = await newSession(page);
    const timeline = page.locator('skein-timeline');
    const scroll = () => timeline.evaluate((t) => ({ top: t.scrollTop, bottom: t.scrollHeight - t.scrollTop - t.clientHeight }));
    for (const text of ['big: 150', 'big: 150', 'echo: third']) {
      await converse(page, server.url, text);
    }
    await expect.poll(async () => (await scroll()).bottom, { timeout: 15_000 }).toBeLessThan(2);

    // Layout, not the reader, moves scrollTop up (content that shrank, then grew back before the
    // resize observer ran, reads exactly like this in the scroll event): it keeps following.
    await timeline.evaluate((t) => {
      t.scrollTop -= 300;
    });
    await expect.poll(async () => (await scroll()).bottom, { timeout: 15_000 }).toBeLessThan(2);
    expect(await page.getByRole('button', { name: /Jump to latest/ }).count()).toBe(0);
    await converse(page, server.url, 'big: 120');
    await expect.poll(async () => (await scroll()).bottom, { timeout: 15_000 }).toBeLessThan(2);

    // The reader's own wheel does leave the bottom.
    await timeline.hover();
    await page.mouse.wheel(0, -400);
    await page.waitForFunction(() => document.querySelector('skein-app')!.shadowRoot!.querySelector('skein-timeline')!.shadowRoot!.querySelector('.jump'));
    const before = (await scroll()).top;
    await api(server.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: arrived while you read' } });
    await waitForEvents(server.url, id, (es) => es.some((e) => e.kind === 'agent' && e.text === 'arrived while you read'));
    const jump = page.getByRole('button', { name: /new · Jump to latest/ });
    await jump.waitFor();
    expect((await scroll()).top).toBe(before); // what you were reading did not move
    await jump.click();
    await page.locator('skein-agent-message', { hasText: 'arrived while you read' }).waitFor();
    expect((await scroll()).bottom).toBeLessThan(2);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('is off with a reason while disconnected, and resumes without a gap when the server is back', async () => {
    const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
    let blocked = false;
    const sockets: WebSocketRoute[] = [];
    // Every socket goes through here, so the test can cut the network and refuse reconnects.
    await page.routeWebSocket(/\/ws\?/, (ws) => {
      if (blocked) return ws.close();
      ws.connectToServer();
      sockets.push(ws);
    });
    await page.goto(withToken(server.url));
    await page.getByText('connected', { exact: true }).waitFor();
    const id = await sessionId(page);
    const box = page.getByRole('textbox', { name: 'Message' });

    blocked = true;
    await sockets.at(-1)!.close(); // the server side goes away
    await page.getByText('offline, retrying…').waitFor();
    expect(await box.isDisabled()).toBe(true);
    await page.getByText(/Offline: reconnecting/).waitFor();

    // Something happens while the page is away...
    await fetch(`${server.url}/api/sessions/${id}/messages`, { method: 'POST', headers: { 'content-type': 'application/json', ...authHeaders(server.url) }, body: JSON.stringify({ text: 'echo: missed it' }) });
    blocked = false;
    await page.getByText('connected', { exact: true }).waitFor({ timeout: 15_000 });
    expect(await box.isDisabled()).toBe(false);
    // ...and arrives once it is back, exactly once.
    await page.locator('skein-agent-message', { hasText: 'missed it' }).waitFor();
    await waitIdle(page);
    const held = await page.evaluate(() => (document.querySelector('skein-app') as unknown as { eventSeqs(): number[] }).eventSeqs());
    expect(held).toEqual((await eventsOf(server.url, id)).map((e) => e.seq));
    await page.close();
  });
});
