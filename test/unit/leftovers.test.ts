// The end-of-run check (global-setup.ts, leftovers.ts): what a run recorded
// and is still there is named, stopped and removed; a clean run passes; a
// process that is not the one recorded (its pid reused) is never touched; a
// killed run's resources are swept by the next run, a live run's never.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { setup } from '../helpers/global-setup.js';
import { cleanUp, findLeftovers, runDirName, sweepDeadRuns } from '../helpers/leftovers.js';
import { alive, untilGone } from '../helpers/processes.js';
import { register, startTime } from '../helpers/run-registry.js';
import { tempDirsPerTest } from '../helpers/temp-dir.js';

const newDir = tempDirsPerTest('leftovers');
const sleepers: ChildProcess[] = [];

function sleeper(): number {
  const child = spawn('sleep', ['300'], { stdio: 'ignore' });
  sleepers.push(child);
  return child.pid!;
}

afterEach(() => {
  for (const child of sleepers.splice(0)) child.kill('SIGKILL');
});

describe('the leftovers of a run', () => {
  it('names a process and a folder that are still there, then stops and removes them', async () => {
    const run = newDir();
    const pid = sleeper();
    const folder = newDir();
    register({ kind: 'process', what: 'llama-server', pid, started: startTime(pid) }, run);
    register({ kind: 'folder', what: 'temporary folder (data)', path: folder }, run);
    const named = findLeftovers(run);
    expect(named).toHaveLength(2);
    expect(named.join('\n')).toContain(`process llama-server (pid ${pid} running)`);
    expect(named.join('\n')).toContain(`folder temporary folder (data) (${folder})`);
    expect(cleanUp(run)).toEqual(named);
    await untilGone(pid);
    expect(fs.existsSync(folder)).toBe(false);
    expect(findLeftovers(run)).toEqual([]);
  });

  it('passes a run that stopped what it started', () => {
    const run = newDir();
    const folder = newDir();
    const forget = register({ kind: 'folder', what: 'temporary folder (work)', path: folder }, run);
    forget();
    // A cluster whose postmaster exited and whose folder went, its record left by a killed worker: nothing remains.
    register({ kind: 'postgres', what: 'PostgreSQL test cluster', pid: 999_999_999, started: '1', path: path.join(folder, 'gone') }, run);
    expect(findLeftovers(run)).toEqual([]);
  });

  it('never names nor kills a process that reused a recorded pid', () => {
    const run = newDir();
    const pid = sleeper();
    register({ kind: 'process', what: 'chromium', pid, started: String(Number(startTime(pid)) - 1) }, run);
    expect(findLeftovers(run)).toEqual([]);
    cleanUp(run);
    expect(alive(pid)).toBe(true);
  });

  it("sweeps a killed run's resources at the next run, and leaves a running one's alone", async () => {
    const root = newDir();
    const ownerGone = spawn('true');
    const deadPid = ownerGone.pid!;
    await new Promise((resolve) => ownerGone.once('exit', resolve));
    const dead = path.join(root, runDirName(deadPid, '12345'));
    const live = path.join(root, runDirName(process.pid, startTime(process.pid)));
    const orphan = sleeper();
    const running = sleeper();
    register({ kind: 'postgres', what: 'PostgreSQL test cluster', pid: orphan, started: startTime(orphan), path: newDir() }, dead);
    register({ kind: 'process', what: 'child skein server', pid: running, started: startTime(running) }, live);
    expect(sweepDeadRuns(root)).toHaveLength(1);
    await untilGone(orphan);
    expect(fs.existsSync(dead)).toBe(false);
    expect(alive(running)).toBe(true);
    expect(findLeftovers(live)).toHaveLength(1);
  });
});

describe('the end of a test run (globalSetup teardown)', () => {
  const saved = { TMPDIR: process.env.TMPDIR, SKEIN_TEST_RUN_DIR: process.env.SKEIN_TEST_RUN_DIR };
  afterEach(() => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it('fails the run, naming what was left, and removes it', async () => {
    process.env.TMPDIR = newDir(); // a registry root of this test's own, not the real run's
    const teardown = setup();
    const pid = sleeper();
    register({ kind: 'process', what: 'child skein server', pid, started: startTime(pid) });
    expect(teardown).toThrow(new RegExp(`left 1 resource\\(s\\) behind[^]*process child skein server \\(pid ${pid} running\\)`));
    await untilGone(pid);
  });

  it('passes when nothing was left', () => {
    process.env.TMPDIR = newDir();
    const folder = newDir(); // made before setup(): tempDir records in the run's registry, this one in the real run's
    const teardown = setup();
    register({ kind: 'folder', what: 'temporary folder (data)', path: folder })();
    expect(teardown).not.toThrow();
  });
});
