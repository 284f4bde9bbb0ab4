// Issue 14's closing picture: one session, in Chromium, that keeps a plan,
// searches the tree with grep, and calls an MCP tool that waits for the
// user's approval (SKEIN_APPROVAL=on-write) until Approve is clicked. The
// screenshot is kept in test/e2e/screenshots/ for the closing note.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { decisionOf } from '../helpers/approvals.js';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { stdioEntry, writeTrustedMcpJson } from '../helpers/mcp.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { converse, newSession, openPage, send, waitForEvents, waitIdle } from '../helpers/ui.js';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  const workDir = tempDir('toolset');
  fs.mkdirSync(path.join(workDir, 'src'));
  fs.writeFileSync(path.join(workDir, 'src', 'parse.ts'), 'export function parseConfig(text: string) {\n  return JSON.parse(text);\n}\n');
  fs.writeFileSync(path.join(workDir, 'src', 'main.ts'), "import { parseConfig } from './parse.js';\nparseConfig('{}');\n");
  const dataDir = tempDir('toolset-data');
  writeTrustedMcpJson(dataDir, workDir, { local: stdioEntry() });
  server = await startTestServer({ SKEIN_APPROVAL: 'on-write' }, { dataDir, workDir });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('one session with the whole toolset', () => {
  it('keeps a plan, greps, and runs an MCP tool once it is approved', { timeout: 180_000 }, async () => {
    const { page, errors } = await openPage(browser, server.url, '/', { reducedMotion: true, height: 1000 });
    const id = await newSession(page);
    await page.getByTestId('mcp-servers').locator('li.server[data-server="local"]').getByTestId('mcp-state').filter({ hasText: 'ready' }).waitFor({ timeout: 60_000 });

    // The plan and grep are read-only: no approval asked.
    await converse(page, server.url, 'plan: [x] find the parser; [>] ask the MCP server; [ ] report');
    await page.getByTestId('plan').waitFor();
    await converse(page, server.url, 'grep: parseConfig');
    const grepCard = page.locator('skein-tool-card', { has: page.locator('.name', { hasText: 'grep' }) });
    await grepCard.getByText('src/parse.ts', { exact: false }).first().waitFor();

    // An MCP tool under on-write waits for the user.
    await send(page, 'mcp: local echo {"text":"approved from the browser"}');
    const card = page.locator('skein-approval-card');
    await card.waitFor({ timeout: 60_000 });
    await page.getByTestId('agent-state').filter({ hasText: 'WaitingForApproval' }).waitFor();
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    const events = await waitForEvents(server.url, id, (es) => es.filter((e) => e.kind === 'state' && e.to === 'WaitingForUserInput').length >= 3, 60_000);
    await waitIdle(page);
    const call = events.findLast((e) => e.kind === 'tool_call')!;
    expect(call.kind === 'tool_call' && call.name).toBe('mcp__local__echo');
    expect(call.kind === 'tool_call' && decisionOf(events, call.callId)).toMatchObject({ decision: 'approve', by: 'user' });
    // The plan and grep asked nothing.
    expect(events.filter((e) => e.kind === 'approval_request')).toHaveLength(1);
    const mcpCard = page.locator('skein-tool-card', { has: page.locator('.name', { hasText: 'mcp__local__echo' }) });
    await mcpCard.getByText('echo: approved from the browser').first().waitFor();
    await page.getByTestId('plan').waitFor();

    await page.screenshot({ path: screenshotPath('one-session-toolset') });
    fs.mkdirSync('test/e2e/screenshots', { recursive: true });
    fs.copyFileSync(screenshotPath('one-session-toolset'), 'test/e2e/screenshots/one-session-toolset.png');
    expect(errors).toEqual([]);
  });
});
