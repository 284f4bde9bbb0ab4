// Build step for the server: a clean dist/server and dist/shared compiled by
// tsc (tsconfig.build.json), plus the files the server reads beside its
// modules (new URL('./system-prompt.md', import.meta.url)), copied to the same
// relative paths. The web UI is built by vite into dist/webui before this.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

// No stale module of a deleted source may reach the package.
for (const dir of ['dist/server', 'dist/shared']) fs.rmSync(dir, { recursive: true, force: true });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

const from = 'server';
const to = path.join('dist', 'server');
let copied = 0;
for (const entry of fs.readdirSync(from, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.md')) continue;
  const source = path.join(entry.parentPath ?? entry.path, entry.name);
  const target = path.join(to, path.relative(from, source));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(source, target);
  copied++;
}
if (copied === 0) throw new Error('build-server: no .md assets found under server/');
