// The worktree workflow to its end, with real git repositories: a session's
// own worktree is committed, merged into the main checkout's branch (a
// conflict aborts the merge, both sides kept, the files named), applied as a
// patch, discarded, pushed to a bare remote (no hook runs); each action is
// refused while the agent works and recorded in the timeline. SKEIN_WORKTREE
// makes an own worktree the default. A session sharing its folder sees only
// the files it changed.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangesReport, SessionSnapshot, SkeinEvent, WorktreeActionResult } from '../../shared/protocol.js';
import { InvalidSettingError, loadConfig } from '../../server/config.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { eventsOf, waitForEvents } from '../helpers/ui.js';

let server: TestServer;

const gitIn = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=skein test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' });

/** A repository with one commit on `main`: README.md with three lines. */
function newRepo(): string {
  const repo = tempDir('repo');
  gitIn(repo, 'init', '--quiet');
  fs.writeFileSync(path.join(repo, 'README.md'), 'one\ntwo\nthree\n');
  gitIn(repo, 'add', '.');
  gitIn(repo, 'commit', '--quiet', '-m', 'start');
  return repo;
}

let roots: string[] = [];
beforeAll(async () => {
  roots = [tempDir('roots')];
  server = await startTestServer({ SKEIN_WORKDIR: roots[0]! });
});
afterAll(async () => {
  await server.close();
});

/** A repository inside the server's root (sessions may only work there). */
function repoInRoot(): string {
  const repo = newRepo();
  const inside = path.join(roots[0]!, path.basename(repo));
  fs.renameSync(repo, inside);
  return inside;
}

const idleCount = (events: SkeinEvent[]) => events.filter((e) => e.kind === 'state' && e.to === 'WaitingForUserInput').length;

async function create(s: TestServer, body: Record<string, unknown>): Promise<string> {
  const res = await api<{ id: string; error?: string }>(s.url, '/api/sessions', { body });
  expect(res.status, res.body.error).toBe(201);
  return res.body.id;
}

async function say(s: TestServer, id: string, text: string): Promise<SkeinEvent[]> {
  const before = idleCount(await eventsOf(s.url, id));
  await api(s.url, `/api/sessions/${id}/messages`, { body: { text } });
  return waitForEvents(s.url, id, (es) => idleCount(es) > before, 60_000);
}

const snapshot = async (id: string) => (await api<SessionSnapshot>(server.url, `/api/sessions/${id}`)).body;
const changes = async (s: TestServer, id: string) => (await api<ChangesReport>(s.url, `/api/sessions/${id}/changes`)).body;
type Answer = WorktreeActionResult & { error?: string; code?: string; files?: string[] };
const act = (id: string, action: string, body: unknown = {}) => api<Answer>(server.url, `/api/sessions/${id}/worktree/${action}`, { body });
const worktreeEvents = async (id: string) => (await eventsOf(server.url, id)).filter((e) => e.kind === 'worktree');

/** A session with its own worktree of a new repository. */
async function worktreeSession(): Promise<{ repo: string; id: string; wt: string }> {
  const repo = repoInRoot();
  const id = await create(server, { folder: repo, worktree: true });
  return { repo, id, wt: (await snapshot(id)).workspace!.worktree! };
}

describe("a worktree session's actions", () => {
  it('commit: every change on skein/<id>, in the timeline with its commit', async () => {
    const { repo, id, wt } = await worktreeSession();
    await say(server, id, 'bash: echo new > added.txt && echo four >> README.md');
    expect((await changes(server, id)).worktree).toMatchObject({ baseBranch: 'main', commits: 0, uncommitted: 2 });
    const refused = await act(id, 'commit', { message: '  ' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/"message"/);
    const done = await act(id, 'commit', { message: 'Add a file' });
    expect(done.status, done.body.error).toBe(200);
    expect(done.body.commit).toBe(gitIn(repo, 'rev-parse', `skein/${id}`).trim());
    expect(gitIn(repo, 'log', '-1', '--format=%s', `skein/${id}`).trim()).toBe('Add a file');
    expect(gitIn(wt, 'status', '--porcelain')).toBe('');
    expect((await changes(server, id)).worktree).toMatchObject({ commits: 1, uncommitted: 0 });
    expect(await worktreeEvents(id)).toEqual([expect.objectContaining({ action: 'commit', outcome: 'done', commit: done.body.commit })]);
    expect((await act(id, 'commit', { message: 'again' })).body).toMatchObject({ code: 'nothing' });
  });

  it('merge: clean into the main checkout\'s branch; refused with the worktree uncommitted or the main checkout dirty in its files', async () => {
    const { repo, id } = await worktreeSession();
    await say(server, id, 'bash: echo merged > merged.txt');
    expect((await act(id, 'merge')).body).toMatchObject({ code: 'uncommitted', files: ['merged.txt'] });
    expect((await act(id, 'commit', { message: 'merge me' })).status).toBe(200);
    // The main checkout has its own uncommitted file the merge would create: refused, that file kept.
    fs.writeFileSync(path.join(repo, 'merged.txt'), 'mine\n');
    const blocked = await act(id, 'merge');
    expect(blocked.status).toBe(409);
    expect(blocked.body).toMatchObject({ code: 'dirty_main', files: ['merged.txt'] });
    expect(fs.readFileSync(path.join(repo, 'merged.txt'), 'utf8')).toBe('mine\n');
    fs.rmSync(path.join(repo, 'merged.txt'));
    // An unrelated uncommitted change there is not in the way, and stays.
    fs.writeFileSync(path.join(repo, 'README.md'), 'one\ntwo\nthree\nlocal\n');
    const merged = await act(id, 'merge');
    expect(merged.status, merged.body.error).toBe(200);
    expect(gitIn(repo, 'rev-parse', 'HEAD').trim()).toBe(merged.body.commit);
    expect(gitIn(repo, 'symbolic-ref', '--short', 'HEAD').trim()).toBe('main');
    expect(fs.readFileSync(path.join(repo, 'merged.txt'), 'utf8')).toBe('merged\n');
    expect(fs.readFileSync(path.join(repo, 'README.md'), 'utf8')).toBe('one\ntwo\nthree\nlocal\n');
    expect((await worktreeEvents(id)).at(-1)).toMatchObject({ action: 'merge', outcome: 'done', commit: merged.body.commit, files: ['merged.txt'] });
    expect((await act(id, 'merge')).body).toMatchObject({ code: 'nothing' });
  });

  // A merge that git stops for another reason than a conflict: worktree-faults.test.ts (signing no longer fails one: skein never signs).

  it('merge with a conflict: aborted, both sides kept, the conflicting files named (also in the timeline)', async () => {
    const { repo, id, wt } = await worktreeSession();
    await say(server, id, "bash: sed -i 's/two/two from the session/' README.md");
    expect((await act(id, 'commit', { message: 'session side' })).status).toBe(200);
    fs.writeFileSync(path.join(repo, 'README.md'), 'one\ntwo from main\nthree\n');
    gitIn(repo, 'commit', '--quiet', '-am', 'main side');
    const mainHead = gitIn(repo, 'rev-parse', 'HEAD').trim();
    const branchHead = gitIn(repo, 'rev-parse', `skein/${id}`).trim();
    const res = await act(id, 'merge');
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'merge_conflict', files: ['README.md'] });
    expect(res.body.error).toMatch(/aborted/);
    // Nothing lost: main as it was, no merge under way, the branch and the worktree as they were.
    expect(gitIn(repo, 'rev-parse', 'HEAD').trim()).toBe(mainHead);
    expect(gitIn(repo, 'status', '--porcelain')).toBe('');
    expect(fs.existsSync(path.join(repo, '.git', 'MERGE_HEAD'))).toBe(false);
    expect(fs.readFileSync(path.join(repo, 'README.md'), 'utf8')).toBe('one\ntwo from main\nthree\n');
    expect(gitIn(repo, 'rev-parse', `skein/${id}`).trim()).toBe(branchHead);
    expect(fs.readFileSync(path.join(wt, 'README.md'), 'utf8')).toBe('one\ntwo from the session\nthree\n');
    expect((await worktreeEvents(id)).at(-1)).toMatchObject({ action: 'merge', outcome: 'stopped', files: ['README.md'] });
  });

  it('apply as a patch: uncommitted and untracked changes land in the main checkout, staged; a conflict is kept marked and listed', async () => {
    const { repo, id } = await worktreeSession();
    await say(server, id, "bash: echo patched > patched.txt && sed -i 's/one/one from the session/' README.md");
    const applied = await act(id, 'apply');
    expect(applied.status, applied.body.error).toBe(200);
    expect(applied.body.files?.sort()).toEqual(['README.md', 'patched.txt']);
    expect(applied.body.conflicts).toBeUndefined();
    expect(fs.readFileSync(path.join(repo, 'patched.txt'), 'utf8')).toBe('patched\n');
    expect(fs.readFileSync(path.join(repo, 'README.md'), 'utf8')).toBe('one from the session\ntwo\nthree\n');
    expect(gitIn(repo, 'diff', '--cached', '--name-only').split('\n').filter(Boolean).sort()).toEqual(['README.md', 'patched.txt']);
    expect((await worktreeEvents(id)).at(-1)).toMatchObject({ action: 'apply', outcome: 'done' });

    // The main checkout moves on in the same line: applying again conflicts, both sides kept in the file.
    gitIn(repo, 'reset', '--quiet', '--hard');
    fs.rmSync(path.join(repo, 'patched.txt'), { force: true });
    fs.writeFileSync(path.join(repo, 'README.md'), 'one from main\ntwo\nthree\n');
    gitIn(repo, 'commit', '--quiet', '-am', 'main side');
    const conflicted = await act(id, 'apply');
    expect(conflicted.status, conflicted.body.error).toBe(200);
    expect(conflicted.body.conflicts).toEqual(['README.md']);
    const text = fs.readFileSync(path.join(repo, 'README.md'), 'utf8');
    expect(text).toContain('<<<<<<<');
    expect(text).toContain('one from main');
    expect(text).toContain('one from the session');
    expect(fs.readFileSync(path.join(repo, 'patched.txt'), 'utf8')).toBe('patched\n');
  });

  it('discard: only when confirmed; back to the starting commit, untracked files and commits gone', async () => {
    const { repo, id, wt } = await worktreeSession();
    const start = gitIn(repo, 'rev-parse', 'HEAD').trim();
    await say(server, id, 'bash: echo a > committed.txt');
    expect((await act(id, 'commit', { message: 'to be discarded' })).status).toBe(200);
    await say(server, id, 'bash: echo b > untracked.txt && echo changed > README.md');
    const unconfirmed = await act(id, 'discard');
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.body.error).toMatch(/"confirm"/);
    expect(fs.existsSync(path.join(wt, 'untracked.txt'))).toBe(true);
    const done = await act(id, 'discard', { confirm: true });
    expect(done.status, done.body.error).toBe(200);
    expect(gitIn(repo, 'rev-parse', `skein/${id}`).trim()).toBe(start);
    expect(gitIn(wt, 'status', '--porcelain')).toBe('');
    expect(fs.existsSync(path.join(wt, 'untracked.txt'))).toBe(false);
    expect(fs.existsSync(path.join(wt, 'committed.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(wt, 'README.md'), 'utf8')).toBe('one\ntwo\nthree\n');
    expect((await changes(server, id)).files).toEqual([]);
    expect((await worktreeEvents(id)).at(-1)).toMatchObject({ action: 'discard', outcome: 'done', commit: start });
  });

  it('push: absent without a remote; to a bare remote; no hook of the repository or the remote runs for commit, merge or push', async () => {
    const { repo, id } = await worktreeSession();
    const bare = tempDir('bare');
    gitIn(bare, 'init', '--quiet', '--bare');
    // Hooks in the repository (named by its own config too) and in the remote: none may run.
    const marker = path.join(tempDir('marker'), 'ran');
    const hooks = ['pre-commit', 'commit-msg', 'post-commit', 'pre-merge-commit', 'post-merge', 'pre-push', 'reference-transaction'].map((h) => path.join(repo, '.git', 'hooks', h));
    for (const hook of [...hooks, path.join(bare, 'hooks', 'pre-receive'), path.join(bare, 'hooks', 'post-receive')]) {
      fs.writeFileSync(hook, `#!/bin/sh\necho ${path.basename(hook)} >> ${marker}\nexit 1\n`, { mode: 0o755 });
    }
    gitIn(repo, 'config', 'core.hooksPath', path.join(repo, '.git', 'hooks'));
    await say(server, id, 'bash: echo pushed > pushed.txt');
    expect((await act(id, 'commit', { message: 'push me' })).status).toBe(200);
    expect((await act(id, 'merge')).status).toBe(200);
    expect((await changes(server, id)).worktree?.remote).toBeUndefined();
    expect((await act(id, 'push')).body).toMatchObject({ code: 'no_remote' });
    gitIn(repo, 'remote', 'add', 'origin', bare);
    expect((await changes(server, id)).worktree?.remote).toBe('origin');
    const pushed = await act(id, 'push');
    expect(pushed.status, pushed.body.error).toBe(200);
    expect(gitIn(bare, 'rev-parse', `refs/heads/skein/${id}`).trim()).toBe(gitIn(repo, 'rev-parse', `skein/${id}`).trim());
    expect(pushed.body.commit).toBe(gitIn(repo, 'rev-parse', `skein/${id}`).trim());
    expect(fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : '').toBe('');
    expect((await worktreeEvents(id)).at(-1)).toMatchObject({ action: 'push', outcome: 'done' });
  });

  it('every action is refused while the agent works; a session without a worktree has none', async () => {
    const { repo, id } = await worktreeSession();
    const before = idleCount(await eventsOf(server.url, id));
    await api(server.url, `/api/sessions/${id}/messages`, { body: { text: 'bash: echo x > during.txt; sleep 2' } });
    await expect.poll(async () => (await snapshot(id)).state, { timeout: 30_000 }).toBe('RunningTools');
    for (const [action, body] of [['commit', { message: 'm' }], ['merge', {}], ['apply', {}], ['discard', { confirm: true }], ['push', {}]] as const) {
      const res = await act(id, action, body);
      expect(res.status, action).toBe(409);
      expect(res.body.code, action).toBe('busy');
    }
    await waitForEvents(server.url, id, (es) => idleCount(es) > before, 60_000);
    expect(await worktreeEvents(id)).toEqual([]);
    expect(gitIn(repo, 'log', '--format=%s', `skein/${id}`).trim()).toBe('start');
    expect(fs.existsSync(path.join(repo, 'during.txt'))).toBe(false);

    // A message sent while an action runs: logged, but its turn starts only once git is done.
    await say(server, id, 'bash: echo y > held.txt');
    const idleBefore = idleCount(await eventsOf(server.url, id));
    const [applied, sent] = await Promise.all([act(id, 'apply'), api(server.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: meanwhile' } })]);
    expect(sent.status).toBe(202);
    const after = await waitForEvents(server.url, id, (es) => idleCount(es) > idleBefore, 60_000);
    if (applied.status === 200) {
      const notice = after.find((e) => e.kind === 'worktree')!;
      const user = after.findLast((e) => e.kind === 'user')!;
      const started = after.find((e) => e.seq > user.seq && e.kind === 'state' && e.from === 'WaitingForUserInput')!;
      expect(started.seq).toBeGreaterThan(notice.seq);
    } else expect(applied.body.code).toBe('busy');

    const shared = await create(server, { folder: repo, worktree: false });
    expect((await act(shared, 'merge')).body).toMatchObject({ code: 'no_worktree' });
    expect((await changes(server, shared)).worktree).toBeUndefined();
  });
});

describe('a session sharing its folder', () => {
  it("Changes lists only the files this session changed, not another session's", async () => {
    const repo = repoInRoot();
    const a = await create(server, { folder: repo });
    const b = await create(server, { folder: repo });
    expect((await snapshot(a)).workspace?.worktree).toBeUndefined();
    await say(server, a, 'bash: echo from-a > a.txt');
    await say(server, b, 'bash: echo from-b > b.txt && echo four >> README.md');
    await say(server, a, 'tool: write_file {"path":"written.txt","content":"by a\\n"}');
    const ofA = await changes(server, a);
    expect(ofA.sessionOnly).toBe(true);
    expect(ofA.files.map((f) => f.path).sort()).toEqual(['a.txt', 'written.txt']);
    expect((await changes(server, b)).files.map((f) => f.path).sort()).toEqual(['README.md', 'b.txt']);
  });
});

describe('SKEIN_WORKTREE', () => {
  it('on: a new session in a git folder gets its own worktree unless it asks otherwise; a folder outside git is shared', async () => {
    const root = tempDir('root');
    const repo = newRepo();
    const inside = path.join(root, 'repo');
    fs.renameSync(repo, inside);
    fs.mkdirSync(path.join(root, 'plain'));
    const on = await startTestServer({ SKEIN_WORKDIR: root, SKEIN_WORKTREE: 'on' });
    try {
      expect((await api<{ worktreeDefault?: boolean }>(on.url, '/api/settings')).body.worktreeDefault).toBe(true);
      const own = await create(on, { folder: inside });
      const ws = (await api<SessionSnapshot>(on.url, `/api/sessions/${own}`)).body.workspace!;
      expect(ws).toMatchObject({ branch: `skein/${own}`, worktree: path.join(on.dataDir, 'worktrees', own) });
      const asked = await create(on, { folder: inside, worktree: false });
      expect((await api<SessionSnapshot>(on.url, `/api/sessions/${asked}`)).body.workspace).toMatchObject({ workDir: inside, branch: 'main' });
      expect((await api<SessionSnapshot>(on.url, `/api/sessions/${asked}`)).body.workspace?.worktree).toBeUndefined();
      const plain = await create(on, { folder: path.join(root, 'plain') });
      expect((await api<SessionSnapshot>(on.url, `/api/sessions/${plain}`)).body.workspace?.worktree).toBeUndefined();
    } finally {
      await on.close();
    }
    expect((await api<{ worktreeDefault?: boolean }>(server.url, '/api/settings')).body.worktreeDefault).toBe(false);
  });

  it('a value that is not on or off is refused at start, naming the variable and the values', () => {
    expect(() => loadConfig([], { SKEIN_WORKTREE: 'sometimes' })).toThrow(InvalidSettingError);
    expect(() => loadConfig([], { SKEIN_WORKTREE: 'sometimes' })).toThrow(/SKEIN_WORKTREE.*on or off/);
    expect(() => loadConfig(['--worktree', 'maybe'], {})).toThrow(/--worktree.*on or off/);
    expect(loadConfig(['--worktree', 'on'], {}).worktreeDefault).toBe(true);
  });
});
