// A project's agent file (.skein/agents/NAME.md) in headless Chromium: the
// trust prompt of .mcp.json shows the agent it would define (its tools,
// model, mode and instructions); Trust records that content; a later change
// is asked about again with the diff from the trusted content.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectFileTrust } from '../../shared/protocol.js';
import { launchBrowser } from '../helpers/browser.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { openPage } from '../helpers/ui.js';

let server: TestServer;
let browser: Browser;
let file: string;
const CONTENT = '---\nname: reviewer\ndescription: reviews code\ntools: read_file, grep\nmode: plan\n---\nYou review code and list problems.\n';

beforeAll(async () => {
  const workDir = tempDir('agent-trust-ui');
  file = path.join(workDir, '.skein', 'agents', 'reviewer.md');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, CONTENT);
  server = await startTestServer({}, { workDir });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const agentFile = async () => (await api<{ files: ProjectFileTrust[] }>(server.url, '/api/trust')).body.files.find((f) => f.file === '.skein/agents/reviewer.md');

describe("a project's agent file in the trust prompt", () => {
  it('shows the agent it would define, is trusted on Trust, and after a change shows the diff', { timeout: 120_000 }, async () => {
    const { page, errors } = await openPage(browser, server.url);
    const prompt = page.getByTestId('trust-prompt');
    await prompt.waitFor();
    expect(await prompt.getByRole('heading').textContent()).toBe('This project’s agent file .skein/agents/reviewer.md wants to define an agent');
    const agent = prompt.getByTestId('trust-agent');
    expect(await agent.textContent()).toMatch(/reviewer: reviews code[\s\S]*tools: read_file, grep[\s\S]*mode: plan[\s\S]*You review code and list problems\./);
    expect((await agentFile())?.status).toBe('untrusted');

    await prompt.getByRole('button', { name: 'Trust' }).click();
    await prompt.waitFor({ state: 'detached' });
    expect(await agentFile()).toMatchObject({ status: 'trusted', content: CONTENT });

    fs.writeFileSync(file, CONTENT.replace('list problems', 'run anything'));
    await page.reload();
    await prompt.waitFor();
    expect(await prompt.getByRole('heading').textContent()).toMatch(/agent file \.skein\/agents\/reviewer\.md changed since you decided on it/);
    const diff = prompt.getByTestId('trust-diff');
    await diff.locator('[data-kind="del"]', { hasText: 'list problems' }).waitFor();
    await diff.locator('[data-kind="add"]', { hasText: 'run anything' }).waitFor();
    expect(errors).toEqual([]);
  });
});
