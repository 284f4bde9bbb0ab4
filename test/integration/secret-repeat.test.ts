// A secret that shows up more than once in one output is masked every time:
// in maskSecrets itself and on the real path (a tool's output through the
// agent loop into the log), where a program printing a key twice is common
// (a config file with the key in two places, `env` and `cat .env` together).
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { PredictableProvider } from '../../server/llm/predictable.js';
import { MIN_MASKED_LENGTH, maskSecrets, secretValues } from '../../server/tools/env.js';
import { startAgent, type TestAgent } from '../helpers/agent.js';
import { tempDir } from '../helpers/temp-dir.js';

const KEY = 'sk-repeat-test-0123456789abcdef';
const GENERATED = { name: 'SKEIN access token', value: 'generated-repeat-0123456789' };

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

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe('maskSecrets', () => {
  it('masks every copy of a secret, adjacent, on other lines and at both ends', () => {
    const secrets = [{ name: 'K', value: KEY }];
    expect(maskSecrets(`${KEY} ${KEY}`, secrets)).toBe('[redacted K] [redacted K]');
    expect(maskSecrets(`${KEY}${KEY}${KEY}`, secrets)).toBe('[redacted K][redacted K][redacted K]');
    expect(maskSecrets(`a=${KEY}\nb=${KEY}\nc=${KEY}\n`, secrets)).toBe('a=[redacted K]\nb=[redacted K]\nc=[redacted K]\n');
  });

  it('masks every copy of each of several secrets, and the mask text itself is left alone', () => {
    const secrets = secretValues({ API_KEY: KEY, DB_PASSWORD: 'hunter2-hunter2' }, [GENERATED]);
    const text = `${KEY} ${GENERATED.value} hunter2-hunter2 ${KEY} hunter2-hunter2 ${GENERATED.value}`;
    const masked = maskSecrets(text, secrets);
    expect(masked).toBe('[redacted API_KEY] [redacted SKEIN access token] [redacted DB_PASSWORD] [redacted API_KEY] [redacted DB_PASSWORD] [redacted SKEIN access token]');
    expect(maskSecrets(masked, secrets)).toBe(masked);
  });

  it('the floor: a repeated value of exactly the minimum length is masked each time, one shorter never', () => {
    const atFloor = 'x'.repeat(MIN_MASKED_LENGTH - 1) + 'y';
    const below = 'z'.repeat(MIN_MASKED_LENGTH - 2) + 'w';
    expect(MIN_MASKED_LENGTH).toBe(8);
    expect(maskSecrets(`${atFloor}-${atFloor}`, [{ name: 'A', value: atFloor }])).toBe('[redacted A]-[redacted A]');
    expect(maskSecrets(`${below}-${below}`, [{ name: 'B', value: below }])).toBe(`${below}-${below}`);
    expect(secretValues({ A_KEY: atFloor, B_KEY: below }).map((s) => s.name)).toEqual(['A_KEY']);
  });
});

describe('on the real path', () => {
  it('a tool output holding one key three times is logged with a mask for each copy and no copy of it', async () => {
    setEnv({ REPEAT_API_KEY: KEY });
    const workDir = tempDir('secret-repeat');
    fs.writeFileSync(`${workDir}/config.ini`, `[a]\nkey=${KEY}\n[b]\nkey=${KEY}\nboth=${KEY},${GENERATED.value},${GENERATED.value}\n`);
    const run: TestAgent = startAgent(new PredictableProvider({ contextWindow: 100_000, maxOutputTokens: 1000 }), { workDir, tools: { envAllow: ['REPEAT_API_KEY'], secrets: [GENERATED] } });
    const before = run.session.log.lastSeq;
    run.session.userMessage('bash: cat config.ini; echo "env=$REPEAT_API_KEY"');
    await run.idle();
    const result = run.events().slice(before).find((e) => e.kind === 'tool_result');
    if (result?.kind !== 'tool_result') throw new Error('no tool result');
    expect(count(result.output, '[redacted REPEAT_API_KEY]')).toBe(4);
    expect(count(result.output, '[redacted SKEIN access token]')).toBe(2);
    expect(result.output).not.toContain(KEY);
    expect(result.output).not.toContain(GENERATED.value);
    const log = fs.readFileSync(run.session.log.file, 'utf8');
    expect(log).not.toContain(KEY);
    expect(log).not.toContain(GENERATED.value);
  });

  it('a *_KEY variable never reaches bash unless allow-listed, and its value printed from a file is masked each time', async () => {
    setEnv({ PAYMENT_SERVICE_KEY: 'pay-key-0123456789abcdef', SHORT_KEY: 'abc1234' });
    const workDir = tempDir('secret-repeat-key');
    fs.writeFileSync(`${workDir}/notes.txt`, 'pay-key-0123456789abcdef and again pay-key-0123456789abcdef\n');
    const run: TestAgent = startAgent(new PredictableProvider({ contextWindow: 100_000, maxOutputTokens: 1000 }), { workDir });
    const before = run.session.log.lastSeq;
    run.session.userMessage('bash: echo "[$PAYMENT_SERVICE_KEY][$SHORT_KEY]"; cat notes.txt');
    await run.idle();
    const result = run.events().slice(before).find((e) => e.kind === 'tool_result');
    if (result?.kind !== 'tool_result') throw new Error('no tool result');
    // Scrubbed from the environment (the short one too: it is named like a secret) ...
    expect(result.output).toContain('[][]');
    // ... and masked every time it shows up anyway (the short one is below the masking floor, but never reached the tool).
    expect(count(result.output, '[redacted PAYMENT_SERVICE_KEY]')).toBe(2);
    expect(fs.readFileSync(run.session.log.file, 'utf8')).not.toContain('pay-key-0123456789abcdef');
  });
});
