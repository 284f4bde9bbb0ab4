// The server never runs a program the repository controls (issue 21, defect
// 2): for each git trick in git-tricks.ts, plain git first shows the trick is
// live (its marker appears: the control), then the real server, sandbox off,
// reads the Changes of a session in that repository and creates, reads,
// forks and deletes a worktree session in it. The answers must be right and the
// marker, outside the repository, must never appear.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangesReport, SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { waitForEvents } from '../helpers/ui.js';
import { COMMITTED, EDITED, plantGitTricks, UNCHANGED, type GitTrick } from './git-tricks.js';

const root = tempDir('hostile-git');
const markers = tempDir('hostile-git-markers');
const tricks = plantGitTricks(root, markers);
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ SKEIN_WORKDIR: root, SKEIN_SANDBOX: 'off' });
});
afterAll(async () => {
  await server?.close();
});

/** Each edit gets its own later time, so git always sees the files as touched. */
let clock = Math.floor(Date.now() / 1000) + 10;
function edit(dir: string, trick: GitTrick, to = EDITED): void {
  clock += 2;
  for (const file of trick.edits) {
    fs.writeFileSync(path.join(dir, file), to);
    fs.utimesSync(path.join(dir, file), clock, clock);
  }
  fs.writeFileSync(path.join(dir, 'b.txt'), UNCHANGED);
  fs.utimesSync(path.join(dir, 'b.txt'), clock, clock);
}

/** Plain git as a user would run it, the way that makes the trick fire. */
function control(trick: GitTrick): void {
  const run = (args: string[], input?: string) => {
    try {
      execFileSync('git', ['-c', 'user.name=u', '-c', 'user.email=u@example.invalid', ...args], { cwd: trick.dir, stdio: ['pipe', 'pipe', 'pipe'], input: input ?? '', timeout: 30_000 });
    } catch {
      // Several tricks make git fail (a fake ssh, gpg, process filter); what counts is that they ran.
    }
  };
  edit(trick.dir, trick);
  switch (trick.control.kind) {
    case 'status':
      run(['status', '--porcelain']);
      break;
    case 'diff':
      run(['diff', 'HEAD']);
      break;
    case 'worktree-add': {
      const where = path.join(tempDir('control-worktree'), 'wt');
      run(['worktree', 'add', '-b', `control-${path.basename(where)}-${clock}`, where]);
      run(['worktree', 'remove', '--force', where]);
      break;
    }
    case 'commit':
      run(['commit', '-am', 'control']);
      run(['reset', '--soft', 'HEAD~1']);
      break;
    case 'tty-diff':
      // Pagers start only on a terminal: `script` gives git one.
      execFileSync('script', ['-qec', 'git diff HEAD', '/dev/null'], { cwd: trick.dir, stdio: ['pipe', 'pipe', 'pipe'], timeout: 30_000 });
      break;
    case 'ssh-fetch':
      run(['ls-remote', 'origin']);
      break;
    case 'credential':
      run(['credential', 'fill'], 'protocol=https\nhost=example.invalid\n\n');
      break;
    case 'signed-commit':
      run(['commit', '--allow-empty', '-m', 'signed']);
      break;
  }
}

const create = async (body: Record<string, unknown>) => {
  const res = await api<{ id: string; error?: string }>(server.url, '/api/sessions', { body });
  expect(res.status, res.body.error).toBe(201);
  return res.body.id;
};
// all=1: every change in the folder (the test edits the files itself, not through the session's tools).
const changes = async (id: string) => (await api<ChangesReport>(server.url, `/api/sessions/${id}/changes?all=1`)).body;
const workspaceOf = async (id: string) => (await api<SessionSnapshot>(server.url, `/api/sessions/${id}`)).body.workspace!;

/** The Changes answer is right: the edit to a.txt and the new file, and nothing else (b.txt only got a new time). */
function expectRightChanges(report: ChangesReport, alsoModified: string[] = []): void {
  expect(report.git).toBe(true);
  const expected = [['a.txt', 'modified'], ['new.txt', 'untracked'], ...alsoModified.map((p) => [p, 'modified'])].sort((a, b) => a[0]!.localeCompare(b[0]!));
  expect(report.files.map((f) => [f.path, f.status])).toEqual(expected);
  const diff = report.files.find((f) => f.path === 'a.txt')!.diff;
  expect(diff).toContain('-aaa');
  expect(diff).toContain('+bbb');
  expect(report.files.find((f) => f.path === 'new.txt')!.diff).toContain('+made by the session');
  // A dirty submodule shows as git shows it.
  for (const p of alsoModified) expect(report.files.find((f) => f.path === p)!.diff).toMatch(/Subproject commit [0-9a-f]+-dirty/);
}

const idle = (events: SkeinEvent[]) => events.filter((e) => e.kind === 'state' && e.to === 'WaitingForUserInput').length;

/** A turn in the session, so that it has an event to fork at; returns that event's seq. */
async function aTurn(id: string): Promise<number> {
  await api(server.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: a turn to fork at' } });
  const events = await waitForEvents(server.url, id, (es) => idle(es) > 0, 60_000);
  return events.filter((e) => e.kind === 'agent').at(-1)!.seq;
}

const removeWithWorktree = (id: string) => api<{ error?: string }>(server.url, `/api/sessions/${id}?worktree=remove`, { method: 'DELETE' });

const ran = (trick: GitTrick) => (fs.existsSync(trick.marker) ? fs.readFileSync(trick.marker, 'utf8') : '');

describe("the server's own git runs no program of the repository's", () => {
  for (const trick of tricks) {
    it(`${trick.name}: ${trick.what}`, async () => {
      control(trick);
      expect(ran(trick), 'plain git did not fire the trick, so this test would prove nothing').toContain('ran:');
      fs.rmSync(trick.marker);

      // A session in the repository's own folder: its Changes.
      const inPlace = await create({ folder: trick.dir });
      edit(trick.dir, trick);
      fs.writeFileSync(path.join(trick.dir, 'new.txt'), 'made by the session\n');
      expectRightChanges(await changes(inPlace), trick.alsoModified);
      expect(ran(trick)).toBe('');

      // A worktree session: created (a checkout), its Changes, refused while dirty, removed when clean.
      const own = await create({ folder: trick.dir, worktree: true });
      const ws = await workspaceOf(own);
      expect(fs.readFileSync(path.join(ws.worktree!, 'a.txt'), 'utf8')).toBe(COMMITTED);
      edit(ws.worktree!, { ...trick, edits: ['a.txt'] });
      fs.writeFileSync(path.join(ws.worktree!, 'new.txt'), 'made by the session\n');
      expectRightChanges(await changes(own));
      const refused = await api<{ code: string; files: string[] }>(server.url, `/api/sessions/${own}?worktree=remove`, { method: 'DELETE' });
      expect(refused.body.code).toBe('dirty_worktree');
      expect(refused.status).toBe(409);
      expect(refused.body.files.sort()).toEqual(['a.txt', 'new.txt']);
      fs.rmSync(path.join(ws.worktree!, 'new.txt'));
      edit(ws.worktree!, { ...trick, edits: ['a.txt'] }, COMMITTED);

      // A fork of it: a new worktree on a new branch, starting where the original's branch is.
      const forked = await api<{ id: string; error?: string }>(server.url, `/api/sessions/${own}/fork`, { body: { seq: await aTurn(own) } });
      expect(forked.status, forked.body.error).toBe(201);
      const forkWs = await workspaceOf(forked.body.id);
      expect(forkWs.branch).toBe(`skein/${forked.body.id}`);
      expect(fs.readFileSync(path.join(forkWs.worktree!, 'a.txt'), 'utf8')).toBe(COMMITTED);
      for (const id of [own, forked.body.id]) {
        const removed = await removeWithWorktree(id);
        expect(removed.status, removed.body.error).toBe(200);
      }
      expect(fs.existsSync(ws.worktree!)).toBe(false);
      expect(fs.existsSync(forkWs.worktree!)).toBe(false);

      expect(ran(trick)).toBe('');
      fs.rmSync(path.join(trick.dir, 'new.txt'));
      edit(trick.dir, trick, COMMITTED);
    });
  }
});
