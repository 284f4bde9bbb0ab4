// Temporary folders made by tests and benches (test/helpers/temp-dir.ts) are
// removed when the process that made them exits: a day of runs once left
// about 70 GB of them and filled the disk.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const helper = path.resolve('test/helpers/temp-dir.ts');

describe('temporary folders of tests', () => {
  it('are gone once the process that made them exits, with what was written in them', () => {
    // Two evaluations of the module, as Vitest makes one per test file: one exit listener, every folder removed.
    const script = `
      const first = await import(${JSON.stringify(helper)});
      const second = await import(${JSON.stringify(`${helper}?again`)});
      const fs = await import('node:fs');
      const before = process.listenerCount('exit');
      const a = first.tempDir('exit-a');
      const b = second.tempDir('exit-b');
      fs.mkdirSync(a + '/deep/er', { recursive: true });
      fs.writeFileSync(a + '/deep/er/file', 'x'.repeat(100000));
      fs.writeFileSync(b + '/file', 'y');
      console.log(JSON.stringify({ a, b, listeners: process.listenerCount('exit') - before, distinct: first !== second }));
    `;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    const { a, b, listeners, distinct } = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { a: string; b: string; listeners: number; distinct: boolean };
    expect(distinct).toBe(true);
    expect(listeners).toBe(1);
    expect(a.startsWith(path.join(path.dirname(a), 'skein-exit-a-'))).toBe(true);
    expect(fs.existsSync(a)).toBe(false);
    expect(fs.existsSync(b)).toBe(false);
  });
});
