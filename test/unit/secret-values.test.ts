// One predicate decides "this variable holds a secret" (variableSecrets): what
// is masked in output (secretValues) is exactly what is kept from tools
// (toolEnvironment), by name and by value.
import { describe, expect, it } from 'vitest';
import { maskSecrets, MIN_MASKED_LENGTH, secretValues, toolEnvironment, variableSecrets } from '../../server/tools/env.js';
import { inheritedEnvironment } from '../../server/mcp/connection.js';

/** Each known shape under a harmless name: the value alone makes it a secret. */
const SHAPES: Record<string, string> = {
  'GitHub classic': 'ghp_0123456789abcdefABCDEF0123456789abcd',
  'GitHub OAuth': 'gho_0123456789abcdefABCDEF0123456789abcd',
  'GitHub fine-grained': 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789',
  GitLab: 'glpat-abcdefghij0123456789',
  'Slack bot': 'xoxb-1234567890-abcdefghij',
  'Slack app': 'xoxa-2-1234567890-abcdefghij',
  'Slack user': 'xoxp-1234567890-abcdefghij',
  OpenAI: 'sk-proj-abcdefghij0123456789ABCD',
  Anthropic: 'sk-ant-api03-abcdefghij0123456789',
  'AWS key id': 'AKIAIOSFODNN7EXAMPLE',
  npm: 'npm_abcdefghijklmnopqrstuvwxyz0123456789',
  'private key': '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----',
  'URL with password': 'postgres://u:hunter2pass@db/x',
  'proxy with password': 'http://u:pw@proxy:3128',
  'DSN (user name only)': 'https://abc123def@sentry.io/1',
};

/** Names that look like secrets without the usual words. */
const SECRET_NAMES = ['GITHUB_PAT', 'NPM_AUTH', 'npm_config__auth', 'DB_PASS', 'DB_PASS_FILE', 'REDIS_PW', 'PGPASSWORD', 'API_KEY', 'Some_Token', 'MYSQL_PWD', 'SSHPASS', 'PGPASS'];

/** Ordinary variables, some with the letters of a secret name in them: they reach tools and are never masked. */
const PLAIN: Record<string, string> = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  PWD: '/home/someone/project-with-a-long-name',
  OLDPWD: '/home/someone/another-long-folder',
  GIT_AUTHOR_NAME: 'Someone Withalongname',
  GIT_AUTHOR_EMAIL: 'someone@example.com',
  SSH_AUTH_SOCK: '/run/user/1000/ssh-agent.socket',
  PATHEXT: '.COM;.EXE;.BAT',
  PASSAGE: 'a long passage of text',
  HOME: '/home/someone',
  TERM: 'xterm-256color',
  LANG: 'en_US.UTF-8',
  MAIL: 'mailto:someone@example.com',
  HOMEPAGE: 'https://example.com/path?q=1#frag',
  LS_COLORS: 'rs=0:di=01;34:ln=01;36:mh=00:pi=40;33',
  TASK: 'task-runner-with-a-long-name-0123',
  RISK: 'desk-0123456789abcdefghij0123',
  SSH_REMOTE: 'git@github.com:someone/repo.git',
};

describe('variableSecrets: the one predicate', () => {
  it.each(Object.entries(SHAPES))('%s in a variable of any name is a secret: kept from tools, masked in output', (_, value) => {
    const env = { SOME_SETTING: value, LANG: 'C' };
    expect(variableSecrets('SOME_SETTING', value).length).toBeGreaterThan(0);
    expect(toolEnvironment(env)).toEqual({ LANG: 'C' });
    expect(maskSecrets(`printed ${value} here`, secretValues(env))).toBe('printed [redacted SOME_SETTING] here');
    // SKEIN_TOOL_ENV_ALLOW lets it through by name; it is still masked.
    expect(toolEnvironment(env, ['SOME_SETTING'])).toEqual(env);
  });

  it('a token inside a longer value is masked alone too (it may be printed without the rest)', () => {
    const token = SHAPES['GitHub classic']!;
    const secrets = secretValues({ AUTH_HEADER: `Bearer ${token}` });
    expect(maskSecrets(`the header is Bearer ${token}; the token ${token}`, secrets)).toBe('the header is [redacted AUTH_HEADER]; the token [redacted AUTH_HEADER]');
  });

  it("a DSN's user name is masked alone; an account name beside a password or without a digit is not", () => {
    const dsn = secretValues({ SENTRY_DSN: 'https://abc123def@sentry.io/1' });
    expect(maskSecrets('key abc123def, dsn https://abc123def@sentry.io/1', dsn)).toBe('key [redacted SENTRY_DSN user], dsn [redacted SENTRY_DSN]');
    expect(maskSecrets('user postgres', secretValues({ DATABASE_URL: 'postgres://postgres@db/x' }))).toBe('user postgres');
    expect(maskSecrets('user postgres, pw hunter2pass', secretValues({ DATABASE_URL: 'postgres://postgres:hunter2pass@db/x' }))).toBe(
      'user postgres, pw [redacted DATABASE_URL password]',
    );
    // Short user names are never masked alone (MIN_MASKED_LENGTH), but the URL still is and stays out of tools.
    expect(MIN_MASKED_LENGTH).toBe(8);
    expect(secretValues({ DSN: 'https://ab1@h/1' }).map((s) => s.value)).toEqual(['https://ab1@h/1']);
    expect(toolEnvironment({ DSN: 'https://ab1@h/1' })).toEqual({});
  });

  it.each(SECRET_NAMES)('%s is a secret name: scrubbed, and its value masked', (name) => {
    const value = 'plain-looking-value-42';
    expect(variableSecrets(name, value)).toEqual([{ name, value }]);
    expect(toolEnvironment({ [name]: value })).toEqual({});
    expect(maskSecrets(value, secretValues({ [name]: value }))).toBe(`[redacted ${name}]`);
  });

  it('no false hits: PATH, PWD, OLDPWD, GIT_AUTHOR_NAME and ordinary values reach tools and are never masked', () => {
    for (const [name, value] of Object.entries(PLAIN)) expect(variableSecrets(name, value), name).toEqual([]);
    expect(toolEnvironment(PLAIN)).toEqual(PLAIN);
    expect(secretValues(PLAIN)).toEqual([]);
  });

  it('what is masked and what is scrubbed agree, variable by variable', () => {
    const env: Record<string, string> = { ...PLAIN, ...Object.fromEntries(Object.values(SHAPES).map((v, i) => [`SETTING_${i}`, v])), ...Object.fromEntries(SECRET_NAMES.map((n) => [n, `value-of-${n}`])) };
    const masked = new Set(secretValues(env).map((s) => s.name.split(' ')[0]));
    const kept = toolEnvironment(env);
    for (const name of Object.keys(env)) expect(masked.has(name), name).toBe(!(name in kept));
  });
});

describe('what an MCP stdio server gets of the server environment', () => {
  it('PATH (absolute folders) and the SDK defaults, each scrubbed: a secret value is overridden with undefined', () => {
    const env = inheritedEnvironment({ PATH: '.:/usr/bin', HOME: '/home/me', USER: 'me', TERM: 'ghp_0123456789abcdefABCDEF0123456789abcd', DATABASE_URL: 'postgres://u:hunter2pass@db/x' });
    expect(env.PATH).toBe('/usr/bin');
    expect(env.HOME).toBe('/home/me');
    expect(env.USER).toBe('me');
    // Present and undefined: it overrides the SDK's own copy of process.env.TERM, and spawn leaves it out.
    expect('TERM' in env && env.TERM === undefined).toBe(true);
    expect(env).not.toHaveProperty('DATABASE_URL');
  });
});
