// Project trust in headless Chromium: a working folder's .mcp.json that was
// never trusted is shown with what it would run (the command as written,
// `${VAR}` and all); Trust starts its server without a restart (the sidebar
// lists it, ready, with its tools); a later change is shown with the diff
// from the trusted content, and Ignore is remembered for that content.
import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectFileTrust } from '../../shared/protocol.js';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { stdioEntry, writeMcpJson } from '../helpers/mcp.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { axeViolations, openPage } from '../helpers/ui.js';

let server: TestServer;
let browser: Browser;
let file: string;

beforeAll(async () => {
  const workDir = tempDir('trust-ui');
  file = writeMcpJson(workDir, { local: stdioEntry({ GREETING: '${GITHUB_TOKEN}' }) });
  server = await startTestServer({}, { workDir });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('project trust in the UI', () => {
  it('shows what the .mcp.json would run, starts it on Trust, shows the diff of a change, and remembers Ignore', { timeout: 120_000 }, async () => {
    const { page, errors } = await openPage(browser, server.url);
    const prompt = page.getByTestId('trust-prompt');
    await prompt.waitFor();
    expect(await prompt.getByRole('heading').textContent()).toMatch(/wants to run programs/);
    expect(await prompt.getByTestId('trust-command').textContent()).toMatch(/node.* --import .*stdio-server\.ts$/);
    await prompt.getByText("GREETING='${GITHUB_TOKEN}'").waitFor();
    // Nothing runs before the decision.
    expect(await page.getByTestId('mcp-servers').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('trust-prompt') });

    await prompt.getByRole('button', { name: 'Trust' }).click();
    const local = page.getByTestId('mcp-servers').locator('li.server[data-server="local"]');
    await local.getByTestId('mcp-state').filter({ hasText: 'ready' }).waitFor();
    await local.locator('summary').click();
    await local.getByText('mcp__local__echo', { exact: true }).waitFor();
    await prompt.waitFor({ state: 'detached' });

    // The file changes: after a reload it is asked about again, with the diff from what was trusted.
    writeMcpJson(server.workDir, { local: stdioEntry({ GREETING: 'changed' }) });
    await page.reload();
    await prompt.waitFor();
    expect(await prompt.getByRole('heading').textContent()).toMatch(/changed since you decided/);
    const diff = prompt.getByTestId('trust-diff');
    await diff.locator('[data-kind="del"]', { hasText: '${GITHUB_TOKEN}' }).waitFor();
    await diff.locator('[data-kind="add"]', { hasText: '"changed"' }).waitFor();
    await page.screenshot({ path: screenshotPath('trust-changed') });

    await prompt.getByRole('button', { name: 'Ignore' }).click();
    await prompt.waitFor({ state: 'detached' });
    const { body } = await api<{ files: ProjectFileTrust[] }>(server.url, '/api/trust');
    expect(body.files).toMatchObject([{ status: 'ignored', content: fs.readFileSync(file, 'utf8') }]);
    await page.reload();
    await page.getByTestId('agent-state').waitFor({ state: 'attached' });
    expect(await prompt.count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
