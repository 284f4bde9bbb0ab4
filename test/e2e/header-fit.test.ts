// A header that fits (issue 39): at 1280, 1024 and 390 px, light and dark,
// with a long title, a long branch and a gauge of large numbers and a cost,
// no text of the header or the context bar is cut (no ellipsis, no clipping,
// nothing outside the viewport), the gauge's numbers are on screen, and the
// exact ones are in its title attribute and its card on a tap. Screenshots go
// to test/e2e/screenshots/header-<width>-<theme>.png. And no character of the
// header or of a timeline note is one the installed fonts lack (an empty box:
// ⓘ was, on Debian's Chromium).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Provider } from '../../server/llm/types.js';
import type { SessionSnapshot } from '../../shared/protocol.js';
import { launchBrowser } from '../helpers/browser.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { contrastViolations, openPage, waitForEvents } from '../helpers/ui.js';

const BRANCH = 'feature/issue-39-living-with-skein-every-day-a-header-that-fits';
const TITLE = 'Make the compaction ledger keep cache-read numbers stable across forks, rewinds and restarts';
/** What the model reports for every request: 123,456 tokens in context, a large answer (the cost). */
const USAGE = { input: 3_456, cacheRead: 110_000, cacheWrite: 10_000, output: 480_000 };
const SHOTS = 'test/e2e/screenshots';

let server: TestServer;
let browser: Browser;
let id: string;

/** claude-opus-5 as the session's model (its prices, its effort picker), answered here: no network. */
function answeredHere(real: Provider): Provider {
  return { model: real.model, limits: real.limits, complete: async () => ({ text: 'Done.', toolCalls: [], stopReason: 'end_turn', usage: { ...USAGE, costUsd: 0 } }) };
}

beforeAll(async () => {
  const repo = tempDir('header-repo');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=skein test', '-c', 'user.email=test@example.invalid', ...args], { cwd: repo });
  git('init', '--quiet', '-b', BRANCH);
  fs.writeFileSync(path.join(repo, 'README.md'), '# demo\n');
  git('add', '.');
  git('commit', '--quiet', '-m', 'start');
  server = await startTestServer(
    // Status notes on: the second request gets one (the context passed 50%), a row with an icon in the timeline.
    { SKEIN_WORKDIR: repo, SKEIN_MODEL: 'claude-opus-5', SKEIN_CONTEXT_WINDOW: '200000', ANTHROPIC_API_KEY: 'sk-ant-never-used', SKEIN_STATUS_UPDATES: 'on' },
    undefined,
    undefined,
    { wrapProvider: answeredHere },
  );
  browser = await launchBrowser();
  id = (await api<{ id: string }>(server.url, '/api/sessions', { body: {} })).body.id;
  for (const [n, text] of ['Please look at the ledger.', 'And at the forks.'].entries()) {
    await api(server.url, `/api/sessions/${id}/messages`, { body: { text } });
    await waitForEvents(server.url, id, (es) => es.filter((e) => e.kind === 'usage').length > n && es.at(-1)!.kind === 'state' && (es.at(-1) as { to: string }).to === 'WaitingForUserInput', 30_000);
  }
  await api(server.url, `/api/sessions/${id}`, { method: 'PATCH', body: { title: TITLE } });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/**
 * Every piece of text in the header and the context bar (shadow roots
 * included) that is cut: a box whose content is wider than it, an ellipsis
 * in effect, text outside a clipping ancestor or outside the viewport.
 */
function cutText(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const app = document.querySelector('skein-app')!.shadowRoot!;
    const viewport = document.documentElement.clientWidth;
    const problems: string[] = [];
    if (document.documentElement.scrollWidth > viewport) problems.push(`the page scrolls sideways (${document.documentElement.scrollWidth} px in ${viewport})`);
    const name = (el: Element) => `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.trim().replace(/\s+/g, '.')}` : ''}`;
    const parentOf = (el: Element): Element | null => el.parentElement ?? ((el.parentNode as ShadowRoot | null)?.host ?? null);
    const rendered = (el: Element) => {
      for (let e: Element | null = el; e; e = parentOf(e)) {
        const s = getComputedStyle(e);
        if (s.display === 'none' || s.visibility === 'hidden') return false;
        // The raw state name is visually hidden on purpose (for scripts and screen readers).
        if (s.clipPath !== 'none' && e !== el.ownerDocument.documentElement) return false;
      }
      return true;
    };
    const elements = (root: Element | ShadowRoot): Element[] =>
      [...root.children].flatMap((c) => [c, ...elements(c), ...(c.shadowRoot ? elements(c.shadowRoot) : [])]);
    for (const top of [app.querySelector('header')!, app.querySelector('.context')!]) {
      for (const el of [top, ...elements(top)]) {
        if (!rendered(el)) continue;
        const style = getComputedStyle(el);
        const box = el.getBoundingClientRect();
        if (box.width === 0 && box.height === 0) continue;
        if (box.left < -0.5 || box.right > viewport + 0.5) problems.push(`${name(el)} is outside the viewport (${Math.round(box.left)}..${Math.round(box.right)} of ${viewport})`);
        const texts = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim());
        if (el instanceof HTMLSelectElement) {
          // The chosen option's text must fit the box beside the arrow.
          const canvas = document.createElement('canvas').getContext('2d')!;
          canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
          const need = canvas.measureText(el.selectedOptions[0]?.text.trim() ?? '').width + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight) + 16;
          if (need > el.clientWidth + 0.5) problems.push(`${name(el)} "${el.value}" needs ${Math.round(need)} px, has ${el.clientWidth}`);
          continue;
        }
        if (style.display !== 'inline' && el.scrollWidth > el.clientWidth && texts.length)
          problems.push(`${name(el)} "${el.textContent!.trim().slice(0, 40)}" is ${el.scrollWidth} px wide in ${el.clientWidth}`);
        for (const t of texts) {
          const range = document.createRange();
          range.selectNodeContents(t);
          const r = range.getBoundingClientRect();
          if (r.left < -0.5 || r.right > viewport + 0.5) problems.push(`"${t.textContent!.trim().slice(0, 40)}" is outside the viewport`);
          for (let a = parentOf(t as unknown as Element) as Element | null; a && a !== document.documentElement; a = parentOf(a)) {
            const s = getComputedStyle(a);
            const clips = s.overflowX !== 'visible' || s.overflowY !== 'visible';
            if (clips && s.textOverflow === 'ellipsis' && a.scrollWidth > a.clientWidth) problems.push(`${name(a)} shows an ellipsis for "${t.textContent!.trim().slice(0, 40)}"`);
            const ab = a.getBoundingClientRect();
            if (clips && (r.left < ab.left - 0.5 || r.right > ab.right + 0.5 || r.top < ab.top - 0.5 || r.bottom > ab.bottom + 0.5))
              problems.push(`"${t.textContent!.trim().slice(0, 40)}" is clipped by ${name(a)}`);
          }
        }
      }
    }
    return [...new Set(problems)];
  });
}

describe('a header that fits', () => {
  it('at 1280, 1024 and 390 px, light and dark: the title, the branch and the gauge\'s numbers whole; exact numbers in the title and on a tap', async () => {
    const gauge = (await api<SessionSnapshot>(server.url, `/api/sessions/${id}`)).body.gauge!;
    expect(gauge.contextTokens).toBe(123_456);
    expect(gauge.contextWindow).toBe(200_000);
    expect(gauge.totalCostUsd).toBeGreaterThan(10);
    const cost = `$${gauge.totalCostUsd.toFixed(2)}`;
    const until = `${Math.round((gauge.thresholdRatio - gauge.ratio) * 100)}%`;
    fs.mkdirSync(SHOTS, { recursive: true });
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const [width, height] of [[1280, 800], [1024, 768], [390, 844]] as const) {
        const { page, errors } = await openPage(browser, server.url, `/s/${id}`, { colorScheme, width, height, reducedMotion: true });
        const where = `${width} px, ${colorScheme}`;
        const header = page.locator('skein-app header');
        await header.locator('h1', { hasText: TITLE }).waitFor();
        await page.getByTestId('branch').filter({ hasText: BRANCH }).waitFor();
        const label = page.locator('skein-token-gauge .label');
        await label.filter({ hasText: cost }).waitFor();

        // Soft: every width and theme is reported (and shot) in one run.
        expect.soft(await cutText(page), where).toEqual([]);
        // The numbers people read: tokens, window, the distance to auto-compact, the cost.
        const shown = (await label.innerText()).replace(/\s+/g, ' ');
        for (const part of ['123.5k', '200.0k', until, cost]) expect.soft(shown, where).toContain(part);
        // The exact numbers: the title attribute (hover), and the card a tap opens.
        const exact = (await label.getAttribute('title')) ?? '';
        for (const part of ['123,456', '200,000', until, cost]) expect.soft(exact, where).toContain(part);
        await page.locator('skein-token-gauge .wrap').click();
        const card = page.locator('skein-token-gauge .card');
        await card.waitFor();
        expect(await card.innerText(), where).toContain('123,456');
        // A screenshot of the top of the page, for a person to look at.
        const bottom = await page.locator('skein-app .context').evaluate((el) => el.getBoundingClientRect().bottom);
        await page.mouse.click(width - 5, height - 5);
        await card.waitFor({ state: 'hidden' });
        await page.screenshot({ path: `${SHOTS}/header-${width}-${colorScheme}.png`, clip: { x: 0, y: 0, width, height: Math.ceil(bottom) + 24 } });
        expect.soft(await contrastViolations(page), where).toEqual([]);
        expect(errors).toEqual([]);
        await page.close();
      }
    }
  }, 180_000);

  it('draws every icon of the header and of the timeline\'s notes: no character the fonts lack (the status note\'s ⓘ was an empty box)', async () => {
    const { page, errors } = await openPage(browser, server.url, `/s/${id}`, { width: 1280, height: 800 });
    const note = page.locator('skein-timeline p.notice.status');
    await note.first().waitFor();
    expect(await page.evaluate(missingGlyphs)).toEqual([]);
    // The status note's icon is there and has a size.
    const icon = note.first().locator('svg');
    expect(await icon.evaluate((el) => el.getBoundingClientRect().width)).toBeGreaterThan(4);
    expect(errors).toEqual([]);
    await page.close();
  });
});

/**
 * The characters of the header, the context bar and the timeline's notes that
 * no installed font has: drawn, each looks like a character no font has
 * (U+10FFFD, private use) in the same font, the empty box.
 */
function missingGlyphs(): string[] {
  const app = document.querySelector('skein-app')!.shadowRoot!;
  const timeline = app.querySelector('skein-timeline')!.shadowRoot!;
  const canvas = document.createElement('canvas');
  canvas.width = 64;
  canvas.height = 64;
  const ctx = canvas.getContext('2d', { willReadFrequently: true })!;
  const draw = (ch: string, font: string) => {
    ctx.clearRect(0, 0, 64, 64);
    ctx.font = font;
    ctx.fillStyle = '#000';
    ctx.fillText(ch, 8, 44);
    return ctx.getImageData(0, 0, 64, 64).data.join(',');
  };
  const missing = new Set<string>();
  const places = [app.querySelector('header')!, app.querySelector('.context')!, ...timeline.querySelectorAll('.notice')];
  const textsOf = (root: Element | ShadowRoot): Text[] => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const found: Text[] = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) found.push(n as Text);
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) found.push(...textsOf(el.shadowRoot));
    return found;
  };
  for (const place of places) {
    for (const text of textsOf(place)) {
      if (!text.data.trim()) continue;
      const style = getComputedStyle(text.parentElement ?? (text.parentNode as ShadowRoot).host);
      const font = `${style.fontWeight} 32px ${style.fontFamily}`;
      const box = draw('\u{10FFFD}', font);
      for (const ch of new Set(text.data.replace(/[\x00-\x7f\s]/g, ''))) if (draw(ch, font) === box) missing.add(ch);
    }
  }
  return [...missing];
}
