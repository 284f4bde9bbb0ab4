// The hardening keeps the user's own git config: a filter the user installed
// globally (as `git lfs install` does) still runs for the server's git, and a
// repository that redefines that filter in its own config gets the user's
// program back, not its own. Also: git's environment variables in the
// server's environment never reach its git, and a PATH with a relative entry
// does not make the server run a `git` planted in the working folder.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangesReport } from '../../shared/protocol.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';

const home = tempDir('git-user-home');
const markers = tempDir('git-user-markers');
const repo = tempDir('git-user-repo');
const saved = { HOME: process.env.HOME, GIT_DIR: process.env.GIT_DIR, GIT_EXTERNAL_DIFF: process.env.GIT_EXTERNAL_DIFF, PATH: process.env.PATH };
let server: TestServer;

function script(file: string, marker: string, body: string): string {
  fs.writeFileSync(file, `#!/bin/sh\necho ran >> '${marker}'\n${body}\n`, { mode: 0o755 });
  return file;
}
/** Plain git for the test's own setup, without the variables planted for the server. */
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=u', '-c', 'user.email=u@example.invalid', '-c', 'init.defaultBranch=main', ...args], {
    cwd: repo,
    encoding: 'utf8',
    env: { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GIT_'))), PATH: saved.PATH },
  });

beforeAll(async () => {
  // The user's own ~/.gitconfig: a "store" filter, like git-lfs, that upper-cases what it stores.
  const userClean = script(path.join(home, 'user-clean'), path.join(markers, 'user-clean'), "tr a-z A-Z");
  const userSmudge = script(path.join(home, 'user-smudge'), path.join(markers, 'user-smudge'), 'cat');
  fs.writeFileSync(path.join(home, '.gitconfig'), `[filter "store"]\n\tclean = ${userClean}\n\tsmudge = ${userSmudge}\n\trequired = true\n`);
  process.env.HOME = home;
  git('init', '--quiet');
  fs.writeFileSync(path.join(repo, '.gitattributes'), '*.dat filter=store\n');
  fs.writeFileSync(path.join(repo, 'x.dat'), 'abc\n');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'start');
  // The repository redefines the user's filter with a program of its own.
  const evil = script(path.join(tempDir('git-user-evil'), 'evil'), path.join(markers, 'repository'), 'cat');
  git('config', 'filter.store.clean', evil);
  git('config', 'filter.store.smudge', evil);
  // Variables that would send git elsewhere, in the server's own environment.
  process.env.GIT_DIR = path.join(tempDir('git-user-elsewhere'), '.git');
  process.env.GIT_EXTERNAL_DIFF = script(path.join(home, 'ext'), path.join(markers, 'external-diff'), 'exit 0');
  // A `git` of the repository's own, and a PATH that looks in the current folder first.
  script(path.join(repo, 'git'), path.join(markers, 'planted-git'), 'exit 1');
  fs.appendFileSync(path.join(repo, '.git', 'info', 'exclude'), '/git\n');
  process.env.PATH = `.${path.delimiter}${saved.PATH}`;
  server = await startTestServer({ SKEIN_WORKDIR: repo });
});
afterAll(async () => {
  await server?.close();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe("the user's own git config", () => {
  it("a globally installed filter still runs for the server's git; the repository's redefinition does not", async () => {
    expect(git('cat-file', '-p', 'HEAD:x.dat')).toBe('ABC\n'); // the user's filter stored it
    const session = (await api<{ id: string }>(server.url, '/api/sessions', { body: { folder: repo } })).body.id;
    fs.writeFileSync(path.join(repo, 'x.dat'), 'abd\n');
    const answer = await api<ChangesReport & { error?: string }>(server.url, `/api/sessions/${session}/changes?all=1`); // the test changes the files itself, not through the session
    expect(answer.status, answer.body.error).toBe(200);
    const report = answer.body;
    // Cleaned by the user's filter (upper case), so the diff is against what was stored.
    expect(report.files.map((f) => f.path)).toEqual(['x.dat']);
    expect(report.files[0]!.diff).toContain('-ABC');
    expect(report.files[0]!.diff).toContain('+ABD');
    expect(fs.existsSync(path.join(markers, 'user-clean'))).toBe(true);

    // A worktree: checked out through the user's smudge.
    fs.rmSync(path.join(markers, 'user-smudge'), { force: true });
    const own = await api<{ id: string; error?: string }>(server.url, '/api/sessions', { body: { folder: repo, worktree: true } });
    expect(own.status, own.body.error).toBe(201);
    expect(fs.existsSync(path.join(markers, 'user-smudge'))).toBe(true);

    expect(fs.existsSync(path.join(markers, 'repository'))).toBe(false);
    expect(fs.existsSync(path.join(markers, 'external-diff'))).toBe(false);
    expect(fs.existsSync(path.join(markers, 'planted-git'))).toBe(false);
  });
});
