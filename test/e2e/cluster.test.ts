// Two skein instances on one PostgreSQL database, in headless Chromium: a page
// on the instance that does not run the session drives it (its messages are
// forwarded, the answers stream back), and once no instance can run it from
// there, the page says why and its chat box is off.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { SessionSnapshot } from '../../shared/protocol.js';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { startTempPostgres, type TempPostgres } from '../helpers/postgres.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { openPage, send } from '../helpers/ui.js';
import { until } from '../helpers/until.js';

let postgres: TempPostgres;
let browser: Browser;
const servers: TestServer[] = [];
beforeAll(async () => {
  postgres = await startTempPostgres();
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  for (const s of servers) await s.close().catch(() => undefined);
  postgres?.stop();
});

describe('two instances in the browser', () => {
  it('a page on the other instance drives the session; when nobody can run it from there, the page says why', async () => {
    const url = await postgres.database();
    const rootA = tempDir('root-a');
    const folder = path.join(rootA, 'project');
    fs.mkdirSync(folder);
    const a = await startTestServer({ SKEIN_DATABASE_URL: url, SKEIN_LEASE_TIMEOUT_MS: '3000' }, { workDir: rootA });
    const b = await startTestServer({ SKEIN_DATABASE_URL: url, SKEIN_LEASE_TIMEOUT_MS: '3000' }, { workDir: tempDir('root-b') });
    servers.push(a, b);
    const { body } = await api<{ id: string }>(a.url, '/api/sessions', { body: { folder } });
    await until(async () => (await api(b.url, `/api/sessions/${body.id}`)).status === 200, 'B to know the session');

    const { page, errors } = await openPage(browser, b.url, `/s/${body.id}`);
    await send(page, 'echo: **typed on B**');
    await page.locator('skein-agent-message', { hasText: 'typed on B' }).waitFor();
    expect((await api<SessionSnapshot>(b.url, `/api/sessions/${body.id}`)).body.runsElsewhere).toMatch(/^runs on instance/);

    // A stops: B cannot reach the session's folder. A reload shows why, and the box is off.
    await a.close();
    servers.splice(servers.indexOf(a), 1);
    await until(async () => (await api<SessionSnapshot>(b.url, `/api/sessions/${body.id}`)).body.readOnly, 'B to say it is read-only');
    await page.reload();
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.waitFor();
    await page.locator('skein-chat-input .hint', { hasText: `Read-only here: the session's folder ${folder} is not within this instance's reach` }).waitFor();
    expect(await box.isDisabled()).toBe(true);
    // The history is still all there.
    await page.locator('skein-agent-message', { hasText: 'typed on B' }).waitFor();
    await page.screenshot({ path: screenshotPath('cluster-read-only') });
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
