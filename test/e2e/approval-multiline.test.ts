// A multi-line command at the approval card, in headless Chromium: the card
// shows the whole command, each line on a line of its own (a first line that
// looks harmless never stands for the rest), and the session button's words
// mark where they cut it. Denying is logged as the user's decision and the
// command never runs.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { decisionOf } from '../helpers/approvals.js';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { newSession, openPage, send, waitForEvents } from '../helpers/ui.js';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({ SKEIN_APPROVAL: 'on-write' });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const COMMAND = 'echo "tidying up"\ntouch ran-line-2.txt\n  touch ran-line-3.txt';

describe('a multi-line command at the approval card', () => {
  it('is shown whole, line by line; the session button says where its words stop; Deny is logged and nothing runs', async () => {
    const { page, errors } = await openPage(browser, server.url, '/', { reducedMotion: true });
    const id = await newSession(page);
    await send(page, `bash: ${COMMAND}`);
    const card = page.locator('skein-approval-card');
    await card.waitFor({ timeout: 60_000 });
    const shown = card.getByLabel('Command to approve');
    expect(await shown.textContent()).toBe(COMMAND);
    // Drawn as three lines, the indentation kept: what the user reads is what would run.
    expect(await shown.evaluate((pre) => (pre as HTMLElement).innerText)).toBe(COMMAND);
    const lineBoxes = await shown.evaluate((pre) => {
      const range = document.createRange();
      range.selectNodeContents(pre);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    });
    expect(lineBoxes).toBe(3);
    expect(await card.getByRole('button', { name: 'Approve `echo "tidying up"…` for this session' }).count()).toBe(1);

    await page.getByRole('button', { name: 'Deny…' }).click();
    await page.getByRole('button', { name: 'Deny', exact: true }).click();
    const events = await waitForEvents(server.url, id, (es) => es.some((e) => e.kind === 'state' && e.to === 'WaitingForUserInput'), 60_000);
    const call = events.find((e) => e.kind === 'tool_call')!;
    expect(call.kind === 'tool_call' && call.input).toEqual({ command: COMMAND });
    expect(call.kind === 'tool_call' && decisionOf(events, call.callId)).toMatchObject({ decision: 'deny', by: 'user' });
    for (const file of ['ran-line-2.txt', 'ran-line-3.txt']) expect(fs.existsSync(path.join(server.workDir, file)), file).toBe(false);
    expect(errors).toEqual([]);
  }, 180_000);
});
