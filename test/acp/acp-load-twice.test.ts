// An editor that loads a session twice at once (a reconnect during a load)
// gets one subscription: the first load, superseded while its stream opened,
// does not stay subscribed, so each later answer arrives once, not twice.
import { PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/server.js';
import { agentText, startAcp, type AcpRun } from './acp-client.js';

const runs: AcpRun[] = [];
afterEach(async () => {
  for (const run of runs.splice(0)) await run.close();
});

describe('skein acp: session/load twice at once', () => {
  it('answers each later prompt once', { timeout: 300_000 }, async () => {
    const work = tempDir('acp-work');
    const run = startAcp({ SKEIN_DATA_DIR: tempDir('acp-data'), SKEIN_WORKDIR: work });
    runs.push(run);
    await run.connection.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } } });
    const { sessionId } = await run.connection.agent.request('session/new', { cwd: work, mcpServers: [] });
    const load = () => run.connection.agent.request('session/load', { sessionId, cwd: work, mcpServers: [] });
    await Promise.all([load(), load(), load()]);
    const response = await run.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'echo: once only' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(agentText(run, sessionId)).toBe('once only');
  });
});
