// A cloned repository's AGENTS.md or CLAUDE.md (in the working folder or any
// folder up to the repository's root) that is a symbolic link to a key must
// not put the key into the system prompt: it would be sent with every
// request, logged, exported and shown. Each link trick (link-tricks.ts) is
// tried; a link inside the repository (CLAUDE.md -> AGENTS.md style) still
// works, and the user is told what was not read and why.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInstructionFiles } from '../../server/agent/project-instructions.js';
import type { SkeinEvent } from '../../shared/protocol.js';
import { api, startTestServer, tempDir } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';
import { filesHoldingSecret, LINK_TRICKS, plantLink, plantOutside, SECRET } from './link-tricks.js';

function repo(): { root: string; work: string } {
  const root = tempDir('links-instructions');
  execFileSync('git', ['init', '-q', root]);
  const work = path.join(root, 'pkg', 'app');
  fs.mkdirSync(work, { recursive: true });
  return { root, work };
}

describe('instruction files that are links', () => {
  for (const trick of LINK_TRICKS) {
    for (const where of ['AGENTS.md', '../CLAUDE.md', '../../AGENTS.md']) {
      it(`${where} as a ${trick} link to ~/.ssh/id_ed25519 is not read, and is named as skipped`, () => {
        const { root, work } = repo();
        const outside = plantOutside(tempDir('links-home'));
        plantLink(work, where, trick, outside);
        fs.writeFileSync(path.join(root, 'pkg', where === '../CLAUDE.md' ? 'AGENTS.md.unused' : 'AGENTS.md'), 'plain rules\n');
        const { files, skipped } = readInstructionFiles(work);
        expect(JSON.stringify(files)).not.toContain(SECRET);
        // Dangling, to a folder, or through a linked folder: every one is named, with the link it is.
        expect(skipped).toEqual([{ path: where, reason: expect.stringMatching(/symbolic link.*not read$/) }]);
      });
    }
  }

  it('a link to another file inside the repository is read as that file (CLAUDE.md -> AGENTS.md)', () => {
    const { root, work } = repo();
    fs.mkdirSync(path.join(root, 'docs'));
    fs.writeFileSync(path.join(root, 'docs', 'RULES.md'), 'use tabs\n');
    fs.symlinkSync('../../docs/RULES.md', path.join(work, 'AGENTS.md'));
    const { files, skipped } = readInstructionFiles(work);
    expect(files.map((f) => [f.path, f.text])).toEqual([['AGENTS.md', 'use tabs\n']]);
    expect(skipped).toEqual([]);
  });

  it('a link to a link is not followed a second time (a chain could leave the repository)', () => {
    const { root, work } = repo();
    const outside = plantOutside(tempDir('links-home'));
    fs.symlinkSync(outside.secret, path.join(root, 'hop'));
    fs.symlinkSync('../../hop', path.join(work, 'AGENTS.md'));
    const { files, skipped } = readInstructionFiles(work);
    expect(JSON.stringify(files)).not.toContain(SECRET);
    expect(skipped).toEqual([{ path: 'AGENTS.md', reason: expect.stringMatching(/not a regular file: not read/) }]);
  });
});

describe('a session opened in a repository whose AGENTS.md links to a key', () => {
  for (const sandbox of ['off', 'workspace'] as const) {
    it(`SKEIN_SANDBOX=${sandbox}: nothing of the key in the log, the model's request or the data folder; the timeline says why`, async () => {
      const { work } = repo();
      const outside = plantOutside(tempDir('links-home'));
      plantLink(work, 'AGENTS.md', 'absolute', outside);
      const dataDir = tempDir('links-instructions-data');
      const server = await startTestServer({ SKEIN_SANDBOX: sandbox }, { dataDir, workDir: work });
      try {
        const id = (await api<{ id: string }>(server.url, '/api/sessions', { body: {} })).body.id;
        const client = await TestClient.connect(server.url, id);
        client.send({ type: 'user_message', text: 'echo: hello' });
        await client.untilIdle(1, 30_000);
        const instructions = client.events.filter((e: SkeinEvent) => e.kind === 'instructions');
        expect(instructions).toEqual([expect.objectContaining({ phase: 'start', files: [], text: '', skipped: [{ path: 'AGENTS.md', reason: expect.stringContaining('outside the repository: not read') }] })]);
        // Swapped later for a real file, the change is noticed and sent; the link never was.
        fs.rmSync(path.join(work, 'AGENTS.md'));
        fs.writeFileSync(path.join(work, 'AGENTS.md'), 'now a real file\n');
        client.send({ type: 'user_message', text: 'echo: again' });
        await client.untilIdle(2, 30_000);
        expect(client.events.filter((e: SkeinEvent) => e.kind === 'instructions').at(-1)).toMatchObject({ phase: 'changed', files: [{ path: 'AGENTS.md' }] });
        client.close();
      } finally {
        await server.close();
      }
      expect(filesHoldingSecret(dataDir)).toEqual([]);
    });
  }
});
