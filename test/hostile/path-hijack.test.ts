// A repository that ships its own `bash` and `bwrap`, for a server whose PATH
// has a relative entry ('.' or an empty one, as some shell setups leave it).
// Tools are spawned with the working folder as their cwd, so a bare name
// would resolve to the repository's program and run it unconfined. The
// planted programs write a marker outside the folder: none may appear, and
// the command still runs in the real bash (inside the real sandbox).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bashTool } from '../../server/tools/bash.js';
import { absolutePathEntries, toolEnvironment } from '../../server/tools/env.js';
import { sandboxSettingsOf } from '../../server/tools/sandbox.js';
import type { ToolContext } from '../../server/tools/tool.js';
import { tempDir } from '../helpers/temp-dir.js';

const realPath = process.env.PATH ?? '';
afterEach(() => {
  process.env.PATH = realPath;
});

/** A working folder with `bash` and `bwrap` of its own; each records that it ran in `markers`. */
function hijackingRepo(): { work: string; markers: string } {
  const work = tempDir('path-hijack');
  const markers = tempDir('path-hijack-markers');
  for (const name of ['bash', 'bwrap']) {
    const file = path.join(work, name);
    fs.writeFileSync(file, `#!/bin/sh\necho ran > ${markers}/${name}\necho hijacked\n`);
    fs.chmodSync(file, 0o755);
  }
  return { work, markers };
}

function ctx(work: string, sandboxed: boolean): ToolContext {
  const sandbox = sandboxed ? sandboxSettingsOf({ sandbox: 'workspace', sandboxNetwork: false, dataDir: tempDir('path-hijack-data') }) : undefined;
  return { workDir: work, signal: new AbortController().signal, bashTimeoutMs: 20_000, outputLimit: 30_000, ...(sandbox && { sandbox }) };
}

describe('a relative PATH entry never runs the repository\'s own programs', () => {
  it('control: with "." first on PATH, a bare "bash" spawned in the folder is the repository\'s', () => {
    const { work, markers } = hijackingRepo();
    const out = spawnSync('bash', ['-c', 'echo real'], { cwd: work, env: { PATH: `.:${realPath}` }, encoding: 'utf8' });
    expect(out.stdout).toContain('hijacked');
    expect(fs.existsSync(path.join(markers, 'bash'))).toBe(true);
  });

  it('the tool environment keeps only absolute PATH folders', () => {
    expect(absolutePathEntries(`.::bin:/usr/bin:node_modules/.bin:/bin`)).toBe('/usr/bin:/bin');
    expect(toolEnvironment({ PATH: `.:/usr/bin:` }).PATH).toBe('/usr/bin');
  });

  for (const sandboxed of [false, true]) {
    it(`bash ${sandboxed ? 'under SKEIN_SANDBOX=workspace (bwrap)' : 'unsandboxed'} runs the real program with "." and "" on the server's PATH`, async () => {
      const { work, markers } = hijackingRepo();
      process.env.PATH = `.::${realPath}`;
      const result = await bashTool.run({ command: 'echo real-bash-ran' }, ctx(work, sandboxed));
      expect(result.output).toContain('real-bash-ran');
      expect(result.output).not.toContain('hijacked');
      expect(fs.readdirSync(markers)).toEqual([]);
    });
  }
});
