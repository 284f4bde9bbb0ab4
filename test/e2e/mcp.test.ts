// MCP servers in headless Chromium: the sidebar lists them with their state
// and tools (a skipped one with its reason), the predictable model calls an
// MCP tool whose card shows its result, and a server that crashes mid-call
// shows in the timeline, the sidebar and the gauge card, then comes back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { startHttpMcpServer, stdioEntry, writeTrustedMcpJson, type HttpMcpServer } from '../helpers/mcp.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { axeViolations, converse, newSession, openPage } from '../helpers/ui.js';

let server: TestServer;
let remote: HttpMcpServer;
let browser: Browser;

beforeAll(async () => {
  remote = await startHttpMcpServer();
  const workDir = tempDir('work');
  const dataDir = tempDir('data');
  writeTrustedMcpJson(dataDir, workDir, { local: stdioEntry(), remote: { type: 'http', url: remote.url } });
  server = await startTestServer({}, { dataDir, workDir });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await remote?.close();
});

describe('MCP servers in the UI', () => {
  it('lists the servers and their tools, runs an MCP tool, and shows a crash and the restart', { timeout: 120_000 }, async () => {
    const { page, errors } = await openPage(browser, server.url);
    await newSession(page);
    const panel = page.getByTestId('mcp-servers');
    const local = panel.locator('li.server[data-server="local"]');
    await local.getByTestId('mcp-state').filter({ hasText: 'ready' }).waitFor();
    await panel.locator('li.server[data-server="remote"]').getByTestId('mcp-state').filter({ hasText: 'ready' }).waitFor();
    await local.locator('summary').click();
    await local.getByText('mcp__local__echo', { exact: true }).waitFor();
    expect(await local.locator('.why').first().textContent()).toMatch(/skipped: its inputSchema has type "string"/);

    await converse(page, server.url, 'mcp: local echo {"text":"from the browser"}');
    const card = page.locator('skein-tool-card', { hasText: 'mcp__local__echo' });
    await card.waitFor();
    await card.getByText('echo: from the browser').first().waitFor();

    // The gauge card says how many servers are ready.
    await page.locator('skein-token-gauge .wrap').hover();
    expect(await page.getByTestId('gauge-mcp').textContent()).toMatch(/2 of 2 ready/);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('mcp-tools') });

    await converse(page, server.url, 'mcp: local crash {}');
    await page.locator('.notice.retry', { hasText: 'MCP server local:' }).first().waitFor();
    // The session's timeline opened with each server's state; a second "ready" line is the restart.
    await page.locator('.notice.info', { hasText: 'MCP server local: ready' }).nth(1).waitFor({ timeout: 30_000 });
    await local.getByTestId('mcp-state').filter({ hasText: 'ready · 1 restart' }).waitFor();
    await page.screenshot({ path: screenshotPath('mcp-restart') });
    expect(errors).toEqual([]);
  });
});
