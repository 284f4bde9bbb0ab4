// Runs a mutation command with a temporary folder of its own (TMPDIR), removed
// when it ends: Stryker re-runs the covering tests for every mutant, and a
// test file whose tests are all filtered out for a mutant (or a test process
// Stryker kills on a timeout) runs no after-hook, so the folders its tests
// made at collection stayed in the shared /tmp (hundreds per run). A run that
// was killed outright leaves its folder to the next run, which removes every
// such folder whose process is gone.
// Usage: node scripts/mutation/own-tmp.mjs <command> [args...]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const PREFIX = 'skein-mutation-tmp-';
const base = os.tmpdir();

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

for (const name of fs.readdirSync(base)) {
  const pid = name.startsWith(PREFIX) ? Number(name.slice(PREFIX.length)) : NaN;
  if (Number.isInteger(pid) && !alive(pid)) fs.rmSync(path.join(base, name), { recursive: true, force: true });
}

const own = path.join(base, `${PREFIX}${process.pid}`);
fs.mkdirSync(own, { recursive: true });
const remove = () => fs.rmSync(own, { recursive: true, force: true, maxRetries: 3 });
const [command, ...args] = process.argv.slice(2);
if (!command) throw new Error('usage: own-tmp.mjs <command> [args...]');
const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, TMPDIR: own } });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('error', (err) => {
  remove();
  console.error(`${command}: ${err.message}`);
  process.exit(2);
});
child.on('exit', (code, signal) => {
  remove();
  process.exit(code ?? (signal ? 1 : 0));
});
