// The environment tools run with, and the mask over their output. A tool is
// driven by a model that may be reading a prompt injection: it must not get
// the server's keys and tokens, and if one still shows up (read from a file,
// printed by a program that found it elsewhere) it is masked before it is logged.
import path from 'node:path';

/** Names that are provider credentials or skein's own settings (the token among them). */
const DROPPED_PREFIXES = ['ANTHROPIC_', 'OPENAI_', 'GEMINI_', 'GOOGLE_API', 'GOOGLE_GENAI', 'SKEIN_'];

/**
 * Anything named like a secret, wherever it came from: these words anywhere
 * (PGPASSWORD too), and PAT, PASS, PW only as a whole `_` part of the name
 * (GITHUB_PAT, DB_PASS, DB_PW) and AUTH only as its last (NPM_AUTH), since as
 * letters they are in PATH, PWD, OLDPWD, GIT_AUTHOR_NAME and SSH_AUTH_SOCK.
 */
// The clients' own password variables too: MYSQL_PWD, SSHPASS, PGPASS (PWD alone is the working folder).
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|(?:^|_)(?:PAT|PASS|PW)(?:_|$)|(?:^|_)AUTH$|.+_PWD$|^(?:SSHPASS|PGPASS)$/i;

/**
 * Token shapes known by their text, whatever the variable is called: GitHub
 * (classic, OAuth, app and fine-grained), GitLab, Slack, OpenAI/Anthropic
 * style `sk-`, AWS access key ids, npm, and a PEM private key block.
 */
const TOKEN_SHAPE = new RegExp(
  [
    String.raw`\bgh[pousr]_[A-Za-z0-9]{20,}`,
    String.raw`\bgithub_pat_[A-Za-z0-9_]{20,}`,
    String.raw`\bglpat-[A-Za-z0-9_-]{20,}`,
    String.raw`\bxox[abp]-[A-Za-z0-9-]{10,}`,
    String.raw`\bsk-[A-Za-z0-9_-]{20,}`,
    String.raw`\bAKIA[0-9A-Z]{16}\b`,
    String.raw`\bnpm_[A-Za-z0-9]{36}\b`,
    String.raw`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----)?`,
  ].join('|'),
  'g',
);

/** Shorter values are not masked: too many false hits ("true", "8080", a user name). */
export const MIN_MASKED_LENGTH = 8;

/** A valid SKEIN_TOOL_ENV_ALLOW entry: a plain variable name. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface NamedSecret {
  name: string;
  value: string;
}

/** True when a variable of this name never reaches a tool (unless allow-listed). */
export function isScrubbed(name: string): boolean {
  const upper = name.toUpperCase();
  return DROPPED_PREFIXES.some((p) => upper.startsWith(p)) || SECRET_NAME.test(name);
}

/**
 * The one predicate of "this variable holds a secret", for both the mask
 * (`secretValues`) and the tools' environment (`toolEnvironment`): what it
 * finds is masked in output, and a variable it finds anything in is kept
 * from tools. A secret-named variable's value (trimmed), a URL's credentials
 * (`urlSecrets`) and known token shapes (the token and the whole value).
 * Values too short to mask are still found: such a variable stays out of tools.
 */
export function variableSecrets(name: string, value: string): NamedSecret[] {
  const text = value.trim();
  const out: NamedSecret[] = [];
  if (SECRET_NAME.test(name)) out.push({ name, value: text });
  out.push(...urlSecrets(name, text));
  const tokens = [...text.matchAll(TOKEN_SHAPE)].map((m) => m[0]);
  if (tokens.length) out.push({ name, value: text }, ...tokens.map((token) => ({ name, value: token })));
  return out;
}

/**
 * The server's environment without credentials: no provider or skein
 * setting, nothing named like a secret, nothing whose value is one
 * (`variableSecrets`: `DATABASE_URL` with a password, a `ghp_` token in any
 * name), since a tool can print a value transformed past the mask
 * (`| rev`, `| base64`). `allow` lists exceptions by exact name.
 */
export function toolEnvironment(env: NodeJS.ProcessEnv, allow: readonly string[] = []): NodeJS.ProcessEnv {
  const allowed = new Set(allow);
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (allowed.has(name) || (!isScrubbed(name) && variableSecrets(name, value).length === 0)) out[name] = value;
  }
  if (out.PATH !== undefined) out.PATH = absolutePathEntries(out.PATH);
  return out;
}

/**
 * PATH without its relative entries ('.', '', 'bin'): programs are spawned
 * with the working folder as their cwd, so a relative entry would find
 * `bash`, `bwrap` or `git` in the repository and run it unconfined.
 */
export function absolutePathEntries(value: string): string {
  return value.split(path.delimiter).filter((dir) => path.isAbsolute(dir)).join(path.delimiter);
}

/**
 * Values to mask in tool output: every secret-named variable's value (allow-listed
 * ones too: a tool may use a key, the model need not read it) plus `extra`
 * (e.g. a generated access token that never was in the environment).
 */
export function secretValues(env: NodeJS.ProcessEnv, extra: readonly NamedSecret[] = []): NamedSecret[] {
  const found: NamedSecret[] = [...extra];
  // By name and by value (variableSecrets): SKEIN_PORT or OPENAI_BASE_URL are scrubbed but are no secrets to mask.
  for (const [name, value] of Object.entries(env)) if (value !== undefined) found.push(...variableSecrets(name, value));
  // Longest first, so a value containing another is masked whole; one entry per value.
  const seen = new Set<string>();
  return found
    .filter((s) => s.value.length >= MIN_MASKED_LENGTH && !seen.has(s.value) && seen.add(s.value))
    .sort((a, b) => b.value.length - a.value.length);
}

/**
 * A value computed from the server's environment at most once per turn of the
 * event loop: every event appended, tool result and git command asks, and
 * reading the environment (a call into the host per variable, a URL parse per
 * value) was a busy server's largest cost of masking and of git's
 * environment. A change to the environment counts from the next turn.
 */
function perTurn<T>(compute: () => T): () => T {
  let thisTurn: { value: T } | undefined;
  return () => {
    if (!thisTurn) {
      thisTurn = { value: compute() };
      setImmediate(() => (thisTurn = undefined));
    }
    return thisTurn.value;
  };
}

const environmentSecrets = perTurn(() => secretValues(process.env));
const plainToolEnvironment = perTurn(() => toolEnvironment(process.env));

/** `secretValues(process.env, extra)`, the environment as of this turn (see `perTurn`). */
export function currentSecretValues(extra: readonly NamedSecret[] = []): NamedSecret[] {
  // The environment's values are already trimmed and checked; merged again for the order and one entry per value.
  return extra.length ? secretValues({}, [...extra, ...environmentSecrets()]) : [...environmentSecrets()];
}

/** `toolEnvironment(process.env)` (no exceptions), the environment as of this turn: shared, so read it, do not change it. */
export function currentToolEnvironment(): Readonly<NodeJS.ProcessEnv> {
  return plainToolEnvironment();
}

/**
 * A URL's credentials: the whole URL (as given) and its password, as written
 * and percent-decoded (a client prints either). A URL with a user name and
 * no password (`https://abc123@sentry.io/1`, a DSN) carries its key as the
 * user name: the URL, and the user name as written and decoded when it holds
 * a digit (a key does; `postgres` or `readonly` is an account name, and
 * masking it would redact every mention). Nothing for a URL without user info.
 * The URL parser decides, not a pattern: it finds a password where no simple
 * pattern would (`http:me:pw@host` without slashes, backslashes for slashes,
 * a tab or newline anywhere). A scheme it does not know, written without `//`
 * (`postgres:me:pw@db/x`), is a path to the parser; it is read again with the
 * slashes the user meant (a false hit costs a masked word, a miss a password).
 */
export function urlSecrets(name: string, value: string | undefined): NamedSecret[] {
  if (value === undefined) return [];
  const text = value.trim();
  if (!text.includes('@')) return []; // no user info without one: spares a parse of every value
  const colon = text.indexOf(':');
  const direct = userInfoIn(text);
  const password = direct?.password || userInfoIn(`${text.slice(0, colon + 1)}//${text.slice(colon + 1)}`)?.password;
  // The user name beside a password is an account name (`postgres`), not a key: masking it would hit every mention.
  if (password) return [{ name, value: text }, ...writtenAndDecoded(`${name} password`, password)];
  // A user name alone counts only where the parser itself sees an authority (`mailto:me@x` has none).
  if (!direct?.username) return [];
  return [{ name, value: text }, ...(/[0-9]/.test(direct.username) ? writtenAndDecoded(`${name} user`, direct.username) : [])];
}

/** The user info the URL parser reads in `text` (undefined for none, or for no URL at all). */
function userInfoIn(text: string): { username: string; password: string } | undefined {
  if (!URL.canParse(text)) return undefined;
  const { username, password } = new URL(text);
  return username || password ? { username, password } : undefined;
}

function writtenAndDecoded(name: string, value: string): NamedSecret[] {
  try {
    const decoded = decodeURIComponent(value);
    if (decoded !== value) return [{ name, value }, { name, value: decoded }];
  } catch {
    /* not valid percent-encoding: the value as written is all there is */
  }
  return [{ name, value }];
}

/**
 * Replaces every exact occurrence of a secret with `[redacted NAME]`: as written, and as JSON writes it inside a
 * string (a quote, a backslash or a line break escaped), the form an error message that quotes it takes.
 */
export function maskSecrets(text: string, secrets: readonly NamedSecret[]): string {
  let out = text;
  for (const { name, value } of secrets) {
    if (value.length < MIN_MASKED_LENGTH) continue;
    for (const form of [value, JSON.stringify(value).slice(1, -1)]) {
      if (out.includes(form)) out = out.replaceAll(form, `[redacted ${name}]`);
    }
  }
  return out;
}
