// The built UI in headless Chromium against a real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { SkeinEvent, UsageEvent } from '../../shared/protocol.js';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({ SKEIN_CONTEXT_WINDOW: '4000', SKEIN_COMPACT_THRESHOLD_RATIO: '0.5' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function openPage(path = '/', options: { colorScheme?: 'light' | 'dark'; width?: number } = {}): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: options.width ?? 1200, height: 800 }, colorScheme: options.colorScheme ?? 'light' });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(server.url + path);
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  await page.getByText('connected', { exact: true }).waitFor();
  return { page, errors };
}

async function send(page: Page, text: string) {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

async function sessionId(page: Page): Promise<string> {
  await page.waitForURL(/\/s\/[\w-]+$/);
  return new URL(page.url()).pathname.split('/').pop()!;
}

async function eventsOf(id: string): Promise<SkeinEvent[]> {
  return (await api<{ events: SkeinEvent[] }>(server.url, `/api/sessions/${id}/events`)).body.events;
}

async function waitIdle(page: Page) {
  await page.getByTestId('agent-state').filter({ hasText: 'WaitingForUserInput' }).waitFor();
}

describe('web UI', () => {
  it('chats, moves the gauge, compacts past the threshold and drops the gauge', async () => {
    const { page, errors } = await openPage();
    const id = await sessionId(page);
    const meter = page.getByRole('meter', { name: 'Context window' });

    await send(page, 'echo: hello **skein**');
    await page.locator('skein-agent-message strong', { hasText: 'skein' }).waitFor();
    await waitIdle(page);
    const first = Number(await meter.getAttribute('aria-valuenow'));
    expect(first).toBeGreaterThan(0);
    expect(await meter.getAttribute('aria-valuemax')).toBe('4000');
    const lastUsage = (await eventsOf(id)).filter((e): e is UsageEvent => e.kind === 'usage').at(-1)!;
    expect(first).toBe(lastUsage.gauge.contextTokens);

    await send(page, 'big: 700');
    await page.locator('skein-tool-card').first().waitFor();
    await waitIdle(page);
    const second = Number(await meter.getAttribute('aria-valuenow'));
    expect(second).toBeGreaterThan(first + 500);
    await page.screenshot({ path: screenshotPath('before-compaction') });

    let peak = second;
    for (let i = 0; i < 4 && (await page.locator('skein-compaction-divider').count()) === 0; i++) {
      await send(page, 'big: 700');
      await page.waitForFunction((n) => document.querySelector('skein-app')!.shadowRoot!.querySelector('skein-timeline')!.shadowRoot!.querySelectorAll('skein-tool-card').length >= n, i + 2);
      await waitIdle(page);
      peak = Math.max(peak, ...(await eventsOf(id)).filter((e): e is UsageEvent => e.kind === 'usage' && !e.gauge.estimated).map((u) => u.gauge.contextTokens));
    }
    const divider = page.locator('skein-compaction-divider').filter({ hasText: 'Compacted' });
    await divider.first().waitFor();
    const text = await divider.first().locator('[role=separator]').innerText();
    const compaction = (await eventsOf(id)).find((e) => e.kind === 'compaction' && e.phase === 'finished');
    expect(compaction).toBeDefined();
    if (compaction?.kind !== 'compaction') throw new Error('no compaction');
    expect(text).toContain(`${compaction.tokensBefore!.toLocaleString('en-US')} → ${compaction.tokensAfter!.toLocaleString('en-US')} tokens`);
    const now = Number(await meter.getAttribute('aria-valuenow'));
    expect(now).toBeLessThan(peak);
    expect(peak).toBeGreaterThanOrEqual(2000);
    // Folded messages stay on screen, marked.
    expect(await page.getByText('folded, not seen by the model').count()).toBeGreaterThan(0);
    await page.screenshot({ path: screenshotPath('after-compaction') });

    await send(page, 'echo: still going');
    await page.locator('skein-agent-message', { hasText: 'still going' }).waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('does not run script from model or tool output', async () => {
    const { page } = await openPage();
    await page.getByRole('button', { name: 'New session' }).click();
    await page.getByText('Say something to start').waitFor();
    const payload = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>[link](javascript:window.__pwned=3)';
    await send(page, `echo: ${payload}`);
    await send(page, `bash: echo '${payload.replace(/'/g, '')}'`);
    await page.locator('skein-tool-card').first().waitFor();
    await waitIdle(page);
    await page.locator('skein-agent-message a').first().click().catch(() => undefined);
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    await page.close();
  });

  it('reconnects after a dropped socket with no duplicate and no missing event', async () => {
    const { page } = await openPage();
    const id = await sessionId(page);
    await send(page, 'echo: before drop');
    await waitIdle(page);
    await page.evaluate(() => (document.querySelector('skein-app') as unknown as { dropConnection(): void }).dropConnection());
    await api(server.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: while away' } });
    await page.getByText('connected', { exact: true }).waitFor();
    await page.locator('skein-agent-message', { hasText: 'while away' }).waitFor();
    await send(page, 'echo: after drop');
    await page.locator('skein-agent-message', { hasText: 'after drop' }).waitFor();
    await waitIdle(page);
    const all = await eventsOf(id);
    const users = all.filter((e) => e.kind === 'user').length;
    const agents = all.filter((e) => e.kind === 'agent' && e.text.trim() !== '').length;
    expect(await page.locator('skein-user-message').count()).toBe(users);
    expect(await page.locator('skein-agent-message').count()).toBe(agents);
    await page.close();
  });

  it('opens a session by deep link and takes screenshots in light and dark, desktop and phone', async () => {
    const { body } = await api<{ sessions: { id: string }[] }>(server.url, '/api/sessions');
    const id = body.sessions.at(-1)!.id; // the oldest: the compaction session
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const [label, width] of [['desktop', 1280], ['phone', 390]] as const) {
        const { page } = await openPage(`/s/${id}`, { colorScheme, width });
        await page.locator('skein-compaction-divider').first().waitFor();
        expect(page.url()).toContain(`/s/${id}`);
        await page.screenshot({ path: screenshotPath(`${colorScheme}-${label}`) });
        await page.close();
      }
    }
  });
});
