// /rewind with a number that is no event of the session (0, past the end, too
// large to be exact) is answered like every other bad argument: the agent's
// message says the range, and the prompt ends with end_turn, not an error.
import { PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/server.js';
import { agentText, startAcp, type AcpRun } from './acp-client.js';

const runs: AcpRun[] = [];
afterEach(async () => {
  for (const run of runs.splice(0)) await run.close();
});

describe('skein acp: /rewind N outside the session', () => {
  it('says the range as the agent and ends the turn', { timeout: 300_000 }, async () => {
    const work = tempDir('acp-work');
    const run = startAcp({ SKEIN_DATA_DIR: tempDir('acp-data'), SKEIN_WORKDIR: work });
    runs.push(run);
    await run.connection.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } } });
    const { sessionId } = await run.connection.agent.request('session/new', { cwd: work, mcpServers: [] });
    await run.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'echo: hello' }] });
    for (const arg of ['0', '99999', '99999999999999999999']) {
      const before = agentText(run, sessionId).length;
      const response = await run.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: `/rewind ${arg}` }] });
      expect(response.stopReason, arg).toBe('end_turn');
      expect(agentText(run, sessionId).slice(before), arg).toMatch(/^\/rewind \S+: no such event; this session's events are 1 to \d+\. \/rewind alone lists the points\.$/);
    }
  });
});
