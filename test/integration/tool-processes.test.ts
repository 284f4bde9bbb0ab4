// Nothing a tool started outlives the server: background jobs, `setsid`
// escapes out of bash's session and process group, `nohup`, a double fork,
// both from a command that has returned and from one still running when the
// server gets SIGTERM.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { startChildServer } from '../helpers/child-server.js';
import { api, tempDir } from '../helpers/server.js';
import { until } from '../helpers/until.js';

/** Pids of live processes whose command line contains `needle` (a zombie has an empty command line). */
function processesWith(needle: string): number[] {
  const found: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(needle)) found.push(Number(name));
    } catch {
      /* exited meanwhile */
    }
  }
  return found;
}

describe('tool processes', () => {
  it('SIGTERM leaves no process any bash started, escaped or not', async () => {
    const token = 'tool-processes-test-token-0123456789';
    const server = await startChildServer({ SKEIN_DATA_DIR: tempDir('procs'), SKEIN_WORKDIR: tempDir('procs-work'), SKEIN_TOKEN: token });
    const headers = { authorization: `Bearer ${token}` };
    // Unique durations: GNU sleep takes fractions, and nothing else on the machine runs these.
    const tag = `${1000 + Math.floor(Math.random() * 1000)}.${process.pid}`;
    const sleeps = [1, 2, 3, 4, 5, 6].map((n) => `sleep ${n}${tag}`);
    try {
      const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {}, headers });
      const say = (text: string) => api(server.url, `/api/sessions/${body.id}/messages`, { body: { text }, headers });
      const events = async () => (await api<{ events: SkeinEvent[] }>(server.url, `/api/sessions/${body.id}/events`, { headers })).body.events;
      // A command that returns and leaves jobs behind: in its group, in a new session, nohup'd, double-forked.
      const quiet = '>/dev/null 2>&1 </dev/null';
      await say(
        `bash: ${sleeps[0]} ${quiet} & setsid ${sleeps[1]} ${quiet} & nohup ${sleeps[2]} ${quiet} & (setsid bash -c '${sleeps[3]} & exit' ${quiet} &) ; echo started`,
      );
      await until(async () => (await events()).some((e) => e.kind === 'tool_result' && e.output.includes('started')), 'the first command to return', 30_000);
      // A command still running at SIGTERM, with an escaped child.
      await say(`bash: setsid ${sleeps[4]} >/dev/null 2>&1 & ${sleeps[5]}`);
      await until(() => sleeps.every((s) => processesWith(s).length > 0), 'every sleep to run', 30_000);
      const code = await server.kill('SIGTERM');
      expect(code, server.output()).toBe(0);
      await until(() => sleeps.every((s) => processesWith(s).length === 0), 'every sleep to be gone', 10_000).catch(() => undefined);
      for (const s of sleeps) expect(processesWith(s), `${s} after SIGTERM`).toEqual([]);
    } finally {
      await server.kill('SIGKILL');
      for (const s of sleeps) for (const pid of processesWith(s)) process.kill(pid, 'SIGKILL');
    }
  }, 60_000);
});
