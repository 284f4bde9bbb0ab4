// Projects in the browser (issue 39, item 1): an editor's request to open a
// folder the server does not work in shows in every tab with Allow / Deny;
// the first answer counts and the other tab's prompt goes away. Under
// "+ New session" → Folder the user adds a folder by its path (the server
// says why it refuses one) and removes it; a new session can work there.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Project, ProjectRequest, SessionSnapshot } from '../../shared/protocol.js';
import { launchBrowser } from '../helpers/browser.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { openPage, sessionId } from '../helpers/ui.js';

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

const SOON = { timeout: 10_000 };
const projects = async () => (await api<{ projects: Project[]; requests: ProjectRequest[] }>(server.url, '/api/projects')).body;
/** What an editor's `skein acp` sends for a folder outside the projects (its session/new). */
const editorAsks = async (folder: string) => (await api<{ request: ProjectRequest }>(server.url, '/api/projects/requests', { body: { folder, from: 'an editor (skein acp)' } })).body.request;
const prompts = (page: Page) => page.getByTestId('project-request');

async function openFolderPicker(page: Page) {
  const where = page.locator('skein-session-list details.where');
  if (!(await where.getAttribute('open'))) await where.locator('summary').click();
  return where;
}

describe('projects in the web UI', () => {
  it("an editor's request shows in every tab; Allow in one adds the folder and takes the prompt away in the other; Deny adds nothing", async () => {
    const desk = await openPage(browser, server.url, '/', { width: 1280 });
    const phone = await openPage(browser, server.url, '/', { width: 390, height: 800 });
    const editorProject = fs.realpathSync(tempDir('e2e-editor-project'));
    const request = await editorAsks(editorProject);
    expect(request.state).toBe('pending');
    for (const tab of [desk.page, phone.page]) {
      await prompts(tab).filter({ hasText: editorProject }).waitFor(SOON);
      expect(await prompts(tab).textContent()).toContain('An editor asks to open a folder');
    }
    await phone.page.getByRole('button', { name: 'Allow', exact: true }).click();
    await expect.poll(() => prompts(desk.page).count(), SOON).toBe(0);
    await expect.poll(() => prompts(phone.page).count(), SOON).toBe(0);
    expect((await projects()).projects.map((p) => p.folder)).toEqual([server.workDir, editorProject]);
    // The desk's folder picker lists it at once (the list socket), and a new session can work there.
    const where = await openFolderPicker(desk.page);
    await where.locator(`li[data-folder="${editorProject}"]`).waitFor(SOON);
    const before = desk.page.url();
    await where.getByLabel('Working folder').fill(editorProject);
    await desk.page.getByRole('button', { name: '+ New session' }).click();
    await desk.page.waitForURL((url) => url.toString() !== before);
    const id = await sessionId(desk.page);
    expect((await api<SessionSnapshot>(server.url, `/api/sessions/${id}`)).body.workspace?.workDir).toBe(editorProject);

    // Denied on the desk: gone from both, nothing added.
    const other = fs.realpathSync(tempDir('e2e-denied-project'));
    await editorAsks(other);
    await prompts(phone.page).filter({ hasText: other }).waitFor(SOON);
    await prompts(desk.page).filter({ hasText: other }).getByRole('button', { name: 'Deny' }).click();
    await expect.poll(() => prompts(phone.page).count(), SOON).toBe(0);
    expect((await projects()).projects.map((p) => p.folder)).not.toContain(other);
    expect(desk.errors).toEqual([]);
    expect(phone.errors).toEqual([]);
    await desk.page.close();
    await phone.page.close();
  });

  it('adds a folder by its path (the home folder, the whole disk and a missing folder refused with the reason), shows a vanished one as missing, and removes one', async () => {
    const { page, errors } = await openPage(browser, server.url, '/', { width: 1280 });
    const where = await openFolderPicker(page);
    const box = where.getByRole('textbox', { name: 'Add folder' });
    for (const [folder, reason] of [
      ['/', 'is the whole disk'],
      [os.homedir(), 'is your home folder itself'],
      [server.dataDir, "skein's data folder"],
      [path.join(server.workDir, 'no-such-folder'), 'is not an existing folder'],
      ['relative/path', 'is not an absolute path'],
    ] as const) {
      await box.fill(folder);
      await where.getByRole('button', { name: 'Add', exact: true }).click();
      await expect.poll(() => where.getByRole('alert').textContent(), SOON).toContain(reason);
    }
    const before = (await projects()).projects.length;
    // A link is kept as the folder it leads to.
    const real = fs.realpathSync(tempDir('e2e-added-project'));
    const link = path.join(tempDir('e2e-links'), 'to-project');
    fs.symlinkSync(real, link);
    await box.fill(link);
    await where.getByRole('button', { name: 'Add', exact: true }).click();
    const added = where.locator(`li[data-folder="${real}"]`);
    await added.waitFor(SOON);
    expect((await projects()).projects.length).toBe(before + 1);
    expect(JSON.parse(fs.readFileSync(path.join(server.dataDir, 'projects.json'), 'utf8')).projects).toContainEqual({ folder: real });
    // The folder the server was started with cannot be removed here (SKEIN_WORKDIR).
    expect(await where.locator(`li[data-folder="${server.workDir}"]`).getByRole('button').count()).toBe(0);
    // A folder that vanished is shown as missing (and no session starts there).
    const gone = fs.realpathSync(tempDir('e2e-gone-project'));
    await api(server.url, '/api/projects', { body: { folder: gone } });
    fs.rmSync(gone, { recursive: true });
    await api(server.url, '/api/projects', { body: { folder: fs.realpathSync(tempDir('e2e-nudge')) } });
    await where.locator(`li[data-folder="${gone}"]`).getByText('missing').waitFor(SOON);
    expect((await api(server.url, '/api/sessions', { body: { folder: gone } })).status).toBe(400);
    // Removed: gone from the list and the file.
    await added.getByRole('button', { name: `Remove ${real} from the projects` }).click();
    await expect.poll(() => added.count(), SOON).toBe(0);
    expect((await projects()).projects.map((p) => p.folder)).not.toContain(real);
    expect((await api(server.url, '/api/sessions', { body: { folder: real } })).status).toBe(400);
    expect(errors).toEqual([]);
    await page.close();
  });
});
