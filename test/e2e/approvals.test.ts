// Approvals in headless Chromium (SKEIN_APPROVAL=on-write): the card shows
// the diff an edit would make, survives a reload (it comes from the log), and
// its Approve button runs the call; Deny with a reason reaches the model.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { decisionOf, resultOf } from '../helpers/approvals.js';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { axeViolations, newSession, openPage, send, waitForEvents, waitIdle } from '../helpers/ui.js';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({ SKEIN_APPROVAL: 'on-write' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('approvals in the browser', () => {
  it('the Approve button runs an edit whose diff the card showed, also after a reload', async () => {
    fs.writeFileSync(path.join(server.workDir, 'greeting.txt'), 'hello\nworld\n');
    const { page, errors } = await openPage(browser, server.url, '/', { reducedMotion: true });
    const id = await newSession(page);
    await send(page, 'tool: edit_file {"path":"greeting.txt","old":"world","new":"skein"}');
    const card = page.locator('skein-approval-card');
    await card.waitFor({ timeout: 30_000 });
    await page.getByTestId('agent-state').filter({ hasText: 'WaitingForApproval' }).waitFor();
    const diff = card.getByLabel('Diff to approve');
    await expect.poll(() => diff.textContent()).toContain('+skein');
    expect(await card.locator('span.del').allTextContents()).toEqual(['-world']);
    expect(await card.locator('span.add').allTextContents()).toEqual(['+skein']);
    // The session approval says what it covers: this one file.
    expect(await card.getByRole('button', { name: 'Approve writes to greeting.txt for this session' }).count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    await page.locator('skein-tool-card').screenshot({ path: screenshotPath('approval-card') });
    await page.screenshot({ path: screenshotPath('approval-waiting') });

    // The card comes from the log: a reload shows it again, still waiting.
    await page.reload();
    await page.locator('skein-approval-card').waitFor({ timeout: 30_000 });
    expect(fs.readFileSync(path.join(server.workDir, 'greeting.txt'), 'utf8')).toBe('hello\nworld\n');

    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    const events = await waitForEvents(server.url, id, (es) => es.some((e) => e.kind === 'state' && e.to === 'WaitingForUserInput'), 30_000);
    await waitIdle(page);
    const call = events.find((e) => e.kind === 'tool_call')!;
    expect(call.kind === 'tool_call' && decisionOf(events, call.callId)).toMatchObject({ decision: 'approve', by: 'user' });
    expect(fs.readFileSync(path.join(server.workDir, 'greeting.txt'), 'utf8')).toBe('hello\nskein\n');
    await expect.poll(() => page.getByTestId('approval-decision').first().textContent()).toContain('Approved by you');
    expect(await page.locator('skein-approval-card').count()).toBe(0);
    expect(errors).toEqual([]);
  }, 120_000);

  it('Deny with a reason: the command never runs and the model reads why', async () => {
    const { page, errors } = await openPage(browser, server.url, '/', { reducedMotion: true });
    const id = await newSession(page);
    await send(page, 'bash: echo nope > denied.txt');
    const card = page.locator('skein-approval-card');
    await card.waitFor({ timeout: 30_000 });
    expect(await card.getByLabel('Command to approve').textContent()).toBe('echo nope > denied.txt');
    expect(await card.getByRole('button', { name: 'Approve `echo nope > denied.txt` for this session' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Deny…' }).click();
    await page.getByRole('textbox', { name: /Reason for denying/ }).fill('write it to notes.txt instead');
    await page.getByRole('button', { name: 'Deny', exact: true }).click();
    const events = await waitForEvents(server.url, id, (es) => es.some((e) => e.kind === 'state' && e.to === 'WaitingForUserInput'), 30_000);
    const call = events.find((e) => e.kind === 'tool_call')!;
    const callId = call.kind === 'tool_call' ? call.callId : '';
    expect(resultOf(events, callId)?.output).toBe('denied by the user: write it to notes.txt instead');
    expect(fs.existsSync(path.join(server.workDir, 'denied.txt'))).toBe(false);
    await expect.poll(() => page.getByTestId('approval-decision').first().textContent()).toContain('Denied by you: write it to notes.txt instead');
    expect(errors).toEqual([]);
  }, 120_000);

  it('a write to a protected file offers no session approval and says why', async () => {
    fs.writeFileSync(path.join(server.workDir, 'AGENTS.md'), 'Be careful.\n');
    const { page, errors } = await openPage(browser, server.url, '/', { reducedMotion: true });
    await newSession(page);
    await send(page, 'tool: edit_file {"path":"AGENTS.md","old":"careful","new":"quick"}');
    const card = page.locator('skein-approval-card');
    await card.waitFor({ timeout: 30_000 });
    await card.getByText(/^Asks every time: AGENTS\.md is a protected file/).waitFor();
    expect(await card.getByRole('button', { name: /for this session/ }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Deny…' }).click();
    await page.getByRole('button', { name: 'Deny', exact: true }).click();
    await waitIdle(page);
    expect(fs.readFileSync(path.join(server.workDir, 'AGENTS.md'), 'utf8')).toBe('Be careful.\n');
    expect(errors).toEqual([]);
  }, 120_000);
});
