// The Changes panel and the search tools meet links the model planted: an
// untracked link to a key is listed as a link (its text), never with the
// key's content; grep and glob do not follow a link out of the folder.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { api, startTestServer, tempDir } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';
import { plantOutside, SECRET } from './link-tricks.js';

describe('links in the Changes panel and the search tools', () => {
  for (const sandbox of ['off', 'workspace'] as const) {
    it(`SKEIN_SANDBOX=${sandbox}: Changes shows a planted link as a link; grep, glob and read_file never show the key`, async () => {
      const work = tempDir('links-changes');
      execFileSync('git', ['init', '-q', work]);
      fs.writeFileSync(path.join(work, 'README'), 'x\n');
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'add', '.'], { cwd: work });
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'x'], { cwd: work });
      const outside = plantOutside(tempDir('links-changes-home'));
      const server = await startTestServer({ SKEIN_SANDBOX: sandbox, SKEIN_WORKTREE: 'off' }, { dataDir: tempDir('links-changes-data'), workDir: work });
      try {
        const id = (await api<{ id: string }>(server.url, '/api/sessions', { body: {} })).body.id;
        const client = await TestClient.connect(server.url, id);
        const turns = [`bash: ln -s ${outside.secret} leak && ln -s ${path.dirname(outside.secret)} keys && ln -s ${outside.secret} .gitignore`, 'grep: PRIVATE', 'glob: **/*', 'read: leak', 'read: keys/id_ed25519'];
        for (const [i, text] of turns.entries()) {
          client.send({ type: 'user_message', text });
          await client.untilIdle(i + 1, 60_000);
        }
        const results = client.events.filter((e: SkeinEvent) => e.kind === 'tool_result');
        expect(results).toHaveLength(turns.length);
        expect(results.map((r) => (r.kind === 'tool_result' ? r.output : '')).join('\n')).not.toContain(SECRET);
        client.close();
        const changes = await api<{ files: { path: string; diff: string }[] }>(server.url, `/api/sessions/${id}/changes`);
        expect(changes.body.files.map((f) => f.path)).toEqual(expect.arrayContaining(['leak', 'keys']));
        expect(changes.body.files.find((f) => f.path === 'leak')!.diff).toContain(`+${outside.secret}`);
        expect(JSON.stringify(changes.body)).not.toContain(SECRET);
      } finally {
        await server.close();
      }
    });
  }
});
