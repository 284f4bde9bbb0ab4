// Secrets never reach the log through a tool: the real agent loop, the
// predictable model asking for `bash: echo $X` and `read: FILE`, the real log file.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PredictableProvider } from '../../server/llm/predictable.js';
import { startAgent, type TestAgent } from '../helpers/agent.js';
import { tempDir } from '../helpers/temp-dir.js';

const SECRETS = {
  ANTHROPIC_API_KEY: 'sk-ant-api03-test-0123456789abcdefXYZ',
  OPENAI_API_KEY: 'sk-proj-test-0123456789abcdefXYZ',
  GEMINI_API_KEY: 'AIzaTest0123456789abcdefXYZ',
  SKEIN_TOKEN: 'skein-test-token-0123456789abcdef',
  DEPLOY_SECRET: 'deploy-secret-0123456789',
  GITHUB_TOKEN: 'ghp_test0123456789abcdefXYZ',
};
/** Never in the environment: the lead's generated access token reaches tools only as a value to mask. */
const GENERATED = { name: 'SKEIN access token', value: 'generated-0123456789abcdef' };

const saved = new Map<string, string | undefined>();
afterEach(() => {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  saved.clear();
});

function setEnv(values: Record<string, string>): void {
  for (const [name, value] of Object.entries(values)) {
    if (!saved.has(name)) saved.set(name, process.env[name]);
    process.env[name] = value;
  }
}

async function say(run: TestAgent, text: string): Promise<string> {
  const before = run.session.log.lastSeq;
  run.session.userMessage(text);
  await run.idle();
  const result = run.events().slice(before).find((e) => e.kind === 'tool_result');
  if (result?.kind !== 'tool_result') throw new Error(`no tool result for ${text}`);
  return result.output;
}

function rawLog(run: TestAgent): string {
  return fs.readFileSync(run.session.log.file, 'utf8');
}

describe('tool secrets', () => {
  it('bash gets no provider key, SKEIN_* or secret-named variable; the log never holds one', async () => {
    setEnv({ ...SECRETS, SKEIN_HARMLESS_LOOKING: 'plain-value-0123', PLAIN_VARIABLE: 'visible-value' });
    const run = startAgent(new PredictableProvider({ contextWindow: 100_000, maxOutputTokens: 1000 }), { tools: { secrets: [GENERATED] } });
    const names = [...Object.keys(SECRETS), 'SKEIN_HARMLESS_LOOKING'];
    const output = await say(run, `bash: ${names.map((n) => `echo "${n}=[$${n}]"`).join('; ')}; echo "PLAIN=[$PLAIN_VARIABLE]"`);
    for (const name of names) expect(output).toContain(`${name}=[]`);
    expect(output).toContain('PLAIN=[visible-value]');
    // `env` lists nothing secret either.
    const env = await say(run, 'bash: env');
    expect(env).toContain('PLAIN_VARIABLE=visible-value');
    expect(env).not.toMatch(/ANTHROPIC|OPENAI|GEMINI|SKEIN_(?!TOOL_RUN)|SECRET|GITHUB_TOKEN/);
    const log = rawLog(run);
    for (const value of [...Object.values(SECRETS), GENERATED.value]) expect(log).not.toContain(value);
  });

  it('a secret value that still reaches the output (a file, an allow-listed variable) is masked before it is logged', async () => {
    setEnv(SECRETS);
    const workDir = tempDir('secrets-work');
    const run = startAgent(new PredictableProvider({ contextWindow: 100_000, maxOutputTokens: 1000 }), {
      workDir,
      tools: { envAllow: ['GITHUB_TOKEN'], secrets: [GENERATED] },
    });
    fs.writeFileSync(path.join(workDir, '.env'), `ANTHROPIC_API_KEY=${SECRETS.ANTHROPIC_API_KEY}\nTOKEN=${GENERATED.value}\n`);
    const read = await say(run, 'read: .env');
    expect(read).toBe('ANTHROPIC_API_KEY=[redacted ANTHROPIC_API_KEY]\nTOKEN=[redacted SKEIN access token]\n');
    const cat = await say(run, 'bash: cat .env');
    expect(cat).toContain('[redacted ANTHROPIC_API_KEY]');
    // The allow-listed variable reaches bash (the tool can use it) but its value is masked in what is logged.
    const allowed = await say(run, 'bash: test "${#GITHUB_TOKEN}" -gt 20 && echo "token present: $GITHUB_TOKEN"');
    expect(allowed).toBe('exit code: 0\ntoken present: [redacted GITHUB_TOKEN]');
    const log = rawLog(run);
    for (const value of [...Object.values(SECRETS), GENERATED.value]) expect(log).not.toContain(value);
  });
});
