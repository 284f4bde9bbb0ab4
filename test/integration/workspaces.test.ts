// A folder and a branch per session: sessions with their own worktrees of one
// repository work at once without touching each other's files; the Changes
// endpoint gives the diff against the starting commit (untracked files too);
// a non-git folder has no branch and still works; a dirty worktree is never
// removed silently.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangesReport, SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import { InvalidSettingError, loadConfig } from '../../server/config.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { eventsOf, waitForEvents } from '../helpers/ui.js';

let server: TestServer;
let repo: string;
let plain: string;

const gitIn = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=skein test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' });

beforeAll(async () => {
  repo = tempDir('repo');
  gitIn(repo, 'init', '--quiet');
  fs.writeFileSync(path.join(repo, 'README.md'), 'line one\nline two\n');
  fs.mkdirSync(path.join(repo, 'src'));
  fs.writeFileSync(path.join(repo, 'src', 'keep.txt'), 'kept\n');
  gitIn(repo, 'add', '.');
  gitIn(repo, 'commit', '--quiet', '-m', 'start');
  plain = tempDir('plain');
  server = await startTestServer({ SKEIN_WORKDIR: `${repo},${plain}` });
});
afterAll(async () => {
  await server.close();
});

const idleCount = (events: SkeinEvent[]) => events.filter((e) => e.kind === 'state' && e.to === 'WaitingForUserInput').length;

async function create(body: Record<string, unknown>): Promise<{ status: number; id: string; error?: string }> {
  const res = await api<{ id: string; error?: string }>(server.url, '/api/sessions', { body });
  return { status: res.status, id: res.body.id, ...(res.body.error && { error: res.body.error }) };
}

async function say(id: string, text: string): Promise<SkeinEvent[]> {
  const before = idleCount(await eventsOf(server.url, id));
  await api(server.url, `/api/sessions/${id}/messages`, { body: { text } });
  return waitForEvents(server.url, id, (es) => idleCount(es) > before, 60_000);
}

const snapshot = async (id: string) => (await api<SessionSnapshot>(server.url, `/api/sessions/${id}`)).body;
const changes = async (id: string) => (await api<ChangesReport>(server.url, `/api/sessions/${id}/changes`)).body;
const lastOutput = (events: SkeinEvent[]) => events.filter((e) => e.kind === 'tool_result').at(-1)!;

describe('a folder and a branch per session', () => {
  it('two sessions with their own worktrees of one repository work at once without touching each other', async () => {
    const head = gitIn(repo, 'rev-parse', 'HEAD').trim();
    const a = await create({ folder: repo, worktree: true });
    const b = await create({ folder: repo, worktree: true });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    const [wa, wb] = [(await snapshot(a.id)).workspace!, (await snapshot(b.id)).workspace!];
    expect(wa).toMatchObject({ folder: repo, branch: `skein/${a.id}`, baseCommit: head, worktree: path.join(server.dataDir, 'worktrees', a.id) });
    expect(wb.branch).toBe(`skein/${b.id}`);
    expect(wa.workDir).not.toBe(wb.workDir);
    // Recorded in the log's header (its first line).
    const header = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'sessions', `${a.id}.jsonl`), 'utf8').split('\n')[0]!);
    expect(header.workspace).toEqual(wa);

    // Both at once: the same file name, different contents, slow enough to overlap.
    const script = (who: string) => `bash: sleep 0.5; echo ${who} > shared.txt; echo ${who}-edit >> README.md; cat shared.txt; pwd`;
    const [ea, eb] = await Promise.all([say(a.id, script('from-a')), say(b.id, script('from-b'))]);
    expect(lastOutput(ea)).toMatchObject({ isError: false });
    expect((lastOutput(ea) as { output: string }).output).toContain(`from-a\n${wa.workDir}`);
    expect((lastOutput(eb) as { output: string }).output).toContain(`from-b\n${wb.workDir}`);
    expect(fs.readFileSync(path.join(wa.workDir, 'shared.txt'), 'utf8')).toBe('from-a\n');
    expect(fs.readFileSync(path.join(wb.workDir, 'shared.txt'), 'utf8')).toBe('from-b\n');
    expect(fs.readFileSync(path.join(wb.workDir, 'README.md'), 'utf8')).not.toContain('from-a');
    // The repository's own folder is untouched.
    expect(fs.existsSync(path.join(repo, 'shared.txt'))).toBe(false);
    expect(gitIn(repo, 'status', '--porcelain')).toBe('');
    expect(gitIn(repo, 'branch', '--list', 'skein/*')).toContain(`skein/${a.id}`);

    // The Changes of A: the untracked file and the edit, diffed against the starting commit; nothing of B's.
    const report = await changes(a.id);
    expect(report).toMatchObject({ git: true, branch: `skein/${a.id}`, baseCommit: head, workDir: wa.workDir });
    expect(report.files.map((f) => [f.path, f.status])).toEqual([['README.md', 'modified'], ['shared.txt', 'untracked']]);
    const readme = report.files.find((f) => f.path === 'README.md')!;
    expect(readme.diff).toContain('--- a/README.md');
    expect(readme.diff).toContain('+from-a-edit');
    expect(readme.diff).not.toContain('from-b');
    expect(report.files.find((f) => f.path === 'shared.txt')!.diff).toContain('+from-a');

    // A commit in the session's branch still shows against the starting commit; a deleted file shows too.
    await say(a.id, 'bash: git -c user.name=t -c user.email=t@example.invalid add -A && git -c user.name=t -c user.email=t@example.invalid commit -qm work && rm src/keep.txt');
    const afterCommit = await changes(a.id);
    expect(afterCommit.files.map((f) => [f.path, f.status])).toEqual([['README.md', 'modified'], ['shared.txt', 'added'], ['src/keep.txt', 'deleted']]);
    expect(afterCommit.files.find((f) => f.path === 'src/keep.txt')!.diff).toContain('-kept');
  });

  it('a dirty worktree is removed only when forced; a clean one goes with its session; the branch stays', async () => {
    const s = await create({ folder: repo, worktree: true });
    const ws = (await snapshot(s.id)).workspace!;
    await say(s.id, 'bash: echo unsaved > wip.txt');
    const refused = await api<{ error: string; code: string; files: string[] }>(server.url, `/api/sessions/${s.id}?worktree=remove`, { method: 'DELETE' });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('dirty_worktree');
    expect(refused.body.files).toEqual(['wip.txt']);
    expect(refused.body.error).toContain('uncommitted');
    // Nothing happened: the session and its work are there.
    expect((await api(server.url, `/api/sessions/${s.id}`)).status).toBe(200);
    expect(fs.readFileSync(path.join(ws.workDir, 'wip.txt'), 'utf8')).toBe('unsaved\n');

    const forced = await api(server.url, `/api/sessions/${s.id}?worktree=remove&force=1`, { method: 'DELETE' });
    expect(forced.status).toBe(200);
    expect(fs.existsSync(ws.worktree!)).toBe(false);
    expect(gitIn(repo, 'branch', '--list', ws.branch!)).toContain(ws.branch!);

    // Kept by default: the trash says where it is.
    const kept = await create({ folder: repo, worktree: true });
    const keptWs = (await snapshot(kept.id)).workspace!;
    await api(server.url, `/api/sessions/${kept.id}`, { method: 'DELETE' });
    expect(fs.existsSync(keptWs.worktree!)).toBe(true);
    const trash = (await api<{ sessions: { id: string; worktree?: string }[] }>(server.url, '/api/trash')).body.sessions;
    expect(trash.find((t) => t.id === kept.id)!.worktree).toBe(keptWs.worktree);
  });

  it('a session on a non-git folder has no branch, works there, and has no changes to show', async () => {
    const s = await create({ folder: plain });
    expect(s.status).toBe(201);
    const ws = (await snapshot(s.id)).workspace!;
    expect(ws).toEqual({ folder: plain, workDir: plain });
    const events = await say(s.id, 'bash: pwd && echo made > here.txt');
    expect((lastOutput(events) as { output: string }).output).toContain(plain);
    expect(fs.readFileSync(path.join(plain, 'here.txt'), 'utf8')).toBe('made\n');
    expect(await changes(s.id)).toEqual({ git: false, workDir: plain, files: [] });
    // A session in the repository folder itself (no worktree) records its branch and commit.
    const inRepo = await create({ folder: path.join(repo, 'src') });
    expect((await snapshot(inRepo.id)).workspace).toMatchObject({ folder: path.join(repo, 'src'), workDir: path.join(repo, 'src'), branch: 'main' });
  });

  it('refuses a folder outside the roots, a worktree outside git, and bad input, with the reason', async () => {
    const outside = await create({ folder: tempDir('outside') });
    expect(outside.status).toBe(400);
    expect(outside.error).toContain('is not inside a project');
    expect(outside.error).toContain('Add folder');
    const dotdot = await create({ folder: `${repo}/../` });
    expect(dotdot.status).toBe(400);
    const noGit = await create({ folder: plain, worktree: true });
    expect(noGit.status).toBe(400);
    expect(noGit.error).toContain('not in a git repository');
    expect((await create({ folder: 3 })).status).toBe(400);
    expect((await create({ folder: path.join(plain, 'missing') })).status).toBe(400);
    const roots = await api<{ roots: string[] }>(server.url, '/api/workdirs');
    expect(roots.body.roots).toEqual([repo, plain]);
  });

  it('SKEIN_WORKDIR takes several roots and refuses a missing one, naming the variable', () => {
    const config = loadConfig([], { SKEIN_WORKDIR: `${repo}:${plain}` });
    expect(config.workDirs).toEqual([repo, plain]);
    expect(config.workDir).toBe(repo);
    const missing = path.join(plain, 'no-such-folder');
    expect(() => loadConfig([], { SKEIN_WORKDIR: `${repo},${missing}` })).toThrow(InvalidSettingError);
    expect(() => loadConfig([], { SKEIN_WORKDIR: `${repo},${missing}` })).toThrow(new RegExp(`SKEIN_WORKDIR=.*${missing} is not a folder`));
  });
});
