// Nothing the user typed is lost (issue 23): a paste larger than the window is
// kept whole as a file the model is pointed to, the composer says what will
// happen before sending, a multi-line message survives a compaction whole, and
// a message over the frame limit is refused with its size, never dropped.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { CompactionEvent, UserEvent, ViewMessage } from '../../shared/protocol.js';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { contrastViolations, converse, eventsOf, newSession, openPage, waitForEvents } from '../helpers/ui.js';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({ SKEIN_CONTEXT_WINDOW: '8000' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** About 117,000 characters in 1,800 distinct lines (about 24k tokens): three times the window. */
function longPaste(): string {
  return Array.from({ length: 1800 }, (_, i) => `line ${i + 1}: the quick brown fox jumps over the lazy dog ${i * 7}`).join('\n');
}

describe('the user’s words', () => {
  it('a paste larger than the window is kept whole as a file, and the composer says so before sending', async () => {
    const { page, errors } = await openPage(browser, server.url, '/', { reducedMotion: true });
    const id = await newSession(page);
    await converse(page, server.url, 'echo: the task');
    const paste = longPaste();
    expect(paste.length).toBeGreaterThan(100_000);
    const box = page.getByRole('textbox', { name: 'Message' });
    // As a paste arrives: one input event with the whole text.
    await box.evaluate((el, text) => {
      (el as HTMLTextAreaElement).value = text;
      el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    }, paste);
    const count = page.getByTestId('draft-tokens');
    await expect.poll(() => count.textContent()).toMatch(/^≈[\d,]+ tokens · [\d,]+ of 8,000 left$/);
    await page.getByText(/kept whole as a file of the session/).waitFor();
    expect(await contrastViolations(page)).toEqual([]);
    fs.mkdirSync('test/e2e/screenshots', { recursive: true });
    await page.screenshot({ path: screenshotPath('composer-token-count') });
    fs.copyFileSync(screenshotPath('composer-token-count'), 'test/e2e/screenshots/composer-token-count.png');

    const before = (await eventsOf(server.url, id)).filter((e) => e.kind === 'state' && e.to === 'WaitingForUserInput').length;
    await box.press('Enter');
    const events = await waitForEvents(server.url, id, (es) => es.filter((e) => e.kind === 'state' && e.to === 'WaitingForUserInput').length > before, 60_000);
    const user = events.find((e): e is UserEvent => e.kind === 'user' && e.text === paste)!;
    expect(user.saved).toBeDefined();
    // The log and the file hold it whole, byte for byte.
    expect(fs.readFileSync(user.saved!.file, 'utf8')).toBe(paste);
    // Nothing was folded to make room for it.
    expect(events.filter((e) => e.kind === 'compaction')).toEqual([]);
    // The model's view: its head, its size and where the rest is, within the window.
    const view = (await api<{ messages: ViewMessage[]; tokens: number }>(server.url, `/api/sessions/${id}/view`)).body;
    const held = view.messages.find((m) => m.role === 'user' && m.content.includes(user.saved!.file))!;
    expect(held.content).toContain('line 1: the quick brown fox');
    expect(held.content).toMatch(/is [\d,]+ characters in 1,800 lines/);
    expect(view.tokens).toBeLessThan(8000);

    // The model reads on from the file with read_file.
    const read = await converse(page, server.url, `tool: read_file {"path": ${JSON.stringify(user.saved!.file)}, "offset": 1500, "limit": 3}`);
    const result = read.filter((e) => e.kind === 'tool_result').at(-1)!;
    expect(result.kind === 'tool_result' && result.output).toContain('line 1500: the quick brown fox jumps over the lazy dog 10493');
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('a multi-line message stays whole, line breaks and all, in the summary and the ledger', async () => {
    const { page, errors } = await openPage(browser, server.url);
    const id = await newSession(page);
    await converse(page, server.url, 'echo: the task');
    const multi = 'echo: first line of the request\nsecond line: keep the tests green\n\nfourth line, after a blank one';
    await converse(page, server.url, multi);
    // Later work the compaction keeps as recent steps, so the message above is folded.
    for (const text of ['big: 900', 'big: 900', 'big: 900', 'echo: five']) await converse(page, server.url, text);
    await converse(page, server.url, '/compact');
    const events = await waitForEvents(server.url, id, (es) => es.some((e) => e.kind === 'compaction' && e.phase === 'finished'));
    const done = events.find((e): e is CompactionEvent => e.kind === 'compaction' && e.phase === 'finished')!;
    expect(done.ledger!.userMessages.map((u) => u.text)).toContain(multi);
    // The summary lists it whole: its further lines indented under the first.
    expect(done.summary).toContain('- user: (4 lines, verbatim between the fences):\n~~~\necho: first line of the request\nsecond line: keep the tests green\n\nfourth line, after a blank one\n~~~');
    const view = (await api<{ messages: ViewMessage[] }>(server.url, `/api/sessions/${id}/view`)).body;
    const summary = view.messages.find((m) => m.content.startsWith('<compacted-history>'))!.content;
    expect(summary).toContain('~~~\necho: first line of the request\nsecond line: keep the tests green\n\nfourth line, after a blank one\n~~~');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a message over the frame limit is refused in the composer with its size and the limit, and stays in the box', async () => {
    const { page, errors } = await openPage(browser, server.url);
    const id = await newSession(page);
    const box = page.getByRole('textbox', { name: 'Message' });
    const huge = 'é'.repeat(600_000); // 1.2 MB of UTF-8
    await box.fill(huge);
    await page.getByText(/Too large to send: this message is 1\.14 MiB \(600,000 characters\); one message may be at most 1 MiB/).waitFor();
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    await box.press('Enter');
    expect(await box.inputValue()).toHaveLength(600_000);
    await page.getByText('connected', { exact: true }).waitFor();
    expect((await eventsOf(server.url, id)).filter((e) => e.kind === 'user')).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
