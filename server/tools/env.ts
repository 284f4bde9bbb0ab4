// The environment tools run with, and the mask over their output. A tool is
// driven by a model that may be reading a prompt injection: it must not get
// the server's keys and tokens, and if one still shows up (read from a file,
// printed by a program that found it elsewhere) it is masked before it is logged.
import path from 'node:path';

/** Names that are provider credentials or skein's own settings (the token among them). */
const DROPPED_PREFIXES = ['ANTHROPIC_', 'OPENAI_', 'GEMINI_', 'GOOGLE_API', 'GOOGLE_GENAI', 'SKEIN_'];

/** Anything named like a secret, wherever it came from. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;

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

/** The server's environment without credentials and secret-looking names; `allow` lists exceptions by exact name. */
export function toolEnvironment(env: NodeJS.ProcessEnv, allow: readonly string[] = []): NodeJS.ProcessEnv {
  const allowed = new Set(allow);
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && (allowed.has(name) || !isScrubbed(name))) out[name] = value;
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
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    // Secret-named only: SKEIN_PORT or OPENAI_BASE_URL are scrubbed but are no secrets to mask.
    if (SECRET_NAME.test(name)) found.push({ name, value: value.trim() });
    // Whatever its name, a URL with a password in it (SKEIN_DATABASE_URL, DATABASE_URL, HTTPS_PROXY) is one.
    else found.push(...urlSecrets(name, value));
  }
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
 * and percent-decoded (a client prints either). Nothing for a URL without a password.
 * The URL parser decides, not a pattern: it finds a password where no simple
 * pattern would (`http:me:pw@host` without slashes, backslashes for slashes,
 * a tab or newline anywhere). A scheme it does not know, written without `//`
 * (`postgres:me:pw@db/x`), is a path to the parser; it is read again with the
 * slashes the user meant (a false hit costs a masked word, a miss a password).
 */
export function urlSecrets(name: string, value: string | undefined): NamedSecret[] {
  if (value === undefined) return [];
  const text = value.trim();
  const colon = text.indexOf(':');
  const password = passwordIn(text) || passwordIn(`${text.slice(0, colon + 1)}//${text.slice(colon + 1)}`);
  if (!password) return [];
  const out: NamedSecret[] = [{ name, value: text }, { name: `${name} password`, value: password }];
  try {
    const decoded = decodeURIComponent(password);
    if (decoded !== password) out.push({ name: `${name} password`, value: decoded });
  } catch {
    /* not valid percent-encoding: the password as written is all there is */
  }
  return out;
}

/** The password the URL parser reads in `text` ('' for none, or for no URL at all). */
function passwordIn(text: string): string {
  return URL.canParse(text) ? new URL(text).password : '';
}

/** Replaces every exact occurrence of a secret with `[redacted NAME]`. */
export function maskSecrets(text: string, secrets: readonly NamedSecret[]): string {
  let out = text;
  for (const { name, value } of secrets) {
    if (value.length >= MIN_MASKED_LENGTH && out.includes(value)) out = out.replaceAll(value, `[redacted ${name}]`);
  }
  return out;
}
