// MCP server processes are children of skein: when skein stops (SIGTERM), the
// stdio servers and anything they started (even in a session of its own) are
// gone; when skein is killed outright, its servers see their stdin close and
// end.
import fs from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { startChildServer } from '../helpers/child-server.js';
import { stdioEntry, writeTrustedMcpJson } from '../helpers/mcp.js';
import { untilGone } from '../helpers/processes.js';
import { api, tempDir } from '../helpers/server.js';
import { until } from '../helpers/until.js';

// Real servers and child processes (skein, MCP servers under tsx): slow on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

/** Pids of live processes whose command line contains `needle` (and whose parent is `parent`, when given). */
function processesWith(needle: string, parent?: number): number[] {
  const found: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(needle)) continue;
      if (parent === undefined || parentOf(Number(name)) === parent) found.push(Number(name));
    } catch {
      /* exited meanwhile */
    }
  }
  return found;
}

function parentOf(pid: number): number {
  return Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
}

describe('MCP server processes', () => {
  it.each(['SIGTERM', 'SIGKILL'] as const)('are gone after skein gets %s, and on SIGTERM so is what they started', async (signal) => {
    const workDir = tempDir('mcp-procs');
    // A unique duration names the helper process (nothing else on the machine runs it).
    const helper = `sleep ${signal === 'SIGTERM' ? '4321.5' : '4322.5'}`;
    const dataDir = tempDir('mcp-procs-data');
    writeTrustedMcpJson(dataDir, workDir, { spawner: stdioEntry({ MCP_TEST_SPAWN: helper }) });
    const server = await startChildServer({ SKEIN_DATA_DIR: dataDir, SKEIN_WORKDIR: workDir });
    const { body } = await api<{ servers: { state: string }[] }>(server.url, '/api/mcp');
    expect(body.servers.map((s) => s.state)).toEqual(['ready']);
    // A child of skein (other tests' servers may run meanwhile).
    const only = (pids: number[]) => (pids.length === 1 ? pids[0] : undefined);
    const mcpPid = await until(() => only(processesWith('stdio-server.ts', server.process.pid)), 'the stdio server', 30_000);
    const helperPid = await until(() => only(processesWith(helper)), 'its helper', 30_000);

    await server.kill(signal);
    const killed = Date.now();
    await untilGone(mcpPid, 30_000);
    expect(Date.now() - killed).toBeLessThan(20_000);
    if (signal === 'SIGTERM') await untilGone(helperPid);
    else process.kill(helperPid, 'SIGKILL'); // nothing of skein is left to sweep it: the test cleans up
  });
});
