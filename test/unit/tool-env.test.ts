// The scrub rules of the tools' environment, the allow-list and the mask.
import { describe, expect, it } from 'vitest';
import { InvalidSettingError, loadConfig } from '../../server/config.js';
import { absolutePathEntries, currentSecretValues, currentToolEnvironment, isScrubbed, maskSecrets, secretValues, toolEnvironment, urlSecrets } from '../../server/tools/env.js';

const SERVER_ENV = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/someone',
  LANG: 'C.UTF-8',
  SSH_AUTH_SOCK: '/run/agent.sock',
  ANTHROPIC_API_KEY: 'sk-ant-0123456789abcdef',
  ANTHROPIC_BASE_URL: 'https://proxy.example',
  OPENAI_API_KEY: 'sk-openai-0123456789',
  OPENAI_ORG_ID: 'org-123456789',
  GEMINI_API_KEY: 'gemini-key-0123456789',
  GOOGLE_API_KEY: 'google-key-0123456789',
  SKEIN_TOKEN: 'skein-token-0123456789abcdef',
  SKEIN_PORT: '8420',
  GITHUB_TOKEN: 'ghp_0123456789abcdef',
  aws_secret_access_key: 'aws-secret-0123456789',
  DB_PASSWORD: 'hunter2hunter2',
  MY_CREDENTIALS_FILE: '/secret/creds.json',
  npm_config_authtoken: 'npm-token-0123456789',
  SHORT_KEY: 'abc',
};

describe('tool environment', () => {
  it('drops provider variables, SKEIN_* and anything named like a secret, in any case', () => {
    const env = toolEnvironment(SERVER_ENV);
    expect(Object.keys(env).sort()).toEqual(['HOME', 'LANG', 'PATH', 'SSH_AUTH_SOCK']);
    for (const name of ['ANTHROPIC_BASE_URL', 'OPENAI_ORG_ID', 'SKEIN_PORT', 'aws_secret_access_key', 'npm_config_authtoken', 'Some_Password']) {
      expect(isScrubbed(name), name).toBe(true);
    }
    for (const name of ['PATH', 'HOME', 'TERM', 'SSH_AUTH_SOCK', 'EDITOR']) expect(isScrubbed(name), name).toBe(false);
  });

  it('passes an allow-listed name through, by exact name only', () => {
    const env = toolEnvironment(SERVER_ENV, ['GITHUB_TOKEN', 'DB_PASSWORD', 'NOT_SET']);
    expect(env.GITHUB_TOKEN).toBe('ghp_0123456789abcdef');
    expect(env.DB_PASSWORD).toBe('hunter2hunter2');
    expect(env).not.toHaveProperty('NOT_SET');
    expect(env).not.toHaveProperty('github_token');
    expect(env).not.toHaveProperty('ANTHROPIC_API_KEY');
  });

  it('masks every secret-named value of 8+ characters and given extra secrets, longest first', () => {
    const secrets = secretValues(SERVER_ENV, [{ name: 'access token', value: 'generated-token-0123456789' }]);
    const names = secrets.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY', 'SKEIN_TOKEN', 'GITHUB_TOKEN', 'access token']));
    // Not secrets: a URL, a port; too short: SHORT_KEY.
    expect(names).not.toContain('ANTHROPIC_BASE_URL');
    expect(names).not.toContain('SKEIN_PORT');
    expect(names).not.toContain('SHORT_KEY');
    const text = `key=${SERVER_ENV.ANTHROPIC_API_KEY} token=${SERVER_ENV.SKEIN_TOKEN}x abc generated-token-0123456789`;
    expect(maskSecrets(text, secrets)).toBe('key=[redacted ANTHROPIC_API_KEY] token=[redacted SKEIN_TOKEN]x abc [redacted access token]');
    // A secret containing another is masked whole.
    const nested = [{ name: 'SHORT', value: '0123456789' }, { name: 'LONG', value: 'prefix-0123456789' }];
    expect(maskSecrets('prefix-0123456789', secretValues({}, nested))).toBe('[redacted LONG]');
    expect(maskSecrets('short abc stays', [{ name: 'X', value: 'abc' }])).toBe('short abc stays');
  });

  it('SKEIN_TOOL_ENV_ALLOW takes comma-separated names and refuses anything else', () => {
    expect(loadConfig([], { SKEIN_TOOL_ENV_ALLOW: 'GITHUB_TOKEN, NPM_TOKEN' }).toolEnvAllow).toEqual(['GITHUB_TOKEN', 'NPM_TOKEN']);
    expect(loadConfig([], {}).toolEnvAllow).toEqual([]);
    for (const bad of ['GITHUB_TOKEN,', 'A B', '*', '1ABC', 'X=1']) {
      expect(() => loadConfig([], { SKEIN_TOOL_ENV_ALLOW: bad }), bad).toThrow(InvalidSettingError);
      expect(() => loadConfig([], { SKEIN_TOOL_ENV_ALLOW: bad }), bad).toThrow(/SKEIN_TOOL_ENV_ALLOW.*variable names/);
    }
  });
});

describe('secrets in values (mutation testing found these untested)', () => {
  it('a secret-named value is masked without the blanks around it', () => {
    const found = secretValues({ API_TOKEN: '  tok-0123456789  \n' });
    expect(found).toEqual([{ name: 'API_TOKEN', value: 'tok-0123456789' }]);
  });

  it('a URL with a password: the URL as given (trimmed), its password as written and percent-decoded; none without a password', () => {
    expect(urlSecrets('DATABASE_URL', ' postgres://me:p%40ss-word-99@db.example/x \n')).toEqual([
      { name: 'DATABASE_URL', value: 'postgres://me:p%40ss-word-99@db.example/x' },
      { name: 'DATABASE_URL password', value: 'p%40ss-word-99' },
      { name: 'DATABASE_URL password', value: 'p@ss-word-99' },
    ]);
    expect(urlSecrets('HTTPS_PROXY', 'http://me:plainpassword@proxy.example:3128')).toEqual([
      { name: 'HTTPS_PROXY', value: 'http://me:plainpassword@proxy.example:3128' },
      { name: 'HTTPS_PROXY password', value: 'plainpassword' },
    ]);
    // A user name alone is a credential too (a DSN's key): the URL (a name without a digit is not masked alone).
    expect(urlSecrets('X', 'http://me@host.example/')).toEqual([{ name: 'X', value: 'http://me@host.example/' }]);
    expect(urlSecrets('X', 'http://host.example/a@b')).toEqual([]);
    expect(urlSecrets('X', 'not a url')).toEqual([]);
    expect(urlSecrets('X', '   ')).toEqual([]);
    expect(urlSecrets('X', undefined)).toEqual([]);
    const masked = maskSecrets('connect postgres://me:p%40ss-word-99@db.example/x as p@ss-word-99', secretValues({ DATABASE_URL: 'postgres://me:p%40ss-word-99@db.example/x' }));
    expect(masked).not.toContain('ss-word-99');
  });
});

describe('the environment a tool starts with', () => {
  it('keeps only the absolute PATH entries: a relative one would find a program in the repository', () => {
    const env = toolEnvironment({ PATH: `.:/usr/local/bin::bin:/usr/bin:./node_modules/.bin:/bin`, HOME: '/home/someone' });
    expect(env.PATH).toBe('/usr/local/bin:/usr/bin:/bin');
    expect(absolutePathEntries('/usr/bin')).toBe('/usr/bin');
    expect(absolutePathEntries('.')).toBe('');
  });

  it('gets no PATH when the server has none, and no name whose value is unset', () => {
    const env = toolEnvironment({ HOME: '/home/someone', GONE: undefined, API_TOKEN: undefined });
    expect(env).toEqual({ HOME: '/home/someone' });
    expect(Object.keys(env)).toEqual(['HOME']);
  });

  it('an allow-listed name passes only when the server has it set', () => {
    const env = toolEnvironment({ GITHUB_TOKEN: undefined, NPM_TOKEN: 'npm-0123456789' }, ['GITHUB_TOKEN', 'NPM_TOKEN']);
    expect(Object.keys(env)).toEqual(['NPM_TOKEN']);
  });

  it('drops every provider and skein prefix, whatever follows it', () => {
    for (const name of ['ANTHROPIC_BASE_URL', 'OPENAI_ORG_ID', 'GEMINI_MODEL', 'GOOGLE_API_BASE', 'GOOGLE_GENAI_USE_VERTEXAI', 'SKEIN_PORT', 'skein_data_dir']) {
      expect(toolEnvironment({ [name]: 'x', LANG: 'C' }), name).toEqual({ LANG: 'C' });
    }
    expect(toolEnvironment({ GOOGLE_CLOUD_PROJECT: 'p', LANG: 'C' })).toEqual({ GOOGLE_CLOUD_PROJECT: 'p', LANG: 'C' });
  });
});

describe("the server environment's secrets, read once per turn of the event loop", () => {
  const NAME = 'SKEIN_TEST_TURN_TOKEN';
  const nextTurn = () => new Promise((r) => setImmediate(r));

  it('sees a change to the environment from the next turn on, with extra secrets merged in length order', async () => {
    delete process.env[NAME];
    await nextTurn();
    const before = currentSecretValues();
    expect(before.some((s) => s.name === NAME)).toBe(false);
    process.env[NAME] = '  turn-secret-0123456789  ';
    try {
      // Same turn: the environment is not read again.
      expect(currentSecretValues().some((s) => s.name === NAME)).toBe(false);
      await nextTurn();
      const after = currentSecretValues([{ name: 'generated', value: 'generated-turn-secret-0123456789' }, { name: 'short', value: 'tiny' }]);
      expect(after.filter((s) => [NAME, 'generated', 'short'].includes(s.name))).toEqual([
        { name: 'generated', value: 'generated-turn-secret-0123456789' },
        { name: NAME, value: 'turn-secret-0123456789' },
      ]);
      expect(after).toEqual(secretValues(process.env, [{ name: 'generated', value: 'generated-turn-secret-0123456789' }]));
      // An extra secret equal to an environment value is one entry, under the extra's name.
      const same = currentSecretValues([{ name: 'mine', value: 'turn-secret-0123456789' }]);
      expect(same.filter((s) => s.value === 'turn-secret-0123456789')).toEqual([{ name: 'mine', value: 'turn-secret-0123456789' }]);
      // A caller's changes to what it got do not reach the next caller.
      currentSecretValues().length = 0;
      expect(currentSecretValues().some((s) => s.name === NAME)).toBe(true);
    } finally {
      delete process.env[NAME];
    }
    await nextTurn();
    expect(currentSecretValues().some((s) => s.name === NAME)).toBe(false);
  });

  it("gives the tools' environment as of this turn", async () => {
    const PLAIN = 'SKEIN_TEST_TURN_PLAIN';
    const plain = 'TURN_PLAIN_SETTING';
    delete process.env[plain];
    await nextTurn();
    const env = currentToolEnvironment();
    expect(env).toEqual(toolEnvironment(process.env));
    expect(currentToolEnvironment()).toBe(env);
    process.env[plain] = 'on';
    process.env[PLAIN] = 'scrubbed';
    try {
      expect(currentToolEnvironment()[plain]).toBeUndefined();
      await nextTurn();
      expect(currentToolEnvironment()[plain]).toBe('on');
      expect(currentToolEnvironment()[PLAIN]).toBeUndefined();
    } finally {
      delete process.env[plain];
      delete process.env[PLAIN];
    }
  });
});
