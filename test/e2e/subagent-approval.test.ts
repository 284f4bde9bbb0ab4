// A child's call waiting for approval, answered from the parent's task card
// (issue 42): the card shows the child's call as the approval card words it,
// its Approve button sends the approval frame with the child's callId through
// the parent's socket, the child's call runs, and both views show it decided.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { axeViolations, newSession, openPage, send, sessionId, waitForEvents } from '../helpers/ui.js';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({ SKEIN_MODEL: 'predictable', SKEIN_APPROVAL: 'on-write' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const POLL = { timeout: 60_000 };
const task = (prompt: string) => `tool: task ${JSON.stringify({ description: 'write a file', prompt })}`;

describe("a child's approval in the parent's task card", () => {
  it('Approve in the task card runs the child’s call; both views show it decided', async () => {
    const file = path.join(server.workDir, 'from-the-parent.txt');
    const { page, errors } = await openPage(browser, server.url, '/', { width: 1280, height: 900, reducedMotion: true });
    const parent = await newSession(page);
    await send(page, task('tool: write_file {"path":"from-the-parent.txt","content":"approved in the parent\\n"}'));

    // The child's waiting call, in the parent's card: its tool, its preview, the three answers.
    const card = page.locator('skein-task-card');
    const ask = card.getByTestId('task-approval');
    await ask.waitFor({ timeout: 60_000 });
    expect(await ask.locator('.title').textContent()).toBe('write_file waits for your approval');
    await expect.poll(() => ask.getByLabel('Diff to approve').textContent(), POLL).toContain('+approved in the parent');
    expect(await ask.getByRole('button', { name: 'Approve writes to from-the-parent.txt for this session' }).count()).toBe(1);
    expect(await ask.getByRole('button', { name: 'Deny…' }).count()).toBe(1);
    expect(fs.existsSync(file)).toBe(false);
    expect(await axeViolations(page)).toEqual([]);

    await ask.getByRole('button', { name: 'Approve', exact: true }).click();

    // The child's call ran; the card says how it was decided and the buttons are gone.
    await expect.poll(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8'), POLL).toBe('approved in the parent\n');
    await expect.poll(() => card.getByTestId('task-approval-decision').textContent().catch(() => ''), POLL).toBe('write_file in the subtask: Approved by you');
    expect(await card.getByTestId('task-approval').count()).toBe(0);
    await expect.poll(() => card.getByTestId('task-state').textContent(), POLL).toBe('answered');
    // Still said once the child has finished.
    expect(await card.getByTestId('task-approval-decision').textContent()).toBe('write_file in the subtask: Approved by you');

    // The child's own log and view: decided by the user, no card left waiting.
    const events = await waitForEvents(server.url, parent, (es) => es.some((e) => e.kind === 'subagent' && e.phase === 'finished'), 60_000);
    const started = events.find((e) => e.kind === 'subagent');
    if (started?.kind !== 'subagent') throw new Error('no subagent event');
    const childEvents = await waitForEvents(server.url, started.child, (es) => es.some((e) => e.kind === 'approval_decision'), 30_000);
    expect(childEvents.find((e) => e.kind === 'approval_decision')).toMatchObject({ name: 'write_file', decision: 'approve', by: 'user' });
    await card.getByTestId('task-open').click();
    await page.waitForURL((url) => url.pathname === `/s/${started.child}`);
    expect(await sessionId(page)).toBe(started.child);
    await expect.poll(() => page.getByTestId('approval-decision').first().textContent().catch(() => ''), POLL).toContain('Approved by you');
    expect(await page.locator('skein-approval-card').count()).toBe(0);
    expect(errors).toEqual([]);
  }, 180_000);

  it('Deny with a reason in the task card: the child’s call never runs and the child reads why', async () => {
    const file = path.join(server.workDir, 'denied-in-the-parent.txt');
    const { page, errors } = await openPage(browser, server.url, '/', { width: 1280, height: 900, reducedMotion: true });
    const parent = await newSession(page);
    await send(page, task('tool: write_file {"path":"denied-in-the-parent.txt","content":"never\\n"}'));
    const card = page.locator('skein-task-card');
    const ask = card.getByTestId('task-approval');
    await ask.waitFor({ timeout: 60_000 });
    await ask.getByRole('button', { name: 'Deny…' }).click();
    await ask.getByLabel('Reason for denying (optional, the model reads it)').fill('not this file');
    await ask.getByRole('button', { name: 'Deny', exact: true }).click();

    await expect.poll(() => card.getByTestId('task-approval-decision').textContent().catch(() => ''), POLL).toBe('write_file in the subtask: Denied by you: not this file');
    expect(await card.getByTestId('task-approval').count()).toBe(0);
    const events = await waitForEvents(server.url, parent, (es) => es.some((e) => e.kind === 'subagent' && e.phase === 'finished'), 60_000);
    const started = events.find((e) => e.kind === 'subagent');
    if (started?.kind !== 'subagent') throw new Error('no subagent event');
    const childEvents = await waitForEvents(server.url, started.child, (es) => es.some((e) => e.kind === 'tool_result'), 30_000);
    expect(childEvents.find((e) => e.kind === 'approval_decision')).toMatchObject({ decision: 'deny', by: 'user', reason: 'not this file' });
    expect(JSON.stringify(childEvents.find((e) => e.kind === 'tool_result'))).toContain('not this file');
    expect(fs.existsSync(file)).toBe(false);
    expect(errors).toEqual([]);
  }, 180_000);
});
