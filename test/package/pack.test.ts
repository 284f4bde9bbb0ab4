// The package as a user gets it: `npm pack` (which builds), the tarball
// installed into an empty folder, then `npx skein --help`, a short
// `skein run`, and `skein` serving the prebuilt UI. Which npm modules the
// packed server loads is watched by a module resolve hook (NODE_OPTIONS):
// the predictable model must load no provider SDK. Slow (a build and an
// install with the registry): its own file, generous timeouts.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../../server/config.js';
import { EXIT } from '../../server/cli/exit-codes.js';
import { runCli, startCli, type CliRun } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const SCREENSHOT = 'test/e2e/screenshots/dark-mode.png';
const SOURCES = ['server', 'shared', 'webui', 'scripts', 'docs', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'vite.config.ts', 'README.md', 'LICENSE', SCREENSHOT];
const SDKS = ['@anthropic-ai/sdk', 'openai', '@google/genai'];
const SDK_LOADED = /^loaded (openai|@anthropic-ai|@google\/genai)\//m;
const running: CliRun[] = [];
afterAll(() => {
  for (const r of running) r.child.kill('SIGKILL');
});

const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 540_000 });

/** NODE_OPTIONS that make a process print `loaded <package path>` on stderr for each module it resolves from node_modules. */
function watchingModules(): string {
  const dir = tempDir('pack-hook');
  const hook = path.join(dir, 'hook.mjs');
  fs.writeFileSync(hook, `export async function resolve(s, c, next) { const r = await next(s, c); if (r.url.includes('/node_modules/')) process._rawDebug('loaded ' + r.url.split('/node_modules/').pop()); return r; }\n`);
  const register = path.join(dir, 'register.mjs');
  fs.writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hook).href)});\n`);
  return `--import=${pathToFileURL(register).href}`;
}

let tarball: string;
let files: string[];
let app: string;

describe('npm pack, installed into an empty folder', () => {
  beforeAll(() => {
    // Packed from a copy: the build empties dist/, which other tests running now may be reading.
    const copy = tempDir('pack-src');
    for (const entry of SOURCES) fs.cpSync(entry, path.join(copy, entry), { recursive: true });
    fs.symlinkSync(path.resolve('node_modules'), path.join(copy, 'node_modules'));
    const out = tempDir('pack-out');
    npm(['pack', '--pack-destination', out, '--silent'], copy);
    const name = fs.readdirSync(out).find((f) => f.endsWith('.tgz'));
    expect(name).toMatch(/^skein-\d+\.\d+\.\d+\.tgz$/);
    tarball = path.join(out, name!);
    files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);
    app = tempDir('pack-app');
    npm(['install', tarball, '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], app);
  }, 900_000);

  it('has the compiled server, the built UI, the docs README links to, its screenshot and the license', () => {
    for (const needed of ['package/dist/server/cli/bin.js', 'package/dist/server/main.js', 'package/dist/server/agent/system-prompt.md', 'package/dist/server/compaction/summary-prompt.md', 'package/dist/webui/index.html', 'package/LICENSE']) {
      expect(files).toContain(needed);
    }
    expect(files.filter((f) => f.endsWith('.ts'))).toEqual([]);
    // The pages and the image README links to come along (npm shows README; its links must resolve in the package too).
    const readme = fs.readFileSync('README.md', 'utf8');
    const readmeDocs = [...readme.matchAll(/\]\((docs\/[\w-]+\.md)/g)].map((m) => `package/${m[1]}`);
    expect(readmeDocs.length).toBeGreaterThan(10);
    for (const page of new Set(readmeDocs)) expect(files).toContain(page);
    expect(readme).toContain(`](${SCREENSHOT})`);
    expect(files).toContain(`package/${SCREENSHOT}`);
    expect(files).toContain('package/README.md');
    expect(execFileSync('tar', ['-xzOf', tarball, 'package/LICENSE'], { encoding: 'utf8' })).toMatch(/^MIT License\n\nCopyright \(c\) the skein authors\n/);
  });

  it('can be published: not private, MIT, the provider SDKs optional (a plain install gets them)', () => {
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' })) as Record<string, unknown>;
    expect(manifest.private).toBeUndefined();
    expect(manifest.name).toBe('skein');
    expect(manifest.license).toBe('MIT');
    expect(Object.keys(manifest.optionalDependencies as object).sort()).toEqual([...SDKS].sort());
    for (const sdk of SDKS) expect(Object.keys(manifest.dependencies as object)).not.toContain(sdk);
    // Only runtime dependencies came along (no TypeScript runner, no UI framework sources), and the SDKs did.
    for (const devOnly of ['tsx', 'typescript', 'vite', 'lit']) expect(fs.existsSync(path.join(app, 'node_modules', devOnly)), devOnly).toBe(false);
    for (const sdk of SDKS) expect(fs.existsSync(path.join(app, 'node_modules', sdk, 'package.json')), sdk).toBe(true);
  });

  it('runs: --help, a predictable turn and the server with the UI, none loading a provider SDK', { timeout: 300_000 }, async () => {
    const npx = ['npx', '--no-install', 'skein'];
    const help = await runCli(['--help'], {}, { command: npx, cwd: app });
    expect(help.code, help.stderr).toBe(EXIT.ok);
    for (const s of SETTINGS) {
      expect(help.stdout).toContain(s.env);
      expect(help.stdout).toContain(s.flag);
    }
    expect(help.stdout).toMatch(/^ {2}run "TASK"/m);

    const bin = [path.join(app, 'node_modules', '.bin', 'skein')];
    const env = { SKEIN_DATA_DIR: tempDir('pack-data'), SKEIN_WORKDIR: tempDir('pack-work'), NODE_OPTIONS: watchingModules() };
    // Through the bin link itself: npx would be a process of its own, with its own modules.
    const run = await runCli(['run', '--json', 'bash: echo from-the-tarball'], env, { command: bin, cwd: app });
    expect(run.code, run.stderr).toBe(EXIT.ok);
    const events = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; output?: string });
    expect(events.find((e) => e.kind === 'tool_result')?.output).toContain('from-the-tarball');
    // The hook sees the server's own dependencies (so it watches), and none of the SDKs.
    expect(run.stderr).toMatch(/^loaded express\//m);
    expect(run.stderr).toMatch(/^loaded ws\//m);
    expect(run.stderr).not.toMatch(SDK_LOADED);

    // No command: the server, with the UI from the package (the bin link: the signal reaches the server).
    const server = startCli(['--port', '0'], env, { command: bin, cwd: app });
    running.push(server);
    await expect.poll(() => /running at (http:\/\/[\d.:]+)\/\?token=(\S+)/.exec(server.stdout()), { timeout: 60_000 }).toBeTruthy();
    const [, url, token] = /running at (http:\/\/[\d.:]+)\/\?token=(\S+)/.exec(server.stdout())!;
    const page = await fetch(`${url}/`, { headers: { authorization: `Bearer ${decodeURIComponent(token!)}`, accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script type="module"');
    server.child.kill('SIGTERM');
    const ended = await server.result;
    expect(ended.code).toBe(0);
    expect(ended.stderr).toMatch(/^loaded express\//m);
    expect(ended.stderr).not.toMatch(SDK_LOADED);
  });

  it('an OpenAI model loads its SDK on its first call, and says how to install it when it is missing', { timeout: 300_000 }, async () => {
    const bin = [path.join(app, 'node_modules', '.bin', 'skein')];
    // A key and a server nobody listens on: the call fails at once (no retries), after the SDK is loaded.
    const env = { SKEIN_DATA_DIR: tempDir('pack-data'), SKEIN_WORKDIR: tempDir('pack-work'), NODE_OPTIONS: watchingModules(), OPENAI_API_KEY: 'sk-none', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', SKEIN_RETRY_MAX: '0' };
    const loads = await runCli(['run', '--model', 'gpt-4.1', 'hello'], env, { command: bin, cwd: app });
    expect(loads.code, loads.stderr).toBe(EXIT.turnFailed);
    expect(loads.stderr).toMatch(/^loaded openai\//m);
    expect(loads.stderr).not.toMatch(/^loaded (@anthropic-ai|@google\/genai)\//m);

    // As after `npm install --omit=optional`: the server starts, and the call says what to run.
    fs.rmSync(path.join(app, 'node_modules', 'openai'), { recursive: true });
    const missing = await runCli(['run', '--model', 'gpt-4.1', 'hello'], env, { command: bin, cwd: app });
    expect(missing.code, missing.stderr).toBe(EXIT.turnFailed);
    expect(missing.stdout + missing.stderr).toContain('model "gpt-4.1" needs the package openai, which is not installed');
    expect(missing.stdout + missing.stderr).toContain('npm install openai');
  });
});
