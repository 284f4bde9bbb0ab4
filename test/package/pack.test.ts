// The package as a user gets it: `npm pack` (which builds), the tarball
// installed into an empty folder, then `npx skein --help`, a short
// `skein run`, and `skein` serving the prebuilt UI. Slow (a build and an
// install with the registry): its own file, generous timeouts.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../../server/config.js';
import { EXIT } from '../../server/cli/exit-codes.js';
import { runCli, startCli, type CliRun } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const SOURCES = ['server', 'shared', 'webui', 'scripts', 'docs', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'vite.config.ts', 'README.md'];
const running: CliRun[] = [];
afterAll(() => {
  for (const r of running) r.child.kill('SIGKILL');
});

const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 540_000 });

describe('npm pack, installed into an empty folder', () => {
  it('has the compiled server and the built UI, installs without dev dependencies, and runs', { timeout: 900_000 }, async () => {
    // Packed from a copy: the build empties dist/, which other tests running now may be reading.
    const copy = tempDir('pack-src');
    for (const entry of SOURCES) fs.cpSync(entry, path.join(copy, entry), { recursive: true });
    fs.symlinkSync(path.resolve('node_modules'), path.join(copy, 'node_modules'));
    const out = tempDir('pack-out');
    npm(['pack', '--pack-destination', out, '--silent'], copy);
    const tarball = fs.readdirSync(out).find((f) => f.endsWith('.tgz'));
    expect(tarball).toMatch(/^skein-\d+\.\d+\.\d+\.tgz$/);
    const files = execFileSync('tar', ['-tzf', path.join(out, tarball!)], { encoding: 'utf8' }).split('\n').filter(Boolean);
    for (const needed of ['package/dist/server/cli/bin.js', 'package/dist/server/main.js', 'package/dist/server/agent/system-prompt.md', 'package/dist/server/compaction/summary-prompt.md', 'package/dist/webui/index.html']) {
      expect(files).toContain(needed);
    }
    expect(files.filter((f) => f.endsWith('.ts'))).toEqual([]);
    // The pages README links to come along (npm shows README; its links to docs/ must resolve in the package too).
    const readmeDocs = [...fs.readFileSync('README.md', 'utf8').matchAll(/\]\((docs\/[\w-]+\.md)/g)].map((m) => `package/${m[1]}`);
    expect(readmeDocs.length).toBeGreaterThan(10);
    for (const page of new Set(readmeDocs)) expect(files).toContain(page);
    expect(files).toContain('package/README.md');

    const app = tempDir('pack-app');
    npm(['install', path.join(out, tarball!), '--no-audit', '--no-fund', '--prefer-offline'], app);
    // Only runtime dependencies came along: no TypeScript runner, no UI framework sources.
    for (const devOnly of ['tsx', 'typescript', 'vite', 'lit']) expect(fs.existsSync(path.join(app, 'node_modules', devOnly)), devOnly).toBe(false);

    const npx = ['npx', '--no-install', 'skein'];
    const help = await runCli(['--help'], {}, { command: npx, cwd: app });
    expect(help.code, help.stderr).toBe(EXIT.ok);
    for (const s of SETTINGS) {
      expect(help.stdout).toContain(s.env);
      expect(help.stdout).toContain(s.flag);
    }
    expect(help.stdout).toMatch(/^ {2}run "TASK"/m);

    const env = { SKEIN_DATA_DIR: tempDir('pack-data'), SKEIN_WORKDIR: tempDir('pack-work') };
    const run = await runCli(['run', '--json', 'bash: echo from-the-tarball'], env, { command: npx, cwd: app });
    expect(run.code, run.stderr).toBe(EXIT.ok);
    const events = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; output?: string });
    expect(events.find((e) => e.kind === 'tool_result')?.output).toContain('from-the-tarball');

    // No command: the server, with the UI from the package. Through the bin link itself
    // (npx would stand between the signal and the server).
    const server = startCli(['--port', '0'], env, { command: [path.join(app, 'node_modules', '.bin', 'skein')], cwd: app });
    running.push(server);
    await expect.poll(() => /running at (http:\/\/[\d.:]+)\/\?token=(\S+)/.exec(server.stdout()), { timeout: 60_000 }).toBeTruthy();
    const [, url, token] = /running at (http:\/\/[\d.:]+)\/\?token=(\S+)/.exec(server.stdout())!;
    const page = await fetch(`${url}/`, { headers: { authorization: `Bearer ${decodeURIComponent(token!)}`, accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script type="module"');
    server.child.kill('SIGTERM');
    expect((await server.result).code).toBe(0);
  });
});
