// The worktree actions where they used to go wrong (issue 39, red team):
// a push to a remote that never answers is stopped after
// SKEIN_GIT_NETWORK_TIMEOUT_MS or by the user's cancel, with git and its
// helpers killed, and the session cannot be deleted from under it; skein's
// own commits never sign (a commit.gpgSign=true config runs no gpg); git
// refusing in the main checkout is a 409 with git's words, never a 500, and a
// merge of the user's own under way there is left alone.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionSnapshot, SkeinEvent, WorktreeActionResult } from '../../shared/protocol.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { eventsOf, waitForEvents } from '../helpers/ui.js';

const TIMEOUT_MS = 3000;
let server: TestServer;
let root: string;

/** A listener that accepts connections and never says a word: a remote that does not answer. */
let blackHole: net.Server;
const open = new Set<net.Socket>();
let accepted = 0;

beforeAll(async () => {
  root = tempDir('roots');
  server = await startTestServer({ SKEIN_WORKDIR: root, SKEIN_GIT_NETWORK_TIMEOUT_MS: String(TIMEOUT_MS) });
  blackHole = net.createServer((socket) => {
    accepted++;
    open.add(socket);
    socket.resume(); // reads (and drops) what git says, so its end is seen
    socket.on('error', () => undefined);
    socket.on('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const s of open) s.destroy();
  blackHole.close();
  await server.close();
});

const gitIn = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=skein test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', '-c', 'commit.gpgSign=false', ...args], { cwd, encoding: 'utf8' });

function repoInRoot(): string {
  const repo = path.join(root, path.basename(tempDir('repo')));
  fs.mkdirSync(repo);
  gitIn(repo, 'init', '--quiet');
  fs.writeFileSync(path.join(repo, 'README.md'), 'one\ntwo\nthree\n');
  gitIn(repo, 'add', '.');
  gitIn(repo, 'commit', '--quiet', '-m', 'start');
  return repo;
}

const idleCount = (events: SkeinEvent[]) => events.filter((e) => e.kind === 'state' && e.to === 'WaitingForUserInput').length;
async function say(id: string, text: string): Promise<void> {
  const before = idleCount(await eventsOf(server.url, id));
  expect((await api(server.url, `/api/sessions/${id}/messages`, { body: { text } })).status).toBe(202);
  await waitForEvents(server.url, id, (es) => idleCount(es) > before, 60_000);
}

type Answer = WorktreeActionResult & { error?: string; code?: string; files?: string[] };
const act = (id: string, action: string, body: unknown = {}) => api<Answer>(server.url, `/api/sessions/${id}/worktree/${action}`, { body });

async function worktreeSession(): Promise<{ repo: string; id: string; wt: string }> {
  const repo = repoInRoot();
  const res = await api<{ id: string; error?: string }>(server.url, '/api/sessions', { body: { folder: repo, worktree: true } });
  expect(res.status, res.body.error).toBe(201);
  const wt = (await api<SessionSnapshot>(server.url, `/api/sessions/${res.body.id}`)).body.workspace!.worktree!;
  return { repo, id: res.body.id, wt };
}

describe('a push to a remote that never answers', () => {
  it(`is stopped after SKEIN_GIT_NETWORK_TIMEOUT_MS (504, said in the timeline), git and its connection gone`, async () => {
    const { repo, id } = await worktreeSession();
    gitIn(repo, 'remote', 'add', 'origin', `git://127.0.0.1:${(blackHole.address() as net.AddressInfo).port}/repo.git`);
    const before = accepted;
    const started = Date.now();
    const res = await act(id, 'push');
    const took = Date.now() - started;
    expect(res.status, JSON.stringify(res.body)).toBe(504);
    expect(res.body.code).toBe('timeout');
    expect(res.body.error).toContain('got no answer from the remote within 3 s');
    expect(res.body.error).toContain('SKEIN_GIT_NETWORK_TIMEOUT_MS');
    expect(accepted).toBeGreaterThan(before); // it did reach the remote, which kept silent
    expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
    // git was killed: its connection is closed.
    await expect.poll(() => open.size, { timeout: 10_000 }).toBe(0);
    const notice = (await eventsOf(server.url, id)).filter((e) => e.kind === 'worktree').at(-1);
    expect(notice).toMatchObject({ action: 'push', outcome: 'stopped' });
    // The session is free again.
    expect((await act(id, 'cancel')).body).toMatchObject({ code: 'nothing' });
  });

  it('is stopped by the user\'s cancel; meanwhile the session cannot be deleted nor its worktree discarded', async () => {
    const { repo, id, wt } = await worktreeSession();
    gitIn(repo, 'remote', 'add', 'origin', `git://127.0.0.1:${(blackHole.address() as net.AddressInfo).port}/repo.git`);
    const before = accepted;
    const pushing = act(id, 'push');
    await expect.poll(() => accepted, { timeout: 10_000 }).toBeGreaterThan(before);

    const deleted = await api<{ error: string; code: string }>(server.url, `/api/sessions/${id}?worktree=remove&force=1`, { method: 'DELETE' });
    expect(deleted.status).toBe(409);
    expect(deleted.body).toMatchObject({ code: 'busy' });
    expect(deleted.body.error).toContain('push');
    expect((await act(id, 'discard', { confirm: true })).body).toMatchObject({ code: 'busy' });
    // Nor are its files put back under the running git.
    const rewound = await api<{ error: string; code: string }>(server.url, `/api/sessions/${id}/rewind`, { body: { seq: 1 } });
    expect(rewound.status).toBe(409);
    expect(rewound.body).toMatchObject({ code: 'busy' });
    expect(fs.existsSync(wt)).toBe(true);

    const cancelStarted = Date.now();
    const cancelled = await act(id, 'cancel');
    expect(cancelled.status).toBe(202);
    const res = await pushing;
    expect(Date.now() - cancelStarted).toBeLessThan(TIMEOUT_MS);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'cancelled' });
    expect(res.body.error).toContain('cancelled');
    await expect.poll(() => open.size, { timeout: 10_000 }).toBe(0);

    // Once it ended: deleting (and removing the worktree) works.
    const done = await api(server.url, `/api/sessions/${id}?worktree=remove&force=1`, { method: 'DELETE' });
    expect(done.status).toBe(200);
    expect(fs.existsSync(wt)).toBe(false);
  });

  it('a local action is not cancelled midway; nothing to cancel is said', async () => {
    const { id } = await worktreeSession();
    expect((await act(id, 'cancel')).body).toMatchObject({ code: 'nothing' });
  });
});

describe('signing', () => {
  it("skein's commit and merge do not sign, whatever the repository's or the user's config says, and run no gpg", async () => {
    const { repo, id } = await worktreeSession();
    const marker = path.join(tempDir('marker'), 'gpg-ran');
    const gpg = path.join(tempDir('gpg'), 'fake-gpg');
    fs.writeFileSync(gpg, `#!/bin/sh\necho "$@" >> ${marker}\nexit 1\n`, { mode: 0o755 });
    // The repository's config, and the user's own (global) one.
    gitIn(repo, 'config', 'commit.gpgSign', 'true');
    gitIn(repo, 'config', 'gpg.program', gpg);
    const home = tempDir('home');
    fs.writeFileSync(path.join(home, '.gitconfig'), `[commit]\n\tgpgSign = true\n[gpg]\n\tprogram = ${gpg}\n[user]\n\tsigningKey = ABCDEF\n`);
    const realHome = process.env.HOME;
    process.env.HOME = home;
    try {
      await say(id, 'bash: echo signed > signed.txt');
      const committed = await act(id, 'commit', { message: 'unsigned' });
      expect(committed.status, committed.body.error).toBe(200);
      const merged = await act(id, 'merge');
      expect(merged.status, merged.body.error).toBe(200);
    } finally {
      process.env.HOME = realHome;
    }
    expect(fs.existsSync(marker)).toBe(false);
    expect(gitIn(repo, 'log', '-1', '--format=%G?:%s', 'HEAD')).toMatch(/^N:Merge skein\//);
    expect(fs.readFileSync(path.join(repo, 'signed.txt'), 'utf8')).toBe('signed\n');
  });
});

describe('git refusing in the main checkout', () => {
  it('a merge that git stops (a locked branch) is a 409 with its words, aborted: the main checkout as it was', async () => {
    const { repo, id } = await worktreeSession();
    await say(id, 'bash: echo locked > locked.txt');
    expect((await act(id, 'commit', { message: 'to merge' })).status).toBe(200);
    const mainHead = gitIn(repo, 'rev-parse', 'HEAD').trim();
    const lock = path.join(repo, '.git', 'refs', 'heads', 'main.lock');
    fs.writeFileSync(lock, '');
    try {
      const res = await act(id, 'merge');
      expect(res.status, JSON.stringify(res.body)).toBe(409);
      expect(res.body.error).toContain('the merge was aborted');
      expect(res.body.error).toMatch(/lock/);
    } finally {
      fs.rmSync(lock);
    }
    expect(fs.existsSync(path.join(repo, '.git', 'MERGE_HEAD'))).toBe(false);
    expect(gitIn(repo, 'rev-parse', 'HEAD').trim()).toBe(mainHead);
    expect(gitIn(repo, 'status', '--porcelain')).toBe('');
  });

  it("the user's own merge under way in the main checkout: merge and apply are a 409 that names it, and leave it as it is", async () => {
    const { repo, id } = await worktreeSession();
    await say(id, 'bash: echo from-session > session.txt');
    expect((await act(id, 'commit', { message: 'session' })).status).toBe(200);
    // The user, in the main checkout, is resolving a conflict of their own.
    gitIn(repo, 'checkout', '--quiet', '-b', 'theirs');
    fs.writeFileSync(path.join(repo, 'README.md'), 'one\nTWO theirs\nthree\n');
    gitIn(repo, 'commit', '--quiet', '-am', 'theirs');
    gitIn(repo, 'checkout', '--quiet', 'main');
    fs.writeFileSync(path.join(repo, 'README.md'), 'one\nTWO mine\nthree\n');
    gitIn(repo, 'commit', '--quiet', '-am', 'mine');
    expect(() => gitIn(repo, 'merge', 'theirs')).toThrow();
    const conflicted = fs.readFileSync(path.join(repo, 'README.md'), 'utf8');
    for (const action of ['merge', 'apply']) {
      const res = await act(id, action);
      expect(res.status, `${action}: ${JSON.stringify(res.body)}`).toBe(409);
      expect(res.body.code).toBe('dirty_main');
      expect(res.body.error).toContain('in the middle of a merge');
      expect(res.body.files).toEqual(['README.md']);
      // Their merge is still under way, their file untouched.
      expect(fs.existsSync(path.join(repo, '.git', 'MERGE_HEAD')), action).toBe(true);
      expect(fs.readFileSync(path.join(repo, 'README.md'), 'utf8')).toBe(conflicted);
      expect(fs.existsSync(path.join(repo, 'session.txt'))).toBe(false);
    }
  });
});
