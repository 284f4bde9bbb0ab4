// A server whose sessions use only the predictable model never loads a
// provider SDK: each is imported when a session first calls its model.
// Watched from inside a child process by a module resolve hook.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

const HOOK = `export async function resolve(s, c, next) { const r = await next(s, c); if (r.url.includes('/node_modules/')) process._rawDebug('loaded ' + r.url.split('/node_modules/').pop()); return r; }`;
const REGISTER = `import { register } from 'node:module'; register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}));`;

const SCRIPT = `
const { loadConfig } = await import(${JSON.stringify(path.resolve('server/config.ts'))});
const { startServer } = await import(${JSON.stringify(path.resolve('server/server.ts'))});
const server = await startServer(loadConfig([], { ...process.env, SKEIN_PORT: '0' }));
const { session } = server.sessions.create('predictable');
session.userMessage('echo: hi');
while (session.state !== 'WaitingForUserInput' || !session.log.all().some((e) => e.kind === 'agent')) await new Promise((r) => setTimeout(r, 20));
if (process.argv.includes('--openai')) {
  const { createProvider } = await import(${JSON.stringify(path.resolve('server/llm/providers.ts'))});
  const { provider } = createProvider('gpt-4.1', { credentials: { openai: { apiKey: 'sk-none', baseURL: 'http://127.0.0.1:9' }, anthropic: {}, gemini: {} }, requestTimeoutMs: 1000 });
  await provider.complete({ system: 's', messages: [{ role: 'user', content: 'x' }], tools: [], maxOutputTokens: 10, purpose: 'turn' }, new AbortController().signal).catch(() => {});
}
await server.close();
process._rawDebug('done');
process.exit(0);
`;

function loadedModules(extra: string[] = []): Promise<string> {
  const child = spawn(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, '--import', 'tsx', '--input-type=module', '-e', SCRIPT, '--', ...extra], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SKEIN_DATA_DIR: tempDir('lazy-data'), SKEIN_WORKDIR: tempDir('lazy-work') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolve) => child.once('close', () => resolve(output)));
}

describe('provider SDKs load on first use', () => {
  it('a predictable session loads none of them; calling an OpenAI model loads only the OpenAI SDK', { timeout: 120_000 }, async () => {
    const predictable = await loadedModules();
    expect(predictable).toContain('done');
    expect(predictable).toMatch(/^loaded express\//m);
    expect(predictable).not.toMatch(/^loaded (openai|@anthropic-ai|@google\/genai)\//m);

    const openai = await loadedModules(['--openai']);
    expect(openai).toContain('done');
    expect(openai).toMatch(/^loaded openai\//m);
    expect(openai).not.toMatch(/^loaded (@anthropic-ai|@google\/genai)\//m);
  });
});
