// Issue 21, defect 2, as reported: a model in the sandbox (SKEIN_SANDBOX=
// workspace) writes git config, hooks and attributes that name its programs;
// the server then runs git outside the sandbox for the Changes panel and for
// worktree sessions. None of those programs may run on the host. Whether the
// sandbox let the writes through (it should keep .git/config read-only) or
// not, no marker may appear; when a write did go through, plain git shows
// the planted program is live, so the test proves something either way.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangesReport, SkeinEvent } from '../../shared/protocol.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { eventsOf, waitForEvents } from '../helpers/ui.js';

const repo = tempDir('sandbox-git-repo');
const markers = tempDir('sandbox-git-markers');
let server: TestServer;

const gitIn = (...args: string[]) => execFileSync('git', ['-c', 'user.name=u', '-c', 'user.email=u@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

beforeAll(async () => {
  gitIn('init', '--quiet');
  fs.writeFileSync(path.join(repo, 'a.txt'), 'aaa\n');
  gitIn('add', '-A');
  gitIn('commit', '--quiet', '-m', 'start');
  server = await startTestServer({ SKEIN_WORKDIR: repo, SKEIN_SANDBOX: 'workspace' });
});
afterAll(async () => {
  await server?.close();
});

const idle = (events: SkeinEvent[]) => events.filter((e) => e.kind === 'state' && e.to === 'WaitingForUserInput').length;

async function bash(id: string, command: string): Promise<string> {
  const before = idle(await eventsOf(server.url, id));
  await api(server.url, `/api/sessions/${id}/messages`, { body: { text: `bash: ${command}` } });
  const events = await waitForEvents(server.url, id, (es) => idle(es) > before, 60_000);
  return (events.filter((e) => e.kind === 'tool_result').at(-1) as { output: string }).output;
}

const markersNow = () => fs.readdirSync(markers).sort();

describe('defect 2: the sandbox plants git programs, the server runs none of them', () => {
  it('core.fsmonitor, core.hooksPath, a filter and a textconv written from the sandbox run neither for Changes nor for a worktree session', async () => {
    const session = (await api<{ id: string }>(server.url, '/api/sessions', { body: { folder: repo } })).body.id;
    const mark = (name: string) => `echo ran >> ${path.join(markers, name)}`;
    const planted = await bash(
      session,
      [
        `printf '#!/bin/sh\\n${mark('fsmonitor')}\\n' > evil.sh; printf '#!/bin/sh\\n${mark('filter')}\\ncat\\n' > filter.sh; chmod +x evil.sh filter.sh`,
        `mkdir -p .githooks; for h in post-index-change post-checkout reference-transaction; do printf '#!/bin/sh\\n${mark('hook')}\\n' > .githooks/$h; chmod +x .githooks/$h; done`,
        `echo '*.txt filter=evil diff=evil' > .gitattributes; echo '*.txt filter=evil' > .git/info/attributes`,
        `git config core.fsmonitor "$PWD/evil.sh"; echo fsmonitor=$?`,
        `git config core.hooksPath "$PWD/.githooks"; echo hooksPath=$?`,
        `git config filter.evil.clean "$PWD/filter.sh"; git config filter.evil.smudge "$PWD/filter.sh"; echo filter=$?`,
        `git config diff.evil.textconv "sh -c '${mark('textconv')}; cat \\"\\$0\\"'"; echo textconv=$?`,
        'echo bbb > a.txt',
      ].join('\n'),
    );
    const configWritten = /fsmonitor=0/.test(planted);
    if (configWritten) {
      // Control: the user's own git now runs the planted programs.
      gitIn('diff', 'HEAD');
      expect(markersNow().length, planted).toBeGreaterThan(0);
      for (const name of markersNow()) fs.rmSync(path.join(markers, name));
      fs.utimesSync(path.join(repo, 'a.txt'), new Date(), new Date(Date.now() + 5000));
    }

    const report = (await api<ChangesReport>(server.url, `/api/sessions/${session}/changes`)).body;
    expect(report.files.find((f) => f.path === 'a.txt')).toMatchObject({ status: 'modified' });
    expect(report.files.find((f) => f.path === 'a.txt')!.diff).toContain('+bbb');
    expect(markersNow()).toEqual([]);

    // A worktree session of the same repository: created (a checkout, a new branch), then removed.
    const own = await api<{ id: string; error?: string }>(server.url, '/api/sessions', { body: { folder: repo, worktree: true } });
    expect(own.status, own.body.error).toBe(201);
    expect((await api<ChangesReport>(server.url, `/api/sessions/${own.body.id}/changes`)).body.files).toEqual([]);
    const removed = await api<{ error?: string }>(server.url, `/api/sessions/${own.body.id}?worktree=remove`, { method: 'DELETE' });
    expect(removed.status, removed.body.error).toBe(200);
    expect(markersNow()).toEqual([]);
  });
});
