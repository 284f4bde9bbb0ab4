// In Chromium, what the UI tells people must be exactly what the log says:
// the gauge's label, its screen-reader text and "until auto-compact" against
// the last usage event (the percentage from the tokens in context, not any
// other field); each approval button records its own decision and rule; and
// a remote image stays a link even when its URL contains `data:image/png;`.
// Buttons are picked by their order in the card (Approve, Approve for this
// session, Deny…), not their words: the assertions are on what is recorded.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { ApprovalDecisionEvent, SkeinEvent } from '../../shared/protocol.js';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { converse, eventsOf, lastUsage, newSession, openPage, send, waitForEvents } from '../helpers/ui.js';

let browser: Browser;
const servers: TestServer[] = [];
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  for (const s of servers) await s.close();
});

async function start(env: Record<string, string>): Promise<TestServer> {
  const s = await startTestServer(env);
  servers.push(s);
  return s;
}

const en = (n: number) => n.toLocaleString('en-US');

describe('the gauge', () => {
  it('shows the last usage event’s numbers: label, screen-reader text and the distance to auto-compact', async () => {
    const server = await start({ SKEIN_CONTEXT_WINDOW: '4000', SKEIN_COMPACT_THRESHOLD_RATIO: '0.8' });
    const { page, errors } = await openPage(browser, server.url);
    const id = await newSession(page);
    const meter = page.getByRole('meter', { name: 'Context window' });
    const label = page.locator('skein-token-gauge .label > span').first();
    const words = page.locator('skein-token-gauge .label .words');
    // Two sizes of context: a few hundred tokens, then more; both must read exactly.
    for (const text of ['echo: hello', 'big: 400']) {
      const events = await converse(page, server.url, text);
      const g = lastUsage(events)!.gauge;
      // Cache reads and writes are part of the context: the share is of all of it, not of the uncached input.
      const parts = (g.input ?? 0) + (g.cacheRead ?? 0) + (g.cacheWrite ?? 0);
      expect(parts).toBe(g.contextTokens);
      const pct = Math.round((g.contextTokens / g.contextWindow) * 100);
      const until = Math.max(0, Math.round(g.thresholdRatio * 100 - (g.contextTokens / g.contextWindow) * 100));
      expect(g.contextWindow).toBe(4000);
      expect(pct).toBeGreaterThan(0);
      await expect.poll(() => label.textContent()).toBe(`${en(g.contextTokens)} / ${en(g.contextWindow)} · ${pct}%`);
      expect(await words.textContent()).toBe(until > 0 ? `${until}% until auto-compact` : 'auto-compact at the next step');
      expect(Number(await meter.getAttribute('aria-valuenow'))).toBe(g.contextTokens);
      expect(Number(await meter.getAttribute('aria-valuemax'))).toBe(4000);
      const spoken = (await meter.getAttribute('aria-valuetext'))!;
      expect(spoken.startsWith(
        `${en(g.contextTokens)} of ${en(g.contextWindow)} tokens in context (${pct}%): ` +
          `${en(g.cacheRead ?? 0)} cache read, ${en(g.cacheWrite ?? 0)} cache write, ${en(g.input ?? 0)} uncached input. ` +
          `${until > 0 ? `${until}% until auto-compact` : 'Auto-compact at the next step'} (compacts at 80%). `,
      ), spoken).toBe(true);
    }
    // The second answer read a larger context than the first: the gauge moved with it.
    const usages = (await eventsOf(server.url, id)).filter((e) => e.kind === 'usage');
    expect(usages.length).toBeGreaterThanOrEqual(2);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});

describe('approval buttons', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await start({ SKEIN_APPROVAL: 'on-write' });
  });

  /** Sends `command` through bash and waits for its card; the card's buttons in their order. */
  async function ask(page: Page, command: string) {
    await send(page, `bash: ${command}`);
    const card = page.locator('skein-approval-card');
    await card.waitFor({ timeout: 30_000 });
    await page.getByTestId('agent-state').filter({ hasText: 'WaitingForApproval' }).waitFor();
    const buttons = card.getByRole('button');
    expect(await buttons.count()).toBe(3);
    return { card, buttons };
  }

  const decisions = (events: SkeinEvent[]) => events.filter((e): e is ApprovalDecisionEvent => e.kind === 'approval_decision');
  const idle = (id: string, n: number) => waitForEvents(server.url, id, (es) => es.filter((e) => e.kind === 'state' && e.to === 'WaitingForUserInput').length >= n, 30_000);

  it('the first approves this call only; the second approves for the session with the exact command as the rule; the third denies', async () => {
    const { page, errors } = await openPage(browser, server.url, '/', { reducedMotion: true });
    const id = await newSession(page);
    const file = (name: string) => path.join(server.workDir, name);

    // 1st button: this call, no rule.
    const first = await ask(page, 'echo one > one.txt');
    await first.buttons.nth(0).click();
    let events = await idle(id, 1);
    expect(decisions(events)).toEqual([expect.objectContaining({ decision: 'approve', by: 'user', name: 'bash' })]);
    expect(decisions(events)[0]!.rule).toBeUndefined();
    expect(fs.readFileSync(file('one.txt'), 'utf8')).toBe('one\n');

    // 2nd button: for the session, the rule being this exact command; the same command then runs by that rule without a card.
    const second = await ask(page, 'echo two >> two.txt');
    await second.buttons.nth(1).click();
    events = await idle(id, 2);
    expect(decisions(events)[1]).toMatchObject({ decision: 'approve_session', by: 'user', rule: { tool: 'bash', command: 'echo two >> two.txt' } });
    await send(page, 'bash: echo two >> two.txt');
    events = await idle(id, 3);
    expect(decisions(events)[2]).toMatchObject({ decision: 'approve', by: 'rule', rule: { tool: 'bash', command: 'echo two >> two.txt' } });
    expect(fs.readFileSync(file('two.txt'), 'utf8')).toBe('two\ntwo\n');

    // A different command still asks; the last button (then its confirmation) denies it and nothing runs.
    const third = await ask(page, 'echo three > three.txt');
    await third.buttons.nth(2).click();
    await third.card.getByRole('textbox').fill('not now');
    await third.card.getByRole('button').last().click();
    events = await idle(id, 4);
    expect(decisions(events)[3]).toMatchObject({ decision: 'deny', by: 'user', reason: 'not now' });
    expect(fs.existsSync(file('three.txt'))).toBe(false);
    expect(decisions(events)).toHaveLength(4);
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);
});

describe('remote images', () => {
  it('a remote URL that contains `data:image/png;` is a link, never loaded', async () => {
    const hits: string[] = [];
    const collector = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'image/png' }).end();
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      const remote = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
      const server = await start({});
      const { page, errors } = await openPage(browser, server.url);
      await newSession(page);
      const urls = [`${remote}/x.png?data:image/png;base64,AAAA`, `${remote}/data:image/png;base64,AAAA`];
      await converse(page, server.url, `echo: Look ![leak](${urls[0]}) and <img src="${urls[1]}">`);
      const message = page.locator('skein-agent-message', { hasText: 'Look' });
      const links = message.locator('a.remote-image');
      await message.waitFor();
      expect(await message.locator('img').count()).toBe(0);
      expect(await links.evaluateAll((as) => as.map((a) => a.getAttribute('href')))).toEqual(urls);
      expect(await message.locator('img').count()).toBe(0);
      // A real inline image still shows.
      const png = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
      await converse(page, server.url, `echo: Inline ![dot](${png})`);
      await page.locator('skein-agent-message', { hasText: 'Inline' }).locator('img').waitFor();
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      expect(hits).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await new Promise((resolve) => collector.close(resolve));
    }
  }, 120_000);
});
