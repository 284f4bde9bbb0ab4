// The built UI in headless Chromium against a real server: chat, the gauge
// and sparkline against the log, a threshold compaction, hostile output,
// reconnecting, and screenshots.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { CompactionEvent } from '../../shared/protocol.js';
import { withToken } from '../helpers/auth.js';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { axeViolations, converse, eventsOf, lastUsage, newSession, openPage, requestUsages, send, sessionId, waitIdle } from '../helpers/ui.js';

let server: TestServer;
let browser: Browser;
let compactedSession = '';

beforeAll(async () => {
  server = await startTestServer({ SKEIN_CONTEXT_WINDOW: '4000', SKEIN_COMPACT_THRESHOLD_RATIO: '0.5' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('web UI', () => {
  it('renders markdown with highlighted code, follows the log in the gauge and sparkline, and compacts', async () => {
    const { page, errors } = await openPage(browser, server.url);
    const id = await sessionId(page);
    compactedSession = id;
    const meter = page.getByRole('meter', { name: 'Context window' });
    const spark = page.locator('skein-sparkline [data-points]');

    await converse(page, server.url, 'echo: hello **skein**\n\n```ts\nconst answer: number = 42;\n```');
    await page.locator('skein-agent-message strong', { hasText: 'skein' }).waitFor();
    await page.locator('skein-agent-message .hljs-keyword', { hasText: 'const' }).waitFor();
    let events = await eventsOf(server.url, id);
    let usage = lastUsage(events)!.gauge;
    // The gauge says exactly what the last usage event says, to people and to screen readers.
    expect(Number(await meter.getAttribute('aria-valuenow'))).toBe(usage.contextTokens);
    expect(Number(await meter.getAttribute('aria-valuemax'))).toBe(usage.contextWindow);
    const valueText = (await meter.getAttribute('aria-valuetext'))!;
    expect(valueText).toContain(`${usage.contextTokens.toLocaleString('en-US')} of ${usage.contextWindow.toLocaleString('en-US')} tokens`);
    expect(valueText).toContain(`${(usage.cacheRead ?? 0).toLocaleString('en-US')} cache read`);
    expect(valueText).toMatch(/\d+% until auto-compact/);
    expect(Number(await spark.getAttribute('data-points'))).toBe(requestUsages(events).length);

    // Fill the context until the server compacts; the sparkline gains a point per request.
    let compaction: CompactionEvent | undefined;
    for (let i = 0; i < 6 && !compaction; i++) {
      events = await converse(page, server.url, 'big: 700');
      compaction = events.find((e): e is CompactionEvent => e.kind === 'compaction' && e.phase === 'finished');
      expect(Number(await spark.getAttribute('data-points'))).toBe(requestUsages(events).length);
    }
    expect(compaction).toBeDefined();
    const divider = page.locator('skein-compaction-divider [role=separator]');
    await divider.first().waitFor();
    expect(await divider.first().innerText()).toContain(`${compaction!.tokensBefore!.toLocaleString('en-US')} → ${compaction!.tokensAfter!.toLocaleString('en-US')} tokens`);
    expect(compaction!.tokensAfter!).toBeLessThan(compaction!.tokensBefore!);
    // The drop is marked on the sparkline, and the gauge still equals the last usage event.
    const finished = events.filter((e) => e.kind === 'compaction' && e.phase === 'finished').length;
    expect(Number(await spark.getAttribute('data-marks'))).toBe(finished);
    expect(await page.locator('skein-sparkline button.mark').count()).toBe(finished);
    usage = lastUsage(events)!.gauge;
    expect(Number(await meter.getAttribute('aria-valuenow'))).toBe(usage.contextTokens);
    // Exact numbers and cost on hover, and on keyboard focus.
    const card = page.locator('skein-token-gauge .card');
    await page.locator('skein-token-gauge .wrap').hover();
    await card.waitFor();
    expect(await card.innerText()).toContain(usage.contextTokens.toLocaleString('en-US'));
    expect(await card.innerText()).toContain('Session cost');
    await page.mouse.move(0, 0);
    await card.waitFor({ state: 'hidden' });
    await page.locator('skein-token-gauge .wrap').focus();
    await card.waitFor();
    // Folded messages stay on screen, marked.
    expect(await page.getByText('folded, not seen by the model').count()).toBeGreaterThan(0);
    await page.screenshot({ path: screenshotPath('after-compaction') });

    await send(page, 'echo: still going');
    await page.locator('skein-agent-message', { hasText: 'still going' }).waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('runs no script from model output, tool output or user text', async () => {
    const { page, errors } = await openPage(browser, server.url);
    const id = await newSession(page);
    const hostile = [
      '<img src=x onerror="window.__pwned=1">',
      '<script>window.__pwned=2</script>',
      '[click me](javascript:window.__pwned=3)',
      '```',
      '</code></pre><svg onload="window.__pwned=4"><circle r="9"/></svg>',
      '<iframe srcdoc="<script>parent.__pwned=5</script>"></iframe>',
      '<a href="javascript:window.__pwned=6" id="evil">evil link</a>',
      '<details open ontoggle="window.__pwned=7">x</details>',
      '<form><button formaction="javascript:window.__pwned=8">go</button></form>',
      '<style>body{display:none}</style>',
    ].join('\n');
    fs.writeFileSync(path.join(server.workDir, 'hostile.md'), hostile);
    await converse(page, server.url, `echo: ${hostile}`); // straight into the markdown renderer
    await converse(page, server.url, 'read: hostile.md'); // a tool result, then the model quoting it
    await page.locator('skein-tool-card').first().waitFor();
    const events = await eventsOf(server.url, id);
    expect(events.some((e) => e.kind === 'tool_result' && e.output.includes('onerror'))).toBe(true);
    // The tool output is shown as text, literally.
    await page.locator('skein-tool-card pre', { hasText: '<img src=x onerror=' }).first().waitFor();
    // Nothing executable made it into the DOM, and clicking the links runs nothing.
    const found = await page.evaluate(() => {
      const bad: string[] = [];
      const walk = (root: Document | ShadowRoot) => {
        for (const el of root.querySelectorAll('*')) {
          if (['SCRIPT', 'IFRAME', 'FORM', 'svg', 'STYLE'].includes(el.tagName) && el.closest('.markdown')) bad.push(el.tagName);
          for (const a of el.getAttributeNames()) if (a.startsWith('on')) bad.push(`${el.tagName}[${a}]`);
          const href = el.getAttribute('href');
          if (href && /^\s*javascript:/i.test(href)) bad.push(`href=${href}`);
          if (el.shadowRoot) walk(el.shadowRoot);
        }
      };
      walk(document);
      return bad;
    });
    expect(found).toEqual([]);
    for (const link of await page.locator('skein-agent-message .markdown a').all()) await link.click({ timeout: 2000 }).catch(() => undefined);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 100))));
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('skein-app').isVisible()).toBe(true); // the <style> did not hide the page
    // The sanitiser parses the hostile markup in an inert document; Chromium's CSP reports its
    // handlers and <style> as blocked there. That is the second line working, not a page error.
    expect(errors.filter((e) => !/violates the following Content Security Policy directive '(script-src|style-src) 'self''.*has been blocked/s.test(e))).toEqual([]);
    await page.close();
  });

  it('reconnects after a dropped socket from the last seq, with no duplicate and no missing event', async () => {
    const { page } = await openPage(browser, server.url);
    const id = await newSession(page);
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    await converse(page, server.url, 'echo: before drop');
    const seenBefore = (await eventsOf(server.url, id)).length;
    await page.evaluate(() => (document.querySelector('skein-app') as unknown as { dropConnection(): void }).dropConnection());
    await api(server.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: while away' } });
    await page.getByText('connected', { exact: true }).waitFor();
    await page.locator('skein-agent-message', { hasText: 'while away' }).waitFor();
    await send(page, 'echo: after drop');
    await page.locator('skein-agent-message', { hasText: 'after drop' }).waitFor();
    await waitIdle(page);
    // It asked for exactly what it had not seen.
    expect(sockets.some((url) => new URL(url).searchParams.get('since') === String(seenBefore))).toBe(true);
    const all = await eventsOf(server.url, id);
    const held = await page.evaluate(() => (document.querySelector('skein-app') as unknown as { eventSeqs(): number[] }).eventSeqs());
    expect(held).toEqual(all.map((e) => e.seq));
    const rows = await page.evaluate(() => (document.querySelector('skein-app')!.shadowRoot!.querySelector('skein-timeline') as unknown as { renderedSeqs(): number[] }).renderedSeqs());
    const expected = all.filter((e) => e.kind === 'user' || (e.kind === 'agent' && e.text.trim() !== '')).map((e) => e.seq);
    expect(rows.filter((s) => expected.includes(s))).toEqual(expected);
    expect(new Set(rows).size).toBe(rows.length);
    await page.close();
  });

  it('opens a session by deep link, in light and dark, on a laptop and a phone', async () => {
    expect(compactedSession).not.toBe('');
    const unknown = await browser.newPage();
    await unknown.goto(withToken(`${server.url}/s/no-such-session`));
    await unknown.getByRole('alert').filter({ hasText: 'There is no session no-such-session' }).waitFor();
    expect(await unknown.getByRole('textbox', { name: 'Message' }).isDisabled()).toBe(true);
    await unknown.close();
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const [label, width, height] of [['desktop', 1280, 800], ['phone', 390, 844]] as const) {
        const { page, errors } = await openPage(browser, server.url, `/s/${compactedSession}`, { colorScheme, width, height, reducedMotion: true });
        await page.locator('skein-compaction-divider').first().waitFor();
        expect(page.url()).toContain(`/s/${compactedSession}`);
        // The sparkline's mark brings the compaction to the middle: folded rows above, kept ones below.
        await page.locator('skein-sparkline button.mark').first().click();
        await page.waitForFunction(() => {
          const row = document.querySelector('skein-app')!.shadowRoot!.querySelector('skein-timeline')!.shadowRoot!.querySelector('.row.flash');
          const box = row?.getBoundingClientRect();
          return box && box.top > 0 && box.bottom < innerHeight;
        });
        // Nothing wider than the screen: no sideways scrolling on a phone.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        await page.screenshot({ path: screenshotPath(`${colorScheme}-${label}`) });
        // Labels, roles, contrast: nothing for axe-core to object to.
        expect(await axeViolations(page)).toEqual([]);
        if (label === 'phone') {
          await page.getByRole('button', { name: 'Sessions' }).click();
          await page.getByRole('link', { name: /big: 700|echo: hello/ }).first().waitFor();
          await page.screenshot({ path: screenshotPath(`${colorScheme}-phone-sessions`) });
        }
        expect(errors).toEqual([]);
        await page.close();
      }
    }
  }, 120_000); // four page loads with axe: minutes on a loaded 2-core machine
});
