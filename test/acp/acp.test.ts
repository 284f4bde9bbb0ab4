// `skein acp` end to end: the CLI in a child process (its embedded server,
// the predictable model), driven by the ACP SDK's own client over stdio.
import fs from 'node:fs';
import path from 'node:path';
import { PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { agentText, startAcp, updatesOf, type AcpRun } from './acp-client.js';

const runs: AcpRun[] = [];
afterEach(async () => {
  for (const run of runs.splice(0)) await run.close();
});

const SLOW = { timeout: 300_000 };

function start(env: Record<string, string>, args: string[] = []): AcpRun {
  const run = startAcp(env, args);
  runs.push(run);
  return run;
}

async function initialize(run: AcpRun) {
  return run.connection.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } } });
}

describe('skein acp', () => {
  it('initializes, runs a tool call with tool_call then tool_call_update, and keeps stdout for the protocol', SLOW, async () => {
    const work = tempDir('acp-work');
    fs.writeFileSync(path.join(work, 'marker.txt'), 'found me\n');
    const run = start({ SKEIN_DATA_DIR: tempDir('acp-data'), SKEIN_WORKDIR: work });
    const init = await initialize(run);
    expect(init.protocolVersion).toBe(PROTOCOL_VERSION);
    expect(init.agentCapabilities).toMatchObject({ loadSession: true, promptCapabilities: { embeddedContext: true } });

    const created = await run.connection.agent.request('session/new', { cwd: work, mcpServers: [] });
    expect(created.modes?.availableModes.map((m) => m.id)).toEqual(['plan', 'always', 'on-write', 'never']);
    const id = created.sessionId;
    const response = await run.connection.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'bash: cat marker.txt' }] });
    expect(response.stopReason).toBe('end_turn');

    const call = updatesOf(run, id, 'tool_call')[0] as { toolCallId: string; kind: string; title: string; status: string };
    expect(call).toMatchObject({ kind: 'execute', title: 'cat marker.txt', status: 'pending' });
    const done = updatesOf(run, id, 'tool_call_update').filter((u) => (u as { toolCallId: string }).toolCallId === call.toolCallId) as { status?: string; content?: { type: string; content?: { text: string } }[] }[];
    expect(done.at(-1)!.status).toBe('completed');
    expect(done.at(-1)!.content![0]!.content!.text).toContain('found me');
    // The gauge as ACP's usage, skein's whole gauge in _meta.
    const usage = updatesOf(run, id, 'usage_update').at(-1) as { used: number; size: number; _meta: { skein: { gauge: { contextWindow: number } } } };
    expect(usage.size).toBe(8000);
    expect(usage.used).toBeGreaterThan(0);
    expect(usage._meta.skein.gauge.contextWindow).toBe(8000);
    // The commands, with /compact.
    await until(() => updatesOf(run, id, 'available_commands_update').length > 0, 'the commands');
    const commands = (updatesOf(run, id, 'available_commands_update')[0] as { availableCommands: { name: string }[] }).availableCommands.map((c) => c.name);
    expect(commands).toContain('compact');
    expect(agentText(run, id)).toContain('found me');
    // Nothing but JSON-RPC on stdout.
    expect(run.stdoutLines().every((m) => (m as { jsonrpc?: string }).jsonrpc === '2.0')).toBe(true);
  });
});
