// SKEIN_LOG_FORMAT=json: every line the server writes is one JSON object with
// ts, level, msg and session (the id on lines about a session).
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidSettingError, loadConfig } from '../../server/config.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { api, tempDir } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';

const children: ChildServer[] = [];
const fakes: OpenAIFake[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) await c.kill('SIGTERM');
  for (const f of fakes.splice(0)) await f.close();
});

interface Line {
  ts: string;
  level: string;
  msg: string;
  session: string | null;
}

describe('JSON log lines', () => {
  it('every line parses; lines about a session carry its id', { timeout: 180_000 }, async () => {
    const f = await startOpenAIFake();
    fakes.push(f);
    const env = { SKEIN_LOG_FORMAT: 'json', SKEIN_DATA_DIR: tempDir('log-data'), SKEIN_WORKDIR: tempDir('log-work'), SKEIN_MODEL: 'gpt-4.1', OPENAI_API_KEY: f.key!, OPENAI_BASE_URL: f.url };
    const child = await startChildServer(env);
    children.push(child);
    const { body } = await api<{ id: string }>(child.url, '/api/sessions', { body: {} });
    const client = await TestClient.connect(child.url, body.id);
    client.send({ type: 'user_message', text: 'echo: hello' });
    await client.untilIdle(1, 30_000);
    client.close();
    // The window line is written when the session's first turn asks the provider for its limits.
    await expect.poll(() => child.output(), { timeout: 10_000 }).toContain(`"session":"${body.id}"`);
    await child.kill('SIGTERM');
    const lines = child.output().split('\n').filter((l) => l.trim() !== '');
    const parsed = lines.map((l) => JSON.parse(l) as Line);
    for (const line of parsed) {
      expect(Object.keys(line).slice(0, 4)).toEqual(['ts', 'level', 'session', 'msg']);
      expect(Number.isNaN(Date.parse(line.ts))).toBe(false);
      expect(['info', 'warn', 'error']).toContain(line.level);
    }
    expect(parsed.find((l) => l.msg.startsWith('skein is running at'))).toMatchObject({ level: 'info', session: null });
    expect(parsed.find((l) => l.session === body.id)?.msg).toMatch(/^gpt-4\.1: /);
    expect(parsed.some((l) => l.msg === 'SIGTERM: shutting down')).toBe(true);
  });

  it('an unknown format is refused naming the variable and the choices', () => {
    expect(() => loadConfig([], { SKEIN_LOG_FORMAT: 'xml' })).toThrow(InvalidSettingError);
    expect(() => loadConfig([], { SKEIN_LOG_FORMAT: 'xml' })).toThrow('SKEIN_LOG_FORMAT="xml" is invalid: expected text | json');
    expect(loadConfig(['--log-format', 'json'], {}).logFormat).toBe('json');
  });
});
