// A compiled skein server (dist/, built by `npm run bench`) in a child
// process, for the many-sessions benchmark: its start time to a full list,
// its RSS, and plain HTTP against it (auth off).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { percentile } from './types.js';

export interface BenchServer {
  url: string;
  child: ChildProcess;
  /** performance.now() at spawn. */
  spawnedAt: number;
  stop(): Promise<void>;
}

export function rssOf(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb) * 1024;
}

/** CPU time (user + system) the process has used, in ms: on a loaded machine a fairer figure than wall time. */
export function cpuMsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** The compiled server the next starts run (scale-ab.ts puts two builds side by side). */
let build = 'dist';
export function useBuild(dir: string): void {
  build = dir;
}

export async function startBenchServer(dataDir: string, workDir: string, env: Record<string, string> = {}): Promise<BenchServer> {
  const main = path.resolve(build, 'server/main.js');
  if (!fs.existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first`);
  const spawnedAt = performance.now();
  // SKEIN_BENCH_NODE_ARGS: flags for the server's node (e.g. `--cpu-prof --cpu-prof-dir=DIR` to profile a part).
  const nodeArgs = (process.env.SKEIN_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, main], {
    env: { ...process.env, SKEIN_PORT: '0', SKEIN_DATA_DIR: dataDir, SKEIN_WORKDIR: workDir, SKEIN_AUTH: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start in 300 s:\n${output}`)), 300_000);
    child.stdout!.on('data', (c: Buffer) => {
      output += c.toString();
      const m = /running at (http:\/\/[\d.:]+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', () => reject(new Error(`server exited:\n${output}`)));
  });
  return {
    url,
    child,
    spawnedAt,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function getJson<T>(url: string, init?: { method?: string; body?: unknown }): Promise<T> {
  const res = await fetch(url, {
    method: init?.method ?? (init?.body === undefined ? 'GET' : 'POST'),
    headers: { 'content-type': 'application/json' },
    ...(init?.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/**
 * Waits until no scan is under way (asked with a search that matches nothing:
 * polling the whole list of thousands of rows every 20 ms would be most of
 * the server's work), then fetches the full list until it holds `count`
 * sessions; ms since spawn.
 */
export async function timeToFullList(server: BenchServer, count: number): Promise<number> {
  for (;;) {
    const probe = await getJson<{ scanning?: unknown }>(`${server.url}/api/sessions?q=nosuchwordanywhere`).catch(() => undefined);
    if (probe && !probe.scanning) {
      const body = await getJson<{ sessions: unknown[] }>(`${server.url}/api/sessions`);
      if (body.sessions.length >= count) return performance.now() - server.spawnedAt;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The event loop figures of /metrics since the previous scrape, in ms. */
export async function loopDelay(url: string): Promise<{ p50: number; p99: number; max: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const read = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN) * 1000;
  return {
    p50: read(/^skein_event_loop_delay_seconds\{quantile="0\.5"\} (\S+)$/m),
    p99: read(/^skein_event_loop_delay_seconds\{quantile="0\.99"\} (\S+)$/m),
    max: read(/^skein_event_loop_delay_max_seconds (\S+)$/m),
  };
}

/** `/healthz` asked every 10 ms until `end` (a performance.now() time) while `work` runs; then the loop's figures. */
export async function healthzDuring(url: string, end: number, work: Promise<unknown>[]): Promise<{ healthz: { p50: number; p99: number; max: number; count: number }; loop: { p50: number; p99: number; max: number } }> {
  const latencies: number[] = [];
  const probe = (async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      await fetch(`${url}/healthz`).then((r) => r.text());
      latencies.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  await Promise.all([...work, probe]);
  const loop = await loopDelay(url);
  return { healthz: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: Math.max(...latencies), count: latencies.length }, loop };
}
