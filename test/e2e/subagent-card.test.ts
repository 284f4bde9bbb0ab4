// Subagents in the web UI (issue 42): a `task` call is a card that follows its
// child session live (state, last step, its context gauge, elapsed time,
// tokens and cost) and opens it; the sessions list nests the child under its
// parent; the parent's gauge counts the children's cost and tokens and says
// so ("incl. 1 subtask").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { SessionSnapshot } from '../../shared/protocol.js';
import { launchBrowser } from '../helpers/browser.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { newSession, openPage, send, sessionId, waitForEvents } from '../helpers/ui.js';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({ SKEIN_MODEL: 'predictable' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const POLL = { timeout: 60_000 };

describe('the task card', () => {
  it('follows the child live, opens it; the list nests it; the parent totals include it', async () => {
    const { page, errors } = await openPage(browser, server.url, '/', { width: 1280, height: 900 });
    const parent = await newSession(page);
    await send(page, `tool: task ${JSON.stringify({ description: 'look around', prompt: 'bash: sleep 6; echo looked' })}`);

    // Live, while the child works: its state, its last step, its gauge, the time running.
    const card = page.locator('skein-task-card');
    await expect.poll(() => card.getByTestId('task-step').textContent().catch(() => ''), POLL).toContain('bash sleep 6; echo looked');
    await expect.poll(() => card.getByTestId('task-state').textContent(), POLL).toBe('Running tools…');
    expect(await card.locator('.agent').textContent()).toBe('general agent');
    expect(await card.locator('.desc').textContent()).toBe('look around');
    expect(await card.getByTestId('task-gauge').textContent()).toMatch(/^\d[\d.,k]* \/ 8,000 tokens in its context \(\d+%\)$/);
    const numbers = () => card.getByTestId('task-numbers').textContent();
    const first = await numbers();
    await expect.poll(numbers, POLL).not.toBe(first);
    // Running: the parent's gauge already counts the child.
    await expect.poll(() => page.getByTestId('gauge-cost').textContent(), POLL).toContain('incl. 1 subtask');

    // Finished: its outcome, and its tokens and cost as its own session counts them.
    await expect.poll(() => card.getByTestId('task-state').textContent(), POLL).toBe('answered');
    const events = await waitForEvents(server.url, parent, (es) => es.some((e) => e.kind === 'subagent' && e.phase === 'finished'), 60_000);
    const finished = events.find((e) => e.kind === 'subagent' && e.phase === 'finished');
    if (finished?.kind !== 'subagent') throw new Error('no finished subagent event');
    const child = (await api<SessionSnapshot>(server.url, `/api/sessions/${finished.child}`)).body;
    expect(child.gauge.totalTokens).toBeGreaterThan(0);
    await expect.poll(numbers, POLL).toMatch(new RegExp(`^\\d+(\\.\\d)? s · ${child.gauge.totalTokens!.toLocaleString('en-US')} tokens · \\$0$`));
    const settled = await numbers();
    expect(await card.getByTestId('task-open').getAttribute('href')).toBe(`/s/${child.id}`);

    // The parent's totals include the child's: in the label and in the gauge's card.
    expect(await page.getByTestId('gauge-cost').textContent()).toBe('$0 incl. 1 subtask');
    expect(await page.getByTestId('gauge-subtasks').textContent()).toContain(`1 subtask (${child.gauge.totalTokens!.toLocaleString('en-US')} tokens)`);

    // The sessions list: the child under its parent, folded behind "1 subtask".
    const list = page.locator('skein-session-list');
    const toggle = list.locator(`li[data-id="${parent}"]`).getByTestId('forks-toggle');
    await expect.poll(() => toggle.textContent(), POLL).toContain('1 subtask');
    await toggle.click();
    const childRow = list.locator(`li[data-id="${child.id}"]`);
    expect(await childRow.getAttribute('data-depth')).toBe('1');
    expect(await childRow.getByTestId('subtask-tag').textContent()).toBe('general subtask');
    const order = await list.locator('li[data-id]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-id')));
    expect(order.indexOf(child.id)).toBe(order.indexOf(parent) + 1);

    // The elapsed time stopped with the child.
    expect(await numbers()).toBe(settled);

    // The card opens the child session.
    await card.getByTestId('task-open').click();
    await page.waitForURL((url) => url.pathname === `/s/${child.id}`);
    expect(await sessionId(page)).toBe(child.id);
    await page.getByText('bash: sleep 6; echo looked').first().waitFor();
    expect(errors).toEqual([]);
  }, 180_000);
});
