// The settings a client (skein run, skein acp) was asked for, by flag or by
// the variable the docs tell users to set, and how they reach its session on
// a server that was started with others. Per session (approval mode, model,
// effort) they are put on the session and read back before anything is sent;
// server-wide ones (the sandbox) must equal the running server's. Either way
// a setting asked for takes effect or the command stops: a session that
// silently ran in the server's `never` is the bug this prevents.
import { isApprovalMode, MODE_INFO } from '../../shared/modes.js';
import type { ApprovalMode, ReasoningEffort, SessionSnapshot } from '../../shared/protocol.js';
import { REASONING_EFFORTS } from '../../shared/wire/constants.js';
import { sentence } from '../../shared/sentence.js';
import { SETTINGS } from '../config.js';
import type { CliArgs } from './args.js';
import { CliError, EXIT } from './exit-codes.js';

/** What of the CLI's Api this module uses (its own shape: api.ts imports connection.ts, which imports this). */
export interface SettingsApi {
  request<T>(method: 'GET' | 'POST' | 'PUT', route: string, body?: unknown): Promise<T>;
  session(id: string): Promise<SessionSnapshot>;
  setMode(id: string, mode: string): Promise<SessionSnapshot>;
}

/** A value asked for, and where it came from (`SKEIN_APPROVAL=always`, `--mode`), for the messages. */
export interface Asked<T> {
  value: T;
  source: string;
}

/** What a session must have before the task is sent. */
export interface SessionAsk {
  mode?: Asked<ApprovalMode>;
  model?: Asked<string>;
  effort?: Asked<ReasoningEffort>;
}

/** Settings every session of a server shares: a client can only match them. */
const SERVER_WIDE = ['sandbox', 'sandboxNetwork', 'sandboxRead'] as const;
type ServerWideKey = (typeof SERVER_WIDE)[number];
export type ServerWideSettings = Record<ServerWideKey, unknown>;

/** The flags a client may give with a running server (the others are its settings, refused by connection.ts). */
export const CLIENT_FLAGS = ['--token', '--model', '--data-dir', '--approval', '--reasoning-effort', ...SERVER_WIDE.map((k) => setting(k).flag)];

function setting(key: string) {
  return SETTINGS.find((s) => s.key === key)!;
}

/** The flag's value (last one wins, as loadConfig takes it), else the variable's; with where it came from. */
function raw(args: CliArgs, env: NodeJS.ProcessEnv, key: string): Asked<string> | undefined {
  const s = setting(key);
  for (let i = args.settings.length - 2; i >= 0; i -= 2) if (args.settings[i] === s.flag) return { value: args.settings[i + 1]!, source: `${s.flag} ${args.settings[i + 1]}` };
  const value = env[s.env]?.trim();
  return value ? { value, source: `${s.env}=${value}` } : undefined;
}

export function askedForSession(args: CliArgs, env: NodeJS.ProcessEnv): SessionAsk {
  const ask: SessionAsk = {};
  const approval = raw(args, env, 'approval');
  if (args.mode) ask.mode = { value: args.mode, source: '--mode' };
  else if (approval) {
    if (!isApprovalMode(approval.value)) throw new CliError(EXIT.usage, `${approval.source}: unknown mode; one of ${MODE_INFO.map((m) => m.id).join(', ')}`);
    ask.mode = { value: approval.value, source: approval.source };
  }
  const model = raw(args, env, 'model');
  if (model) ask.model = { value: model.value, source: model.source };
  const effort = raw(args, env, 'reasoningEffort');
  if (effort) {
    if (!(REASONING_EFFORTS as readonly string[]).includes(effort.value)) throw new CliError(EXIT.usage, `${effort.source}: one of ${REASONING_EFFORTS.join(', ')}`);
    ask.effort = { value: effort.value as ReasoningEffort, source: effort.source };
  }
  return ask;
}

/** Refuses the command when a server-wide setting asked for is not the running server's (GET /api/settings). */
export async function checkServerWide(args: CliArgs, env: NodeJS.ProcessEnv, api: SettingsApi): Promise<void> {
  const asked = SERVER_WIDE.map((key) => ({ key, asked: raw(args, env, key) })).filter((a) => a.asked !== undefined);
  if (!asked.length) return;
  let server: ServerWideSettings;
  try {
    server = await api.request<ServerWideSettings>('GET', '/api/settings');
  } catch (err) {
    const names = asked.map((a) => a.asked!.source).join(', ');
    throw new CliError(EXIT.settingRefused, `${names}: the running server does not say its own (${(err as Error).message}); nothing was sent`);
  }
  for (const { key, asked: one } of asked) {
    const s = setting(key);
    const parsed = s.parse(one!.value);
    if (parsed && typeof parsed === 'object' && 'allowed' in parsed) throw new CliError(EXIT.usage, `${one!.source}: ${(parsed as { allowed: string }).allowed}`);
    if (JSON.stringify(parsed) === JSON.stringify(server[key])) continue;
    throw new CliError(
      EXIT.settingRefused,
      `${one!.source}: the running server has ${s.env}=${shown(server[key])}, which applies to every session and cannot change for one; restart the server with it, or leave ${s.env} unset here. Nothing was sent`,
    );
  }
}

function shown(value: unknown): string {
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (Array.isArray(value)) return value.length ? value.join(',') : '(none)';
  return String(value);
}

/** A refusal by the server of a setting asked for: the command's own exit status, naming the setting. */
export function refusedSetting(asked: Asked<unknown>, err: unknown): never {
  if (err instanceof CliError && err.code === EXIT.usage) throw new CliError(EXIT.settingRefused, `${asked.source}: the running server refused it: ${sentence(err.message)} Nothing was sent`);
  throw err;
}

/** How long a model or effort switch (applied at the session's next safe point) may take to show. */
const SWITCH_WAIT_MS = 15_000;

/** Puts the settings asked for on the session and reads them back; throws (settingRefused) when one did not take. */
export async function applySessionSettings(api: SettingsApi, id: string, ask: SessionAsk): Promise<SessionSnapshot> {
  let snapshot = await api.session(id);
  if (ask.mode && snapshot.mode !== ask.mode.value) {
    const mode = ask.mode;
    snapshot = await api.setMode(id, mode.value).catch((err: unknown) => refusedSetting(mode, err));
  }
  const modelWrong = ask.model && snapshot.model !== ask.model.value;
  const effortWrong = ask.effort && (snapshot.effort ?? 'default') !== ask.effort.value;
  if (modelWrong || effortWrong) {
    const body = { ...(ask.model && { model: ask.model.value }), ...(ask.effort && { effort: ask.effort.value }) };
    await api.request('POST', `/api/sessions/${encodeURIComponent(id)}/model`, body).catch((err: unknown) => refusedSetting((modelWrong ? ask.model : ask.effort)!, err));
    // Applied at the session's next safe point (at once when it waits for input): read back until it shows.
    const deadline = Date.now() + SWITCH_WAIT_MS;
    while (!matches(snapshot, ask) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      snapshot = await api.session(id);
    }
  }
  const wrong = mismatch(snapshot, ask);
  if (wrong) throw new CliError(EXIT.settingRefused, `${wrong.asked.source}: the session still has ${wrong.has} after the switch was asked; nothing was sent`);
  return snapshot;
}

function matches(snapshot: SessionSnapshot, ask: SessionAsk): boolean {
  return mismatch(snapshot, ask) === undefined;
}

function mismatch(snapshot: SessionSnapshot, ask: SessionAsk): { asked: Asked<unknown>; has: string } | undefined {
  if (ask.mode && snapshot.mode !== ask.mode.value) return { asked: ask.mode, has: `mode ${snapshot.mode ?? 'unknown'}` };
  if (ask.model && snapshot.model !== ask.model.value) return { asked: ask.model, has: `model ${snapshot.model}` };
  if (ask.effort && (snapshot.effort ?? 'default') !== ask.effort.value) return { asked: ask.effort, has: `effort ${snapshot.effort ?? 'default'}` };
  return undefined;
}
