// The worktree workflow in the browser: with SKEIN_WORKTREE=on the new
// session's "Own git worktree" box starts ticked; its Changes panel commits,
// merges into main, applies a patch to the main checkout, discards after a
// confirm, lists a merge's conflicting files (nothing lost), and pushes once
// the repository has a remote (and stops a push to a silent one on Cancel
// push). The header names the branch, never the worktree's path. A session
// sharing the folder says its list is its own.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { SessionSnapshot } from '../../shared/protocol.js';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { converse, eventsOf, openPage, sessionId } from '../helpers/ui.js';

let server: TestServer;
let browser: Browser;
let repo: string;

const gitIn = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=skein test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' });

beforeAll(async () => {
  repo = tempDir('e2e-wt-repo');
  gitIn(repo, 'init', '--quiet');
  fs.writeFileSync(path.join(repo, 'README.md'), '# demo\n\nThe first line.\n');
  gitIn(repo, 'add', '.');
  gitIn(repo, 'commit', '--quiet', '-m', 'start');
  server = await startTestServer({ SKEIN_WORKDIR: repo, SKEIN_WORKTREE: 'on' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const list = (page: Page) => page.locator('skein-session-list');
const snapshot = async (id: string) => (await api<SessionSnapshot>(server.url, `/api/sessions/${id}`)).body;

/** "+ New session" with the box as the server's default left it, or set to `worktree`. */
async function newSession(page: Page, worktree?: boolean): Promise<{ id: string; ticked: boolean }> {
  const before = page.url();
  const where = list(page).locator('details.where');
  if (!(await where.getAttribute('open'))) await where.locator('summary').click();
  const box = where.getByLabel('Own git worktree');
  // The default comes from GET /api/settings: wait for it to land before reading the box.
  if (worktree === undefined) await expect.poll(() => box.isChecked(), { timeout: 10_000 }).toBe(true);
  const ticked = await box.isChecked();
  if (worktree !== undefined && ticked !== worktree) await box.click();
  await list(page).getByRole('button', { name: '+ New session' }).click();
  await page.waitForURL((url) => url.toString() !== before);
  await page.getByText('Say something to start').waitFor();
  return { id: await sessionId(page), ticked };
}

async function openChanges(page: Page) {
  await page.getByRole('button', { name: 'Changes' }).click();
  return page.getByTestId('changes');
}

describe('the worktree workflow in the Changes panel', () => {
  it('commits, merges, applies, discards, shows conflicts and pushes; the header names the branch', async () => {
    const { page, errors } = await openPage(browser, server.url, '/', { width: 1280, height: 900 });
    const { id, ticked } = await newSession(page);
    expect(ticked).toBe(true);
    const ws = (await snapshot(id)).workspace!;
    expect(ws.worktree).toBe(path.join(server.dataDir, 'worktrees', id));
    // The header: the branch, never the worktree's path.
    await page.getByTestId('branch').filter({ hasText: `skein/${id}` }).waitFor();
    const header = page.locator('skein-app header');
    expect(await header.textContent()).not.toContain(ws.worktree!);
    expect(await header.evaluate((el, p) => [...el.querySelectorAll('[title]')].some((t) => t.getAttribute('title')!.includes(p)), ws.worktree!)).toBe(false);

    // Commit, then merge into main.
    await converse(page, server.url, 'bash: echo hello > hello.txt');
    const panel = await openChanges(page);
    const actions = panel.getByTestId('worktree-actions');
    await actions.getByText('1 uncommitted file').waitFor();
    expect(await actions.getByRole('button', { name: /^Push/ }).count()).toBe(0);
    const commit = actions.getByRole('button', { name: 'Commit', exact: true });
    expect(await commit.isDisabled()).toBe(true);
    await actions.getByLabel('Commit summary').fill('Add hello');
    await commit.click();
    await actions.getByTestId('worktree-outcome').filter({ hasText: `Committed 1 file on skein/${id}` }).waitFor();
    expect(gitIn(repo, 'log', '-1', '--format=%s', `skein/${id}`).trim()).toBe('Add hello');
    await actions.getByText('1 commit ·').waitFor();
    await actions.getByRole('button', { name: 'Merge into main' }).click();
    await actions.getByTestId('worktree-outcome').filter({ hasText: `Merged skein/${id} into main` }).waitFor();
    expect(fs.readFileSync(path.join(repo, 'hello.txt'), 'utf8')).toBe('hello\n');

    // Apply as a patch: uncommitted work lands in the main checkout, staged.
    await converse(page, server.url, 'bash: echo patched > patch.txt');
    await panel.locator('details[data-path="patch.txt"]').waitFor();
    await actions.getByRole('button', { name: 'Apply as patch' }).click();
    await actions.getByTestId('worktree-outcome').filter({ hasText: 'Applied the session' }).waitFor();
    expect(fs.readFileSync(path.join(repo, 'patch.txt'), 'utf8')).toBe('patched\n');
    gitIn(repo, 'commit', '--quiet', '-m', 'the applied patch');

    // Discard: only after the confirm.
    await actions.getByRole('button', { name: 'Discard…' }).click();
    const confirm = actions.getByRole('alertdialog');
    await confirm.getByText('cannot be undone').waitFor();
    await confirm.getByRole('button', { name: 'Keep them' }).click();
    expect(fs.existsSync(path.join(ws.worktree!, 'patch.txt'))).toBe(true);
    await actions.getByRole('button', { name: 'Discard…' }).click();
    await actions.getByRole('alertdialog').getByRole('button', { name: 'Discard everything' }).click();
    await actions.getByTestId('worktree-outcome').filter({ hasText: 'Discarded the session' }).waitFor();
    expect(fs.existsSync(path.join(ws.worktree!, 'patch.txt'))).toBe(false);
    await panel.getByText('No changes since the session started.').waitFor();

    // A merge that conflicts: aborted, the file named, both sides as they were.
    await converse(page, server.url, "bash: sed -i 's/The first line./The first line, by the session./' README.md");
    await actions.getByLabel('Commit summary').fill('Reword the first line');
    await commit.click();
    await actions.getByTestId('worktree-outcome').filter({ hasText: 'Committed 1 file' }).waitFor();
    fs.writeFileSync(path.join(repo, 'README.md'), '# demo\n\nThe first line, on main.\n');
    gitIn(repo, 'commit', '--quiet', '-am', 'main rewords it too');
    const mainHead = gitIn(repo, 'rev-parse', 'HEAD').trim();
    await actions.getByRole('button', { name: 'Merge into main' }).click();
    const conflicts = actions.getByTestId('conflicts');
    await conflicts.getByText('README.md').waitFor();
    await actions.getByRole('alert').filter({ hasText: 'the merge was aborted' }).waitFor();
    expect(gitIn(repo, 'rev-parse', 'HEAD').trim()).toBe(mainHead);
    expect(gitIn(repo, 'status', '--porcelain')).toBe('');
    expect(fs.readFileSync(path.join(ws.worktree!, 'README.md'), 'utf8')).toContain('by the session');
    await page.screenshot({ path: screenshotPath('worktree-actions-1280') });
    await page.setViewportSize({ width: 390, height: 844 });
    await conflicts.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('worktree-actions-390') });
    // Nothing of the panel is wider than the phone's screen.
    expect(await actions.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 900 });

    // A remote appears: Push shows, and pushes the branch.
    const bare = tempDir('e2e-wt-bare');
    gitIn(bare, 'init', '--quiet', '--bare');
    gitIn(repo, 'remote', 'add', 'origin', bare);
    await page.getByRole('button', { name: 'Back to timeline' }).click();
    await openChanges(page);
    await actions.getByRole('button', { name: 'Push to origin' }).click();
    await actions.getByTestId('worktree-outcome').filter({ hasText: `Pushed skein/${id}` }).waitFor();
    expect(gitIn(bare, 'rev-parse', `refs/heads/skein/${id}`).trim()).toBe(gitIn(repo, 'rev-parse', `skein/${id}`).trim());

    // Each action is in the timeline, with its commit.
    const done = (await eventsOf(server.url, id)).filter((e) => e.kind === 'worktree');
    expect(done.map((e) => `${e.action}:${e.outcome}`)).toEqual(['commit:done', 'merge:done', 'apply:done', 'discard:done', 'commit:done', 'merge:stopped', 'push:done']);
    expect(done.every((e) => e.outcome === 'stopped' || e.action === 'apply' || /^[0-9a-f]{40}$/.test(e.commit ?? ''))).toBe(true);
    await page.getByRole('button', { name: 'Back to timeline' }).click();
    await page.getByText(`Pushed skein/${id}`).waitFor();
    expect(errors).toEqual([]);
    await page.close();
  }, 240_000);

  it('a session sharing the folder: no worktree actions, and its list is the files it changed', async () => {
    const { page, errors } = await openPage(browser, server.url, '/', { width: 1280, height: 900 });
    const { id } = await newSession(page, false);
    expect((await snapshot(id)).workspace?.worktree).toBeUndefined();
    fs.writeFileSync(path.join(repo, 'someone-else.txt'), 'not this session\n');
    await converse(page, server.url, 'bash: echo mine > mine.txt');
    const panel = await openChanges(page);
    await panel.getByTestId('scope').filter({ hasText: 'Files this session changed' }).waitFor();
    await panel.locator('details[data-path="mine.txt"]').waitFor();
    expect(await panel.locator('details').evaluateAll((ds) => ds.map((d) => d.getAttribute('data-path')))).toEqual(['mine.txt']);
    expect(await panel.getByTestId('worktree-actions').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});

describe('a push to a remote that never answers', () => {
  it('shows Cancel push while it runs; Cancel stops it and the panel says so', { timeout: 120_000 }, async () => {
    const net = await import('node:net');
    const sockets = new Set<import('node:net').Socket>();
    const silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.resume();
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `git://127.0.0.1:${(silent.address() as import('node:net').AddressInfo).port}/repo.git`;
      if (gitIn(repo, 'remote').includes('origin')) gitIn(repo, 'remote', 'set-url', 'origin', url);
      else gitIn(repo, 'remote', 'add', 'origin', url);
      const { page } = await openPage(browser, server.url, '/', { width: 1280, height: 900 });
      await newSession(page);
      const actions = (await openChanges(page)).getByTestId('worktree-actions');
      await actions.getByRole('button', { name: 'Push to origin' }).click();
      await actions.getByRole('button', { name: 'Pushing…' }).waitFor();
      await expect.poll(() => sockets.size, { timeout: 20_000 }).toBeGreaterThan(0);
      await actions.getByTestId('cancel-push').click();
      await actions.getByTestId('worktree-outcome').filter({ hasText: 'git push was cancelled' }).waitFor({ timeout: 20_000 });
      await expect.poll(() => actions.getByTestId('cancel-push').count(), { timeout: 10_000 }).toBe(0);
      await expect.poll(() => sockets.size, { timeout: 20_000 }).toBe(0);
      await page.close();
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });
});
