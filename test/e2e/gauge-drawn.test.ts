// What the gauge draws, read from Chromium's layout and computed styles (not
// its aria values or text): the threshold tick sits at the threshold's share
// of the bar, and the segments' colour changes at the levels (ok, near: within
// 15 points of the threshold, over: at or past it). The built UI's own
// <skein-token-gauge> is given each gauge as the app gives it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Gauge } from '../../shared/protocol.js';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { openPage } from '../helpers/ui.js';

let server: TestServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchBrowser();
  page = (await openPage(browser, server.url, '/', { reducedMotion: true })).page;
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const gauge = (ratio: number, thresholdRatio: number): Gauge => {
  const contextWindow = 100_000;
  const contextTokens = Math.round(ratio * contextWindow);
  return { contextTokens, contextWindow, ratio, thresholdRatio, model: 'predictable', totalCostUsd: 0, cacheRead: Math.round(contextTokens / 2), cacheWrite: 0, input: contextTokens - Math.round(contextTokens / 2) };
};

interface Drawn {
  /** The tick's centre as a share of the bar's inner width. */
  tickAt: number;
  /** One pixel of the bar, as a share: how close the tick can be placed. */
  pixel: number;
  /** The computed background of the cache-read and input segments. */
  read: string;
  input: string;
  /** What each level's colour variables compute to here. */
  colours: Record<'ok' | 'near' | 'over', { read: string; input: string }>;
}

/** A fresh gauge element 500 px wide showing `g`, measured once drawn. */
async function draw(g: Gauge): Promise<Drawn> {
  return page.evaluate(async (g) => {
    document.querySelector('#gauge-probe')?.remove();
    const box = document.createElement('div');
    box.id = 'gauge-probe';
    box.style.cssText = 'position: fixed; top: 300px; left: 50px; width: 500px; background: white; z-index: 1000';
    const el = document.createElement('skein-token-gauge') as HTMLElement & { gauge: unknown; updateComplete: Promise<unknown> };
    el.gauge = g;
    box.append(el);
    document.body.append(box);
    await el.updateComplete;
    const root = el.shadowRoot!;
    const meter = root.querySelector<HTMLElement>('.meter')!;
    const tick = root.querySelector<HTMLElement>('.tick')!.getBoundingClientRect();
    const inner = meter.getBoundingClientRect();
    const left = inner.left + meter.clientLeft;
    const colour = (variable: string) => {
      const probe = document.createElement('div');
      probe.style.backgroundColor = `var(${variable})`;
      box.append(probe);
      const c = getComputedStyle(probe).backgroundColor;
      probe.remove();
      return c;
    };
    const colours = Object.fromEntries(
      (['ok', 'near', 'over'] as const).map((level) => [level, { read: colour(level === 'ok' ? '--seg-read' : `--seg-read-${level}`), input: colour(level === 'ok' ? '--seg-input' : `--seg-input-${level}`) }]),
    );
    return {
      tickAt: (tick.left + tick.width / 2 - left) / meter.clientWidth,
      pixel: 1 / meter.clientWidth,
      read: getComputedStyle(root.querySelector('.seg.read')!).backgroundColor,
      input: getComputedStyle(root.querySelector('.seg.input')!).backgroundColor,
      colours,
    } as never;
  }, g);
}

describe('the gauge as drawn', () => {
  it.each([0.5, 0.75, 0.8, 0.92])('the tick for a threshold of %s sits at that share of the bar', async (threshold) => {
    const drawn = await draw(gauge(0.3, threshold));
    expect(Math.abs(drawn.tickAt - threshold)).toBeLessThanOrEqual(drawn.pixel);
  });

  it('the levels have three different colours', async () => {
    const { colours } = await draw(gauge(0.1, 0.8));
    expect(new Set([colours.ok.read, colours.near.read, colours.over.read]).size).toBe(3);
    expect(new Set([colours.ok.input, colours.near.input, colours.over.input]).size).toBe(3);
  });

  // Threshold 80%: near from 65%, over from 80% (at the threshold itself).
  it.each([
    [0.1, 'ok'],
    [0.64, 'ok'],
    [0.66, 'near'],
    [0.79, 'near'],
    [0.8, 'over'],
    [0.95, 'over'],
  ] as const)('at %s of the window (threshold 0.8) the segments are drawn in the %s colours', async (ratio, level) => {
    const drawn = await draw(gauge(ratio, 0.8));
    expect({ read: drawn.read, input: drawn.input }).toEqual(drawn.colours[level]);
  });
});
