// Undo (issue 23): checkpoints before each write, and Rewind from a timeline
// row with a preview of what it changes. In a git folder the files come back
// byte for byte and the user's index, branches and stash are untouched; in a
// plain folder the file tools' targets come back, and the conversation can be
// forked at the same point.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { SessionSnapshot } from '../../shared/protocol.js';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { contrastViolations, converse, eventsOf, openPage } from '../helpers/ui.js';

let server: TestServer;
let browser: Browser;
let repo: string;
let plain: string;

const gitIn = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=skein test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' });
const sha = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

beforeAll(async () => {
  repo = tempDir('rewind-repo');
  gitIn(repo, 'init', '--quiet');
  fs.writeFileSync(path.join(repo, 'README.md'), '# demo\n\nThe first line.\n');
  gitIn(repo, 'add', '.');
  gitIn(repo, 'commit', '--quiet', '-m', 'start');
  plain = tempDir('rewind-plain');
  server = await startTestServer({ SKEIN_WORKDIR: `${plain},${repo}` });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function sessionIn(folder: string): Promise<string> {
  return (await api<{ id: string }>(server.url, '/api/sessions', { body: { folder } })).body.id;
}

describe('rewind', () => {
  it('in a git folder: previews the diff, then puts the files back byte for byte without touching the index, branches or stash', async () => {
    // The user's own state: a staged change, an untracked file and a binary one.
    fs.writeFileSync(path.join(repo, 'staged.txt'), 'staged by the user\n');
    gitIn(repo, 'add', 'staged.txt');
    fs.writeFileSync(path.join(repo, 'notes.txt'), 'untracked notes\n');
    fs.writeFileSync(path.join(repo, 'data.bin'), crypto.randomBytes(4096));
    const before = { readme: sha(path.join(repo, 'README.md')), notes: sha(path.join(repo, 'notes.txt')), data: sha(path.join(repo, 'data.bin')) };
    const user = () => ({
      index: sha(path.join(repo, '.git', 'index')),
      head: gitIn(repo, 'rev-parse', 'HEAD'),
      branches: gitIn(repo, 'branch', '--list'),
      stash: gitIn(repo, 'stash', 'list'),
      status: gitIn(repo, 'status', '--porcelain'),
    });
    const id = await sessionIn(repo);
    const { page, errors } = await openPage(browser, server.url, `/s/${id}`, { width: 1280, height: 900, reducedMotion: true });
    await converse(page, server.url, 'echo: the folder as it is');
    const untouched = user();
    const point = (await eventsOf(server.url, id)).filter((e) => e.kind === 'agent').at(-1)!.seq;
    await converse(page, server.url, "bash: printf 'changed by the agent\\n' >> README.md && printf 'new\\n' > created.txt && rm notes.txt && head -c 100 /dev/zero > data.bin");
    expect(fs.existsSync(path.join(repo, 'created.txt'))).toBe(true);
    expect(gitIn(repo, 'for-each-ref', '--format=%(refname)', 'refs/skein/')).toContain(`refs/skein/checkpoints/${id}`);

    const row = page.locator(`skein-timeline .row[data-seq="${point}"]`);
    await row.hover();
    await row.locator('summary').click();
    await row.getByRole('menuitem', { name: 'Rewind to here…' }).click();
    const dialog = page.getByRole('dialog');
    const files = dialog.getByTestId('rewind-files');
    await files.waitFor();
    expect((await files.locator('li').allTextContents()).sort()).toEqual([
      'README.md: back to how it was',
      'created.txt: deleted (created after this point)',
      'data.bin: back to how it was',
      'notes.txt: recreated (deleted after this point)',
    ]);
    await dialog.locator('skein-diff [data-kind="del"]', { hasText: 'changed by the agent' }).waitFor();
    expect(await contrastViolations(page)).toEqual([]);
    // The dark theme too (the diff's green and red on their own backgrounds).
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await contrastViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
    fs.mkdirSync('test/e2e/screenshots', { recursive: true });
    await page.screenshot({ path: screenshotPath('rewind-preview') });
    fs.copyFileSync(screenshotPath('rewind-preview'), 'test/e2e/screenshots/rewind-preview.png');
    await dialog.getByRole('button', { name: 'Rewind files only' }).click();
    await page.getByTestId('command-info').filter({ hasText: 'Rewound 4 files' }).waitFor();

    expect({ readme: sha(path.join(repo, 'README.md')), notes: sha(path.join(repo, 'notes.txt')), data: sha(path.join(repo, 'data.bin')) }).toEqual(before);
    expect(fs.existsSync(path.join(repo, 'created.txt'))).toBe(false);
    expect(user()).toEqual(untouched);
    expect(page.url()).toContain(id); // files only: the conversation stays
    expect(errors).toEqual([]);
    await page.close();
  });

  it('in a plain folder: the file tools’ targets come back, and the conversation can be forked at the same point', async () => {
    fs.writeFileSync(path.join(plain, 'a.txt'), 'before\n');
    const id = await sessionIn(plain);
    const { page, errors } = await openPage(browser, server.url, `/s/${id}`);
    await converse(page, server.url, 'echo: start');
    const point = (await eventsOf(server.url, id)).filter((e) => e.kind === 'agent').at(-1)!.seq;
    await converse(page, server.url, 'tool: write_file {"path": "a.txt", "content": "after\\n"}');
    await converse(page, server.url, 'tool: write_file {"path": "b.txt", "content": "new\\n"}');
    const preview = (await api<{ files: { path: string; change: string }[]; diff: string }>(server.url, `/api/sessions/${id}/rewind?seq=${point}`)).body;
    expect(preview.files).toEqual([{ path: 'a.txt', change: 'restore' }, { path: 'b.txt', change: 'delete' }]);
    expect(preview.diff).toContain('-after');
    const done = await api<{ restored: string[]; id: string }>(server.url, `/api/sessions/${id}/rewind`, { body: { seq: point, fork: true } });
    expect(done.status).toBe(200);
    expect(fs.readFileSync(path.join(plain, 'a.txt'), 'utf8')).toBe('before\n');
    expect(fs.existsSync(path.join(plain, 'b.txt'))).toBe(false);
    expect((await api<SessionSnapshot>(server.url, `/api/sessions/${done.body.id}`)).body.forkOf).toEqual({ session: id, seq: point });
    expect(errors).toEqual([]);
    await page.close();
  });
});
