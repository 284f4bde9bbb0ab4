// Session management in Chromium against a real server: rename, archive,
// search, export, fork from a timeline row, delete to the trash and restore,
// the live list, a session with its own worktree and its Changes panel, a
// session on a non-git folder, and removing a dirty worktree only when forced.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { SessionSnapshot } from '../../shared/protocol.js';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { contrastViolations, converse, eventsOf, openPage, sessionId, waitForEvents } from '../helpers/ui.js';

let server: TestServer;
let browser: Browser;
let repo: string;
let plain: string;

const gitIn = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=skein test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' });

beforeAll(async () => {
  repo = tempDir('e2e-repo');
  gitIn(repo, 'init', '--quiet');
  fs.writeFileSync(path.join(repo, 'README.md'), '# demo\n\nThe first line.\n');
  fs.writeFileSync(path.join(repo, 'app.js'), 'console.log("hello");\n');
  gitIn(repo, 'add', '.');
  gitIn(repo, 'commit', '--quiet', '-m', 'start');
  plain = tempDir('e2e-plain');
  server = await startTestServer({ SKEIN_WORKDIR: `${plain},${repo}` });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const list = (page: Page) => page.locator('skein-session-list');
const row = (page: Page, id: string) => list(page).locator(`li[data-id="${id}"]`);
const snapshot = async (id: string) => (await api<SessionSnapshot>(server.url, `/api/sessions/${id}`)).body;

async function menu(page: Page, id: string, item: string) {
  await row(page, id).locator('summary').click();
  await row(page, id).getByRole('menuitem', { name: item }).click();
}

async function newSessionIn(page: Page, folder: string, worktree: boolean): Promise<string> {
  const before = page.url();
  const where = list(page).locator('details.where');
  if (!(await where.getAttribute('open'))) await where.locator('summary').click();
  await where.getByLabel('Working folder').fill(folder);
  const box = where.getByLabel('Own git worktree');
  if ((await box.isChecked()) !== worktree) await box.click();
  await list(page).getByRole('button', { name: '+ New session' }).click();
  await page.waitForURL((url) => url.toString() !== before);
  await page.getByText('Say something to start').waitFor();
  return sessionId(page);
}

describe('session management in the browser', () => {
  it('renames, archives, searches, exports, forks from a row, deletes and restores', async () => {
    const { page, errors } = await openPage(browser, server.url);
    const id = await sessionId(page);
    await converse(page, server.url, 'echo: first words here');
    await converse(page, server.url, 'bash: echo second-turn');
    await row(page, id).locator('.title', { hasText: 'echo: first words here' }).waitFor();

    // Rename in place.
    await menu(page, id, 'Rename');
    const input = list(page).getByLabel('New title');
    await input.fill('Renamed in the UI');
    await input.press('Enter');
    await row(page, id).locator('.title', { hasText: 'Renamed in the UI' }).waitFor();
    expect((await snapshot(id)).title).toBe('Renamed in the UI');
    await page.locator('header h1', { hasText: 'Renamed in the UI' }).waitFor();

    // Search over titles and user messages.
    const search = list(page).getByRole('searchbox', { name: 'Search sessions' });
    await search.fill('second-turn');
    await row(page, id).waitFor();
    await search.fill('no-such-words-anywhere');
    await list(page).getByText('No session matches.').waitFor();
    await search.fill('');
    await row(page, id).waitFor();

    // Archive: hidden, the toggle shows it marked, unarchive.
    await menu(page, id, 'Archive');
    await row(page, id).waitFor({ state: 'detached' });
    expect((await snapshot(id)).archived).toBe(true);
    await list(page).getByLabel('Show archived').check();
    await row(page, id).locator('.tag', { hasText: 'archived' }).waitFor();
    await menu(page, id, 'Unarchive');
    await row(page, id).locator('.tag').waitFor({ state: 'detached' });
    expect((await snapshot(id)).archived).toBeUndefined();
    await list(page).getByLabel('Show archived').uncheck();

    // Export: the menu's links give the Markdown transcript and the log itself.
    await row(page, id).locator('summary').click();
    const mdHref = await row(page, id).getByRole('menuitem', { name: 'Export Markdown' }).getAttribute('href');
    const jsonlHref = await row(page, id).getByRole('menuitem', { name: 'Export JSONL log' }).getAttribute('href');
    await row(page, id).locator('summary').click();
    const [md, jsonl] = await page.evaluate(async (hrefs) => Promise.all(hrefs.map(async (h) => (await fetch(h!)).text())), [mdHref, jsonlHref]);
    expect(md).toContain('# Renamed in the UI');
    expect(md).toContain('## User\n\nbash: echo second-turn');
    expect(md).toContain('**Tool `bash`**');
    const file = path.join(server.dataDir, 'sessions', `${id}.jsonl`);
    expect(jsonl).toBe(fs.readFileSync(file, 'utf8'));

    // Fork from the first answer's row menu.
    const hash = crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
    const firstAnswer = (await eventsOf(server.url, id)).find((e) => e.kind === 'agent')!;
    const agentRow = page.locator(`skein-timeline .row[data-seq="${firstAnswer.seq}"]`);
    await agentRow.hover();
    await agentRow.locator('summary').click();
    await agentRow.getByRole('menuitem', { name: 'Fork from here' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith(id));
    const forkId = await sessionId(page);
    expect((await snapshot(forkId)).forkOf).toEqual({ session: id, seq: firstAnswer.seq });
    await page.locator('skein-agent-message', { hasText: 'first words here' }).waitFor();
    expect(await page.locator('skein-tool-card').count()).toBe(0);
    await converse(page, server.url, 'echo: in the fork');
    expect(crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex')).toBe(hash);

    // Delete the fork (to the trash), then restore it from the trash view.
    await menu(page, forkId, 'Delete…');
    const dialog = page.getByRole('dialog');
    await dialog.getByText('It moves to the trash').waitFor();
    expect(await contrastViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await row(page, forkId).waitFor({ state: 'detached' });
    expect((await api(server.url, `/api/sessions/${forkId}`)).status).toBe(404);
    await page.getByRole('button', { name: 'Undo' }).waitFor(); // the next session opened, with an Undo
    await list(page).getByRole('checkbox', { name: 'Trash' }).check();
    const trashed = list(page).locator(`.trash li[data-id="${forkId}"]`);
    await trashed.waitFor();
    expect(await contrastViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await contrastViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
    await trashed.getByRole('button', { name: 'Restore' }).click();
    await page.waitForURL((url) => url.pathname.endsWith(forkId));
    await page.locator('skein-agent-message', { hasText: 'in the fork' }).waitFor();
    expect((await api(server.url, `/api/sessions/${forkId}`)).status).toBe(200);
    await list(page).getByRole('checkbox', { name: 'Trash' }).uncheck();
    await row(page, forkId).waitFor();
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('updates another session\'s state in the list live, including the end of a compaction', async () => {
    const other = (await api<{ id: string }>(server.url, '/api/sessions', { body: {} })).body.id;
    // A turn with something worth folding (a compaction of a few words calls no summariser and ends at once).
    await api(server.url, `/api/sessions/${other}/messages`, { body: { text: 'big: 900' } });
    await waitForEvents(server.url, other, (es) => es.some((e) => e.kind === 'agent' && e.endOfTurn === true));
    const { page } = await openPage(browser, server.url, `/s/${other}`);
    await list(page).locator(`li[data-id="${other}"]`).waitFor();
    const mine = await newSessionIn(page, plain, false);
    expect(mine).not.toBe(other);
    const busy = row(page, other).getByTestId('list-state');
    await api(server.url, `/api/sessions/${other}/messages`, { body: { text: '/compact delay: 1500' } });
    await busy.filter({ hasText: /compact/i }).waitFor({ timeout: 20_000 });
    // Well before the list's minute refresh: the end arrives over the list channel.
    await busy.waitFor({ state: 'detached', timeout: 20_000 });
    await page.close();
  });

  it('shows the folder and the branch (not the worktree\'s path) and the Changes panel of a session with its own worktree; a dirty worktree is removed only when forced', async () => {
    const { page, errors } = await openPage(browser, server.url);
    const id = await newSessionIn(page, repo, true);
    const ws = (await snapshot(id)).workspace!;
    await page.getByTestId('branch').filter({ hasText: `skein/${id}` }).waitFor();
    // The header names the folder asked for and the branch, never skein's own worktree path.
    await page.getByTestId('workspace').filter({ hasText: ws.folder }).waitFor();
    expect(ws.workDir).not.toBe(ws.folder);
    const header = page.locator('skein-app header');
    for (const inside of [ws.worktree!, ws.workDir]) {
      expect(await header.textContent()).not.toContain(inside);
      expect(await header.evaluate((el, p) => [...el.querySelectorAll('[title]')].some((t) => t.getAttribute('title')!.includes(p)), inside)).toBe(false);
    }
    await page.getByRole('button', { name: 'Changes' }).click();
    const panel = page.getByTestId('changes');
    await panel.getByText('No changes since the session started.').waitFor();

    // A tool run refreshes the panel by itself.
    await converse(page, server.url, 'bash: printf "The second line.\\n" >> README.md && printf "export const x = 1;\\n" > notes.js && rm app.js');
    await panel.locator('details[data-path="notes.js"]').waitFor();
    expect(await panel.locator('details').evaluateAll((ds) => ds.map((d) => d.getAttribute('data-path')))).toEqual(['app.js', 'notes.js', 'README.md'].sort((a, b) => a.localeCompare(b)));
    const readme = panel.locator('details[data-path="README.md"]');
    expect(await readme.locator('.add').allInnerTexts()).toContain('+The second line.');
    expect(await readme.locator('.st').innerText()).toBe('M');
    expect(await panel.locator('details[data-path="notes.js"] .st').innerText()).toBe('U');
    expect(await panel.locator('details[data-path="app.js"] .del').allInnerTexts()).toContain('-console.log("hello");');
    await panel.getByText('3 files changed').waitFor();
    // The repository's own folder is untouched.
    expect(fs.readFileSync(path.join(repo, 'README.md'), 'utf8')).not.toContain('second line');
    await page.screenshot({ path: screenshotPath('changes-panel') });

    // Delete with its worktree: refused while it has uncommitted work, until forced.
    await page.getByRole('button', { name: 'Back to timeline' }).click();
    await menu(page, id, 'Delete…');
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/Also remove its worktree/).check();
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await dialog.getByText(/uncommitted changes \(3 files/).waitFor();
    expect(fs.existsSync(ws.worktree!)).toBe(true);
    expect((await api(server.url, `/api/sessions/${id}`)).status).toBe(200);
    await dialog.getByRole('button', { name: /Remove anyway/ }).click();
    await row(page, id).waitFor({ state: 'detached' });
    expect(fs.existsSync(ws.worktree!)).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a session on a non-git folder shows its folder, no branch, and still works', async () => {
    const { page, errors } = await openPage(browser, server.url);
    const id = await newSessionIn(page, plain, false);
    await page.getByTestId('workspace').filter({ hasText: plain }).waitFor();
    expect(await page.getByTestId('branch').count()).toBe(0);
    const events = await converse(page, server.url, 'bash: pwd');
    expect(events.find((e) => e.kind === 'tool_result')).toMatchObject({ output: `exit code: 0\n${plain}` });
    await page.getByRole('button', { name: 'Changes' }).click();
    await page.getByTestId('changes').getByText('is not in a git repository').waitFor();
    expect((await snapshot(id)).workspace).toEqual({ folder: plain, workDir: plain });
    expect(errors).toEqual([]);
    await page.close();
  });
});
