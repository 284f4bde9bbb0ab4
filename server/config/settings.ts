// The settings table: every setting's env name, flag, default, description
// and validation. docs/settings.md and `--help` are generated from it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultModel } from '../llm/credentials.js';
import { mcpConfigProblem } from '../mcp/config.js';
import { APPROVAL_MODES, REASONING_EFFORTS, type ApprovalMode, type ReasoningEffort } from '../../shared/protocol.js';
import { SANDBOX_MODES, type SandboxMode } from '../tools/sandbox.js';
import { LOG_FORMATS, type LogFormat } from '../log.js';
import type { Config } from './types.js';
import { ConfigError, dollars, envNames, integer, nonEmpty, oneOf, onOff, ratio, workRoots } from './parse.js';

export type SettingKey = Exclude<keyof Config, 'credentials' | 'workDir'>;

export interface Setting<K extends SettingKey> {
  key: K;
  env: string;
  flag: string;
  /** Shown in --help and docs/settings.md. */
  defaultText: string;
  /** Markdown (docs/settings.md); --help shows it with links reduced to their text. */
  description: string;
  /** Parses a raw value, or returns the allowed range as an error. */
  parse: (raw: string) => Config[K] | ConfigError;
  fallback: (env: NodeJS.ProcessEnv) => Config[K];
}

function setting<K extends SettingKey>(s: Setting<K>): Setting<K> {
  return s;
}

export const SETTINGS = [
  setting({
    key: 'port', env: 'SKEIN_PORT', flag: '--port', defaultText: '8420',
    description: 'TCP port for the UI and API (0 picks a free one)',
    parse: integer(0, 65535), fallback: () => 8420,
  }),
  setting({
    key: 'host', env: 'SKEIN_HOST', flag: '--host', defaultText: '127.0.0.1',
    description: "Address to listen on; keep it on loopback unless you know why",
    parse: nonEmpty('a host name or IP address'), fallback: () => '127.0.0.1',
  }),
  setting({
    key: 'dataDir', env: 'SKEIN_DATA_DIR', flag: '--data-dir', defaultText: '~/.skein',
    description: "Where session logs are kept (one JSONL file per session, in `sessions/`)",
    parse: (raw) => (raw.trim() ? path.resolve(raw.trim()) : new ConfigError('a folder path')),
    fallback: () => path.join(os.homedir(), '.skein'),
  }),
  setting({
    key: 'workDirs', env: 'SKEIN_WORKDIR', flag: '--workdir', defaultText: 'current folder',
    description: "The first projects: folders a session may work in (file tools cannot leave its folder). Several, separated by commas (or the path delimiter, `:` on Linux and macOS); the first is a new session's default folder; each must exist. They are always projects while the server runs, and the first content of the projects list (`<data dir>/projects.json`), which you extend in the web UI or by allowing an editor's request (see [Daily use](daily-use.md#projects))",
    parse: workRoots,
    fallback: () => [process.cwd()],
  }),
  setting({
    key: 'worktreeDefault', env: 'SKEIN_WORKTREE', flag: '--worktree', defaultText: 'off',
    description: "A new session in a git folder gets its own git worktree on a branch `skein/<id>` unless it asks otherwise (on or off; the web UI's *Own git worktree* box starts from it; see [Daily use](daily-use.md))",
    parse: onOff, fallback: () => false,
  }),
  setting({
    key: 'model', env: 'SKEIN_MODEL', flag: '--model', defaultText: 'predictable, or the default model of the provider that is set up',
    description: "Model for new sessions: a model name (`claude-sonnet-4-5`, `gpt-4.1`, `gemini-2.5-pro`) or `provider:model` (`predictable` is the built-in offline model; see [Providers](providers.md))",
    parse: nonEmpty('a model name'), fallback: defaultModel,
  }),
  setting({
    key: 'contextWindow', env: 'SKEIN_CONTEXT_WINDOW', flag: '--context-window', defaultText: "the model's",
    description: "Overrides the model's context window, in tokens (1000 to 10,000,000)",
    parse: integer(1000, 10_000_000), fallback: () => undefined,
  }),
  setting({
    key: 'maxOutputTokens', env: 'SKEIN_MAX_OUTPUT_TOKENS', flag: '--max-output-tokens', defaultText: "the model's (a quarter of a small window at most)",
    description: 'The most tokens one answer may take (max_tokens), 64 to 1,000,000: keeps each answer, and so each turn, short on a slow local model; answers cut by it are named in the timeline and continued',
    parse: integer(64, 1_000_000), fallback: () => undefined,
  }),
  setting({
    key: 'localContext', env: 'SKEIN_LOCAL_CONTEXT', flag: '--local-context', defaultText: "the server's",
    description: "Context asked of an Ollama server per request (`options.num_ctx` through its native `/api/chat`), in tokens (2048 to 10,000,000); llama.cpp, vLLM and LM Studio fix it at launch, so there it only logs why it does nothing",
    parse: integer(2048, 10_000_000), fallback: () => undefined,
  }),
  setting({
    key: 'compactThresholdRatio', env: 'SKEIN_COMPACT_THRESHOLD_RATIO', flag: '--compact-threshold-ratio',
    defaultText: '0.85', description: 'Compact when the context reaches this share of the window (0 < r <= 1)',
    parse: ratio, fallback: () => 0.85,
  }),
  setting({
    key: 'compactTargetRatio', env: 'SKEIN_COMPACT_TARGET_RATIO', flag: '--compact-target-ratio',
    defaultText: '0.5', description: "After a compaction the view should be at most this share of the window (0 < r <= 1)",
    parse: ratio, fallback: () => 0.5,
  }),
  setting({
    key: 'bashTimeoutMs', env: 'SKEIN_BASH_TIMEOUT_MS', flag: '--bash-timeout-ms', defaultText: '120000',
    description: "A bash command is killed, with its process group, after this long",
    parse: integer(100, 86_400_000), fallback: () => 120_000,
  }),
  setting({
    key: 'toolOutputLimit', env: 'SKEIN_TOOL_OUTPUT_LIMIT', flag: '--tool-output-limit', defaultText: '30000',
    description: "Characters of one tool result the model sees (head and tail; the full output is saved)",
    parse: integer(1000, 10_000_000), fallback: () => 30_000,
  }),
  setting({
    key: 'token', env: 'SKEIN_TOKEN', flag: '--token', defaultText: 'generated once, kept in <data dir>/token',
    description: "Access token required on every request (16+ characters); printed in the start URL. A `--token` flag is visible to other users in `ps`: prefer this variable or the token file",
    parse: (raw) => (raw.trim().length >= 16 ? raw.trim() : new ConfigError('at least 16 characters')), fallback: () => undefined,
  }),
  setting({
    key: 'auth', env: 'SKEIN_AUTH', flag: '--auth', defaultText: 'on',
    description: "`off` serves without a token: allowed only on a loopback host (refused at start otherwise), with a warning; any local user or process can then drive the agent (on or off)",
    parse: onOff, fallback: () => true,
  }),
  setting({
    key: 'replayFile', env: 'SKEIN_REPLAY_FILE', flag: '--replay-file', defaultText: 'none',
    description: "A recorded session (JSONL, the format of the trajectories) that the `replay` model plays; for tests and benchmarks",
    parse: (raw) => (raw.trim() && fs.existsSync(raw.trim()) ? path.resolve(raw.trim()) : new ConfigError('an existing JSONL file')), fallback: () => undefined,
  }),
  setting({
    key: 'compactPreflight', env: 'SKEIN_COMPACT_PREFLIGHT', flag: '--compact-preflight', defaultText: 'on',
    description: 'Compact before a request whose estimate crosses the threshold or would not leave room for the answer (on or off)',
    parse: onOff, fallback: () => true,
  }),
  setting({
    key: 'compactEveryNCalls', env: 'SKEIN_COMPACT_EVERY_N_CALLS', flag: '--compact-every-n-calls', defaultText: '0 (off)',
    description: "Also compact every N LLM calls (0 to 100000; 0 turns it off)",
    parse: integer(0, 100_000), fallback: () => 0,
  }),
  setting({
    key: 'compactKeepToolResults', env: 'SKEIN_COMPACT_KEEP_TOOL_RESULTS', flag: '--compact-keep-tool-results', defaultText: '3',
    description: 'Tool results of the last N tool groups stay verbatim when old results are cleared (0 to 1000)',
    parse: integer(0, 1000), fallback: () => 3,
  }),
  setting({
    key: 'compactClearStale', env: 'SKEIN_COMPACT_CLEAR_STALE', flag: '--compact-clear-stale', defaultText: 'on',
    description: 'Clear old tool results (those SKEIN_COMPACT_KEEP_TOOL_RESULTS does not keep) before any threshold, in batches that pay back their prompt-cache rewrite within 10 requests and before the next fold (on or off)',
    parse: onOff, fallback: () => true,
  }),
  setting({
    key: 'compactProvider', env: 'SKEIN_COMPACT_PROVIDER', flag: '--compact-provider', defaultText: 'off',
    description: "Let the provider's own compaction API fold old turns before skein's summary (Anthropic on-demand compaction, OpenAI /responses/compact; on or off)",
    parse: onOff, fallback: () => false,
  }),
  setting({
    key: 'summarizerModel', env: 'SKEIN_SUMMARIZER_MODEL', flag: '--summarizer-model', defaultText: "the session's model",
    description: 'Model that writes compaction summaries (a cheaper one, e.g. claude-haiku-4-5); its provider must be set up',
    parse: nonEmpty('a model name'), fallback: () => undefined,
  }),
  setting({
    key: 'summarizerTimeoutMs', env: 'SKEIN_SUMMARIZER_TIMEOUT_MS', flag: '--summarizer-timeout-ms', defaultText: '60000',
    description: 'A summary that takes longer is abandoned for the deterministic fallback',
    parse: integer(100, 3_600_000), fallback: () => 60_000,
  }),
  setting({
    key: 'sessionIdleUnloadMs', env: 'SKEIN_SESSION_IDLE_UNLOAD_MS', flag: '--session-idle-unload-ms', defaultText: '600000',
    description: "A session unused this long (nobody watching, nothing running) has its log unloaded from memory; opening it loads it again (100 to 86400000). See [Many sessions](operations.md#many-sessions)",
    parse: integer(100, 86_400_000), fallback: () => 600_000,
  }),
  setting({
    key: 'databaseUrl', env: 'SKEIN_DATABASE_URL', flag: '--database-url', defaultText: 'none (JSONL files)',
    description: "`postgres://user@host:port/db`: keep the sessions' events in PostgreSQL (schema migrated at start; see [Team server](team-server.md)). A password in a flag shows in `ps`: prefer the variable",
    parse: (raw) => (/^postgres(ql)?:\/\/\S+$/.test(raw.trim()) ? raw.trim() : new ConfigError('a postgres:// or postgresql:// URL')),
    fallback: () => undefined,
  }),
  setting({
    key: 'leaseTimeoutMs', env: 'SKEIN_LEASE_TIMEOUT_MS', flag: '--lease-timeout-ms', defaultText: '5000',
    description: 'With SKEIN_DATABASE_URL and several instances: how long after an instance\'s last heartbeat (every fifth of this) another one takes over its sessions (1000 to 600000)',
    parse: integer(1000, 600_000), fallback: () => 5000,
  }),
  setting({
    key: 'gitNetworkTimeoutMs', env: 'SKEIN_GIT_NETWORK_TIMEOUT_MS', flag: '--git-network-timeout-ms', defaultText: '120000',
    description: "A worktree's push (the one git command that talks to a remote) is stopped after this long, with every program it started, and says so (1000 to 3600000); *Cancel* in the Changes panel stops it sooner (see [Daily use](daily-use.md))",
    parse: integer(1000, 3_600_000), fallback: () => 120_000,
  }),
  setting({
    key: 'retryMax', env: 'SKEIN_RETRY_MAX', flag: '--retry-max', defaultText: '4',
    description: 'Retries of a request that failed with 429, 5xx, overloaded or a timeout (0 to 10)',
    parse: integer(0, 10), fallback: () => 4,
  }),
  setting({
    key: 'retryBaseMs', env: 'SKEIN_RETRY_BASE_MS', flag: '--retry-base-ms', defaultText: '1000',
    description: "First retry delay; it doubles with each retry (a provider's retry-after wins, up to 60 s)",
    parse: integer(1, 60_000), fallback: () => 1000,
  }),
  setting({
    key: 'requestTimeoutMs', env: 'SKEIN_REQUEST_TIMEOUT_MS', flag: '--request-timeout-ms', defaultText: '600000',
    description: 'A request to the provider that takes longer is abandoned and retried',
    parse: integer(1000, 3_600_000), fallback: () => 600_000,
  }),
  setting({
    key: 'toolEnvAllow', env: 'SKEIN_TOOL_ENV_ALLOW', flag: '--tool-env-allow', defaultText: 'none',
    description: "Comma-separated variable names passed to tools although their name or value looks secret (e.g. `GITHUB_TOKEN`, a `DATABASE_URL` with a password); their values are still masked in tool output (see [Secrets](sandbox-and-security.md#secrets))",
    parse: envNames, fallback: () => [],
  }),
  setting({
    key: 'maxStepsPerTurn', env: 'SKEIN_MAX_STEPS_PER_TURN', flag: '--max-steps-per-turn', defaultText: '200',
    description: "A turn stops after this many model calls (1 to 100000), with a `turn_limit` notice in the timeline; say \"continue\" to go on",
    parse: integer(1, 100_000), fallback: () => 200,
  }),
  setting({
    key: 'subagentParallel', env: 'SKEIN_SUBAGENT_PARALLEL', flag: '--subagent-parallel', defaultText: '3',
    description: "How many child sessions of one session run at once when its model asks for several `task` calls in one answer (1 to 16); the others wait their turn (see [Subagents](subagents.md))",
    parse: integer(1, 16), fallback: () => 3,
  }),
  setting({
    key: 'maxTurnCostUsd', env: 'SKEIN_MAX_TURN_COST_USD', flag: '--max-turn-cost-usd', defaultText: '0 (off)',
    description: "A turn stops once its model calls (and summaries) have cost this many dollars (0 to 1000000; 0 turns it off); say \"continue\" to go on",
    parse: dollars, fallback: () => 0,
  }),
  setting({
    key: 'reasoningEffort', env: 'SKEIN_REASONING_EFFORT', flag: '--reasoning-effort', defaultText: 'default',
    description: "How hard reasoning models think: default (the provider's), none (only where thinking can be turned off), low, medium, high, max (where supported; else the nearest the model has); per session from the model picker",
    parse: oneOf(REASONING_EFFORTS),
    fallback: () => 'default' as ReasoningEffort,
  }),
  setting({
    key: 'statusUpdates', env: 'SKEIN_STATUS_UPDATES', flag: '--status-updates', defaultText: 'off',
    description: "Tell the agent how full its context is: a short note at the end of the request every 5 LLM calls and when usage first passes 50%, 70% and 85% of the window (on or off; see [Compaction](compaction.md))",
    parse: onOff, fallback: () => false,
  }),
  setting({
    key: 'approval', env: 'SKEIN_APPROVAL', flag: '--approval', defaultText: 'never',
    description: "The approval mode of a session until you switch it (the mode picker, `/mode`, `PUT /api/sessions/:id/mode`, `skein run --mode`): which tool calls wait for your Approve / Approve for this session / Deny: `never`, `on-write` (bash, write_file, edit_file and MCP tools; reads, search and the plan never ask), `always`, or `plan` (read-only: writes and MCP tools are refused with a reason; bash runs without asking in a read-only sandbox, or is refused where bubblewrap cannot start) (see [Approvals](approvals.md))",
    parse: oneOf(APPROVAL_MODES), fallback: () => 'never' as ApprovalMode,
  }),
  setting({
    key: 'sandbox', env: 'SKEIN_SANDBOX', flag: '--sandbox', defaultText: 'off',
    description: "`workspace` runs bash and MCP stdio servers under bubblewrap: only the system folders and the project to see, only the working folder to write (not its `.git`, `.mcp.json`, `AGENTS.md`, `CLAUDE.md`), a private /tmp and home, no Unix sockets, no network, nothing left running after a command; skein refuses to start when bubblewrap cannot (`off` or `workspace`; see [The sandbox's threat model](sandbox-and-security.md#the-sandboxs-threat-model))",
    parse: oneOf(SANDBOX_MODES), fallback: () => 'off' as SandboxMode,
  }),
  setting({
    key: 'sandboxNetwork', env: 'SKEIN_SANDBOX_NETWORK', flag: '--sandbox-network', defaultText: 'off',
    description: 'With SKEIN_SANDBOX=workspace: keep the network for bash and MCP stdio servers (on or off; never for bash in plan mode)',
    parse: onOff, fallback: () => false,
  }),
  setting({
    key: 'sandboxRead', env: 'SKEIN_SANDBOX_READ', flag: '--sandbox-read', defaultText: 'none',
    description: 'With SKEIN_SANDBOX=workspace: more folders the sandbox shows read-only (comma-separated absolute paths, each must exist), e.g. a toolchain in your home folder',
    parse: (raw) => {
      const folders = raw.split(',').map((f) => f.trim()).filter(Boolean);
      if (!folders.length) return new ConfigError('comma-separated absolute paths of existing folders');
      const bad = folders.find((f) => !path.isAbsolute(f) || !fs.existsSync(f));
      return bad !== undefined ? new ConfigError(`comma-separated absolute paths of existing folders ("${bad}" is not one)`) : folders;
    },
    fallback: () => [],
  }),
  setting({
    key: 'mcpConfig', env: 'SKEIN_MCP_CONFIG', flag: '--mcp-config', defaultText: 'none (only a trusted <workdir>/.mcp.json)',
    description: "Your own JSON file of MCP servers in the `.mcp.json` shape (`{\"mcpServers\": {\"NAME\": {\"command\",\"args\",\"env\"} | {\"type\":\"http\",\"url\",\"headers\"}}}`), `${VAR}` expanded from the environment, started without a question; its servers join those of `<workdir>/.mcp.json` (which start only once trusted, `skein trust`: see [Project trust](mcp-and-trust.md#project-trust)) and win on a shared name. A file that cannot be read or is not valid is refused at start (see [MCP servers](mcp-and-trust.md#mcp-servers))",
    parse: (raw) => {
      const file = path.resolve(raw.trim());
      const problem = raw.trim() ? mcpConfigProblem(file) : 'no path given';
      return problem ? new ConfigError(`a readable file {"mcpServers": {...}} (${problem})`) : file;
    },
    fallback: () => undefined,
  }),
  setting({
    key: 'mcpTimeoutMs', env: 'SKEIN_MCP_TIMEOUT_MS', flag: '--mcp-timeout-ms', defaultText: '120000',
    description: "An MCP tool call that takes longer fails with an error result, and its server is restarted (100 to 86400000)",
    parse: integer(100, 86_400_000), fallback: () => 120_000,
  }),
  setting({
    key: 'mcpStartTimeoutMs', env: 'SKEIN_MCP_START_TIMEOUT_MS', flag: '--mcp-start-timeout-ms', defaultText: '30000',
    description: "How long an MCP server may take to start and list its tools; skein waits at most this long for them at start (100 to 600000)",
    parse: integer(100, 600_000), fallback: () => 30_000,
  }),
  setting({
    key: 'logFormat', env: 'SKEIN_LOG_FORMAT', flag: '--log-format', defaultText: 'text',
    description: "Server log lines as text or as JSON lines, one object per line with `ts`, `level`, `session` (the session id, `null` for a line about the whole server) and `msg` (text or json)",
    parse: oneOf(LOG_FORMATS),
    fallback: () => 'text' as LogFormat,
  }),
] as const;
