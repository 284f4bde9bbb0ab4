// The plan, diffs and search tools in headless Chromium, driven by the
// predictable model: the plan pinned above the chat box (and still there, and
// still in the model's view, after a compaction and a reload), a write and an
// edit shown as coloured, collapsible diffs, a grep result in its card.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { ViewMessage } from '../../shared/protocol.js';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { converse, newSession, openPage } from '../helpers/ui.js';

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

function planSteps(page: Page) {
  return page.locator('skein-plan li').evaluateAll((items) => items.map((li) => `${li.getAttribute('data-status')}: ${li.textContent!.trim().slice(1).trim()}`));
}

describe('plan, diffs and search in the UI', () => {
  it('pins the plan above the chat box, keeps it across a compaction and a reload; renders diffs and grep results', async () => {
    const { page, errors } = await openPage(browser, server.url);
    const id = await newSession(page);
    expect(await page.locator('skein-plan section').count()).toBe(0);

    await converse(page, server.url, 'plan: [x] read the code; [>] write the fix; [ ] run the tests');
    const plan = page.getByTestId('plan');
    await plan.waitFor();
    expect(await plan.locator('.count').textContent()).toBe('1 of 3 done');
    expect(await planSteps(page)).toEqual(['done: read the code', 'in_progress: write the fix', 'pending: run the tests']);
    // Pinned: right above the message box, outside the scrolling timeline.
    const planBox = (await plan.boundingBox())!;
    const inputBox = (await page.locator('skein-chat-input').boundingBox())!;
    expect(planBox.y + planBox.height).toBeLessThanOrEqual(inputBox.y + 1);

    // An invalid plan is refused and the pinned one stays.
    await converse(page, server.url, 'plan: [>] one; [>] two');
    expect(await planSteps(page)).toEqual(['done: read the code', 'in_progress: write the fix', 'pending: run the tests']);

    await converse(page, server.url, 'tool: write_file {"path":"notes.txt","content":"alpha\\nbeta\\ngamma\\n"}');
    await converse(page, server.url, 'tool: edit_file {"path":"notes.txt","old":"beta","new":"BETA"}');
    const editCard = page.locator('skein-tool-card', { has: page.locator('.name', { hasText: 'edit_file' }) });
    const diff = editCard.locator('skein-diff');
    await diff.waitFor();
    const kinds = await diff.locator('.line').evaluateAll((lines) => lines.map((l) => `${l.getAttribute('data-kind')} ${l.textContent}`));
    expect(kinds).toEqual(['head --- a/notes.txt', 'head +++ b/notes.txt', 'hunk @@ -1,3 +1,3 @@', 'ctx  alpha', 'del -beta', 'add +BETA', 'ctx  gamma']);
    const colour = (kind: string) => diff.locator(`.line.${kind}`).first().evaluate((el) => getComputedStyle(el).color);
    expect(await colour('add')).not.toBe(await colour('del'));
    expect(await colour('add')).not.toBe(await colour('ctx'));
    expect(await diff.locator('summary').textContent()).toMatch(/Diff\s*\+1\s*−1/);
    // Collapsible: the summary hides and shows it.
    await diff.locator('summary').click();
    expect(await diff.locator('pre').isVisible()).toBe(false);
    await diff.locator('summary').click();
    expect(await diff.locator('pre').isVisible()).toBe(true);
    // The card's own output is the summary line, not the diff again.
    expect(await editCard.locator('pre[aria-label="Output of edit_file"]').textContent()).toBe('replaced 1 occurrence in notes.txt');
    const writeCard = page.locator('skein-tool-card', { has: page.locator('.name', { hasText: 'write_file' }) });
    expect(await writeCard.locator('skein-diff .line.add').count()).toBe(3);
    expect(await writeCard.locator('skein-diff .line.head').first().textContent()).toBe('--- /dev/null');

    await converse(page, server.url, 'grep: BETA');
    const grepCard = page.locator('skein-tool-card', { has: page.locator('.name', { hasText: 'grep' }) });
    expect(await grepCard.locator('pre').textContent()).toBe('notes.txt:2:BETA');
    await editCard.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('agent-tools-plan-diff-grep') });

    // Fold everything so far: the plan is re-injected into the model's view and stays pinned.
    for (let i = 0; i < 3; i++) await converse(page, server.url, `bash: seq 1 ${60 + i}`);
    await converse(page, server.url, '/compact');
    const { body } = await api<{ messages: ViewMessage[] }>(server.url, `/api/sessions/${id}/view`);
    const summary = body.messages.find((m) => m.content.startsWith('<compacted-history>'))!;
    expect(summary.content).toContain('### Current plan');
    expect(summary.content).toContain('[x] read the code\n[>] write the fix\n[ ] run the tests');
    // The update_plan call itself was folded: the summary is the only place the model sees the plan.
    expect(body.messages.some((m) => m.toolCalls?.some((c) => c.name === 'update_plan'))).toBe(false);
    await page.reload();
    await page.getByTestId('plan').waitFor();
    expect(await planSteps(page)).toEqual(['done: read the code', 'in_progress: write the fix', 'pending: run the tests']);

    // Collapsed to one line, it names the step in progress.
    await page.getByTestId('plan').getByRole('button', { name: 'Hide' }).click();
    expect(await page.getByTestId('plan').locator('.current').textContent()).toBe('▸ write the fix');
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);
});
