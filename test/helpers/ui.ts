// Driving the built web UI in headless Chromium: open a page, type, wait for
// the agent, read what the server logged.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import type { SkeinEvent, UsageEvent } from '../../shared/protocol.js';
import { withToken } from './auth.js';
import { api } from './server.js';

export interface OpenOptions {
  colorScheme?: 'light' | 'dark';
  width?: number;
  height?: number;
  /** prefers-reduced-motion: no transitions, so screenshots are not taken mid-animation. */
  reducedMotion?: boolean;
}

export async function openPage(browser: Browser, base: string, path = '/', options: OpenOptions = {}): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({
    viewport: { width: options.width ?? 1200, height: options.height ?? 800 },
    colorScheme: options.colorScheme ?? 'light',
    reducedMotion: options.reducedMotion ? 'reduce' : 'no-preference',
  });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  watchCsp(page, errors);
  // As a person does: the printed link with ?token=, which leaves the cookie behind.
  await page.goto(withToken(base + path));
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  await page.getByText('connected', { exact: true }).waitFor();
  return { page, errors };
}

/** Content-Security-Policy violations (Chromium reports each on the console) go to `errors`: the UI must work under its CSP. */
export function watchCsp(page: Page, errors: string[]): void {
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) errors.push(message.text());
  });
}

export async function send(page: Page, text: string): Promise<void> {
  // The page refuses to send while its socket is not open (a new session's socket may still be connecting on a loaded machine).
  await page.locator('span.conn.open').waitFor({ timeout: 60_000 });
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

export async function sessionId(page: Page): Promise<string> {
  await page.waitForURL(/\/s\/[\w-]+$/);
  return new URL(page.url()).pathname.split('/').pop()!;
}

export async function waitIdle(page: Page): Promise<void> {
  await page.getByTestId('agent-state').filter({ hasText: 'WaitingForUserInput' }).waitFor();
}

/** Waits until the server's log for the session satisfies `check` (polling; no fixed sleeps). */
export async function waitForEvents(base: string, id: string, check: (events: SkeinEvent[]) => boolean, timeoutMs = 15_000): Promise<SkeinEvent[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events = await eventsOf(base, id);
    if (check(events)) return events;
    if (Date.now() > deadline) throw new Error(`timed out; last events: ${JSON.stringify(events.slice(-4))}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function eventsOf(base: string, id: string): Promise<SkeinEvent[]> {
  return (await api<{ events: SkeinEvent[] }>(base, `/api/sessions/${id}/events`)).body.events;
}

/** Usage events the provider reported (one per LLM request), without skein's post-compaction estimates. */
export function requestUsages(events: SkeinEvent[]): UsageEvent[] {
  return events.filter((e): e is UsageEvent => e.kind === 'usage' && !e.gauge.estimated);
}

export function lastUsage(events: SkeinEvent[]): UsageEvent | undefined {
  return events.filter((e): e is UsageEvent => e.kind === 'usage').at(-1);
}

/** Starts a fresh session from the UI and waits for its empty timeline. */
export async function newSession(page: Page): Promise<string> {
  const before = page.url();
  await page.getByRole('button', { name: '+ New session' }).click();
  await page.waitForURL((url) => url.toString() !== before);
  await page.getByText('Say something to start').waitFor();
  return sessionId(page);
}

/** Accessibility problems axe-core finds on the page (WCAG 2 A and AA rules, open shadow roots included). */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP rightly refuses an injected <script>.
  await page.evaluate(fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string; nodes: { target: unknown }[] }[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).slice(0, 4).join(' ')}`);
  });
}

/**
 * WCAG AA colour contrast only (axe-core's color-contrast rule, open shadow
 * roots included), for every page an e2e test shows: faster than the whole
 * rule set, so a test can check each view, dialog and theme it opens.
 */
export async function contrastViolations(page: Page): Promise<string[]> {
  await page.evaluate(fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; nodes: { target: unknown; failureSummary?: string }[] }[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'rule', values: ['color-contrast'] } });
    return result.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${JSON.stringify(n.target)} ${n.failureSummary ?? ''}`.trim()));
  });
}

/**
 * Sends a message and waits until the server has finished the turn it starts
 * and the page holds every event of it, so what follows reads a settled page.
 */
export async function converse(page: Page, base: string, text: string): Promise<SkeinEvent[]> {
  const id = await sessionId(page);
  const idle = (events: SkeinEvent[]) => events.filter((e) => e.kind === 'state' && e.to === 'WaitingForUserInput').length;
  const before = idle(await eventsOf(base, id));
  await send(page, text);
  const events = await waitForEvents(base, id, (es) => idle(es) > before, 60_000);
  await page.waitForFunction((n) => ((document.querySelector('skein-app') as unknown as { eventSeqs(): number[] }).eventSeqs().at(-1) ?? 0) >= n, events.at(-1)!.seq);
  return events;
}
