#!/usr/bin/env node
// Builds llama.cpp's own `llama-server` for the tests, from registry packages only:
// the npm package node-llama-cpp ships llama.cpp's full source as a git bundle
// (package/llama/gitRelease.bundle, its release named in llama.cpp.info.json).
// `npm pack` it, clone the bundle, and build only the llama-server target (CPU,
// static, no UI, no OpenSSL, no network at build time).
//
// Everything is cached outside the checkout, once per machine:
//   ${SKEIN_LLAMA_CACHE:-${XDG_CACHE_HOME:-~/.cache}/skein/llama-server}/
//     node-llama-cpp@<version>.release   the release that package carries (e.g. v0.5.0)
//     <release>/llama-server             the binary
//     <release>/src/                     the source tree (gguf-py, models/ggml-vocab-*.gguf)
//     <release>/models/                  tiny models (scripts/llama-server/tiny-model.py)
// SKEIN_TEST_LLAMA_SERVER=/path/to/llama-server uses a prebuilt binary instead
// (the source tree is still needed for the tiny models: it is fetched, not built).
//
// Two callers at once: one builds under a lock file, the other waits for it.
//
//   node scripts/llama-server/build.mjs            build (or find) the binary, print its path
//   node scripts/llama-server/build.mjs --models   also make every tiny model the tests use
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The node-llama-cpp release whose llama.cpp bundle is built (3.21.1 or later ship the bundle). */
export const NODE_LLAMA_CPP_VERSION = '3.22.1';

const here = path.dirname(fileURLToPath(import.meta.url));
const log = (msg) => process.stderr.write(`llama-server: ${msg}\n`);

export function cacheRoot() {
  if (process.env.SKEIN_LLAMA_CACHE) return path.resolve(process.env.SKEIN_LLAMA_CACHE);
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'skein', 'llama-server');
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/** Runs fn while holding lockFile (a file created with O_EXCL holding our pid); waits for a live holder, takes over a dead one's. */
async function withLock(lockFile, fn) {
  let announced = false;
  const waitMs = Number(process.env.SKEIN_LLAMA_LOCK_WAIT_MS) || 2 * 3600_000;
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`gave up after ${waitMs / 60_000} min waiting for ${lockFile} (another build); remove it if no build runs`);
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      const pid = Number(fs.readFileSync(lockFile, 'utf8').trim());
      if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) {
        // Written but not yet holding a pid, or left by a killed build: only a stale one is removed.
        const age = Date.now() - fs.statSync(lockFile, { throwIfNoEntry: false })?.mtimeMs;
        if (pid > 0 || age > 5_000) fs.rmSync(lockFile, { force: true });
      } else if (!announced) {
        log(`waiting for process ${pid}, which holds ${lockFile}`);
        announced = true;
      }
      await sleep(500);
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lockFile, { force: true });
  }
}

/** Runs a program to its end without blocking the event loop (a test's hang watchdog watches it); its stderr is kept for the error. */
function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', opts.stdout ?? 'ignore', 'pipe'], cwd: opts.cwd });
    let stderr = '';
    const timer = opts.timeoutMs && setTimeout(() => {
      stderr += `\n(killed after ${opts.timeoutMs / 1000} s)`;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    child.stderr.on('data', (d) => {
      stderr = (stderr + d).slice(-8000);
      if (opts.echo) process.stderr.write(d);
    });
    child.on('error', (e) => reject(new Error(`${cmd} could not start: ${e.message}`)));
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${cmd} ${args.join(' ')} failed (exit ${code ?? signal})${opts.echo ? '' : `:\n${stderr}`}`));
    });
  });
}

/** Packs node-llama-cpp, clones its llama.cpp bundle into <root>/<release>/src; returns the release. */
async function fetchSource(root) {
  const tmp = fs.mkdtempSync(path.join(root, '.pack-'));
  try {
    log(`npm pack node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`);
    await run('npm', ['pack', '--silent', `node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`], { cwd: tmp, timeoutMs: 5 * 60_000 });
    const tgz = fs.readdirSync(tmp).find((f) => f.endsWith('.tgz'));
    if (!tgz) throw new Error('npm pack made no tarball');
    await run('tar', ['xzf', tgz, 'package/llama/gitRelease.bundle', 'package/llama/llama.cpp.info.json'], { cwd: tmp });
    const info = JSON.parse(fs.readFileSync(path.join(tmp, 'package/llama/llama.cpp.info.json'), 'utf8'));
    const release = String(info.tag ?? '');
    if (!/^[A-Za-z0-9._-]+$/.test(release)) throw new Error(`llama.cpp.info.json names no usable release: ${JSON.stringify(info)}`);
    const src = path.join(root, release, 'src');
    if (!fs.existsSync(path.join(src, 'CMakeLists.txt'))) {
      fs.mkdirSync(path.join(root, release), { recursive: true });
      const into = path.join(root, release, `.src-${process.pid}`);
      fs.rmSync(into, { recursive: true, force: true });
      log(`git clone the llama.cpp ${release} bundle`);
      // The clone keeps its .git: llama.cpp's build info (llama-server --version) reads the commit from it.
      await run('git', ['-c', 'advice.detachedHead=false', 'clone', '--quiet', path.join(tmp, 'package/llama/gitRelease.bundle'), into]);
      fs.renameSync(into, src);
    }
    fs.writeFileSync(path.join(root, `node-llama-cpp@${NODE_LLAMA_CPP_VERSION}.release`), `${release}\n`);
    return release;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The cmake options: CPU only, static, only what llama-server needs, nothing fetched. */
export const CMAKE_OPTIONS = [
  '-DCMAKE_BUILD_TYPE=Release',
  '-DBUILD_SHARED_LIBS=OFF',
  '-DGGML_NATIVE=OFF', // portable: the cached binary may move to another CPU of the same machine type
  '-DGGML_OPENMP=OFF', // ggml's own thread pool: no libgomp at run time
  '-DLLAMA_BUILD_UI=OFF',
  '-DLLAMA_USE_PREBUILT_UI=OFF', // else it downloads the web UI from Hugging Face at build time
  '-DLLAMA_OPENSSL=OFF',
  '-DLLAMA_BUILD_TESTS=OFF',
  '-DLLAMA_BUILD_EXAMPLES=OFF',
  '-DLLAMA_BUILD_SERVER=ON',
  '-DLLAMA_BUILD_TOOLS=ON',
  '-DLLAMA_BUILD_APP=OFF',
  // LLAMA_CURL is gone from v0.5.0's CMakeLists (a deprecation warning only): left out.
];

async function buildBinary(root, release) {
  const dir = path.join(root, release);
  const src = path.join(dir, 'src');
  const build = path.join(dir, 'build');
  const jobs = process.env.SKEIN_LLAMA_JOBS || '2';
  const started = Date.now();
  log(`building llama-server ${release} in ${build} (-j${jobs}; about 7 minutes on two cores)`);
  await run('cmake', ['-S', src, '-B', build, ...CMAKE_OPTIONS]);
  await run('cmake', ['--build', build, '--target', 'llama-server', '-j', jobs]);
  const out = path.join(build, 'bin', 'llama-server');
  if (!fs.existsSync(out)) throw new Error(`the build finished without ${out}`);
  const tmp = path.join(dir, `.llama-server-${process.pid}`);
  fs.copyFileSync(out, tmp);
  fs.chmodSync(tmp, 0o755);
  fs.renameSync(tmp, path.join(dir, 'llama-server'));
  fs.rmSync(build, { recursive: true, force: true });
  const secs = Math.round((Date.now() - started) / 1000);
  fs.writeFileSync(path.join(dir, 'build-time.txt'), `${secs} s wall, -j${jobs}, ${new Date().toISOString()}\n`);
  log(`built in ${Math.floor(secs / 60)} min ${secs % 60} s: ${path.join(dir, 'llama-server')}`);
}

function knownRelease(root) {
  try {
    return fs.readFileSync(path.join(root, `node-llama-cpp@${NODE_LLAMA_CPP_VERSION}.release`), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

function ready(root, release, needBinary) {
  if (!release) return false;
  if (!fs.existsSync(path.join(root, release, 'src', 'gguf-py'))) return false;
  return !needBinary || fs.existsSync(path.join(root, release, 'llama-server'));
}

/**
 * The llama-server binary and the llama.cpp tree it was built from; builds both once per machine.
 * @returns {Promise<{ binary: string, src: string, release: string, dir: string }>}
 */
export async function ensureLlamaServerBuild() {
  const root = cacheRoot();
  const prebuilt = process.env.SKEIN_TEST_LLAMA_SERVER;
  if (prebuilt && !fs.statSync(prebuilt, { throwIfNoEntry: false })?.isFile()) {
    throw new Error(`SKEIN_TEST_LLAMA_SERVER=${prebuilt} is not a file`);
  }
  const needBinary = !prebuilt;
  const result = (release) => {
    const dir = path.join(root, release);
    return { binary: prebuilt ? path.resolve(prebuilt) : path.join(dir, 'llama-server'), src: path.join(dir, 'src'), release, dir };
  };
  let release = knownRelease(root);
  if (ready(root, release, needBinary)) return result(release);
  fs.mkdirSync(root, { recursive: true });
  return withLock(path.join(root, `node-llama-cpp@${NODE_LLAMA_CPP_VERSION}.lock`), async () => {
    release = knownRelease(root);
    if (!ready(root, release, false)) release = await fetchSource(root);
    if (needBinary && !ready(root, release, true)) await buildBinary(root, release);
    return result(release);
  });
}

/** A python3 with numpy: Debian's (python3-numpy, which check-system.sh installs) first, then PATH's. */
export function pythonWithNumpy() {
  const candidates = [process.env.SKEIN_PYTHON, '/usr/bin/python3', 'python3'].filter(Boolean);
  for (const py of candidates) {
    const r = spawnSync(py, ['-c', 'import numpy'], { stdio: 'ignore' });
    if (r.status === 0) return py;
  }
  throw new Error(`no python3 with numpy (tried ${candidates.join(', ')}): apt-get install python3-numpy, or set SKEIN_PYTHON`);
}

export const VOCABS = ['qwen2', 'llama-bpe', 'llama-spm'];

/**
 * A tiny llama-architecture GGUF with random weights and a real tokenizer, cached by (release, vocab, variant).
 * @param {{ vocab?: 'qwen2'|'llama-bpe'|'llama-spm', endless?: boolean }} opts
 */
export async function ensureTinyModelFile({ vocab = 'qwen2', endless = false } = {}) {
  if (!VOCABS.includes(vocab)) throw new Error(`unknown vocab ${vocab} (one of ${VOCABS.join(', ')})`);
  const { src, dir } = await ensureLlamaServerBuild();
  const file = path.join(dir, 'models', `tiny-${vocab}${endless ? '-endless' : ''}.gguf`);
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const args = [path.join(here, 'tiny-model.py'), '--tree', src, '--vocab', vocab, '--out', tmp];
  if (endless) args.push('--endless');
  try {
    await run(pythonWithNumpy(), args);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw new Error(`tiny-model.py failed for ${vocab}${endless ? ' (endless)' : ''}: ${e.message}`);
  }
  fs.renameSync(tmp, file); // atomic: a concurrent maker's file is the same model
  return file;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const built = await ensureLlamaServerBuild();
    if (process.argv.includes('--models')) {
      for (const vocab of VOCABS) for (const endless of [false, true]) await ensureTinyModelFile({ vocab, endless });
    }
    process.stdout.write(`${built.binary}\n`);
  } catch (e) {
    log(`FAILED: ${e.message}`);
    log('the llama.cpp tests (test/llama) need llama-server; SKEIN_TEST_LLAMA_SERVER=/path/to/llama-server uses a prebuilt one');
    process.exit(1);
  }
}
