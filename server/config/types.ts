// The shape of skein's configuration: what loadConfig returns.
import type { Credentials } from '../llm/credentials.js';
import type { ApprovalMode, ReasoningEffort } from '../../shared/protocol.js';
import type { SandboxMode } from '../tools/sandbox.js';
import type { LogFormat } from '../log.js';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** The first of workDirs: where a session works unless it names another folder. */
  workDir: string;
  /** SKEIN_WORKDIR: the roots a session's folder must be (or be inside). */
  workDirs: string[];
  model: string;
  contextWindow: number | undefined;
  /** SKEIN_MAX_OUTPUT_TOKENS: at most this much answer per request; undefined: the model's. */
  maxOutputTokens: number | undefined;
  /** The context asked of a local server per request (Ollama's num_ctx); undefined: the server's own. */
  localContext: number | undefined;
  compactThresholdRatio: number;
  compactTargetRatio: number;
  bashTimeoutMs: number;
  toolOutputLimit: number;
  token: string | undefined;
  /** false only by an explicit SKEIN_AUTH=off, and only on a loopback host. */
  auth: boolean;
  replayFile: string | undefined;
  compactPreflight: boolean;
  compactEveryNCalls: number;
  compactKeepToolResults: number;
  /** clear_stale_results: old tool results cleared early when that pays for itself in the prompt cache (on by default). */
  compactClearStale: boolean;
  /** provider_compact: the provider's own compaction API before skein's summary (off by default). */
  compactProvider: boolean;
  summarizerModel: string | undefined;
  summarizerTimeoutMs: number;
  retryMax: number;
  retryBaseMs: number;
  requestTimeoutMs: number;
  toolEnvAllow: string[];
  maxStepsPerTurn: number;
  /** SKEIN_SUBAGENT_PARALLEL: how many children of one session's task calls run at once. */
  subagentParallel: number;
  /** 0: no bound. */
  maxTurnCostUsd: number;
  /** How hard reasoning models think; `default`: the provider's default. */
  reasoningEffort: ReasoningEffort;
  statusUpdates: boolean;
  /** Which tool calls wait for the user's approval. */
  approval: ApprovalMode;
  /** workspace: bash runs under bubblewrap. */
  sandbox: SandboxMode;
  /** The sandbox keeps the network. */
  sandboxNetwork: boolean;
  /** SKEIN_WORKTREE: a new session in a git folder gets its own worktree unless it asks otherwise; absent: off. */
  worktreeDefault?: boolean;
  /** SKEIN_SANDBOX_READ: more folders the sandbox shows read-only. */
  sandboxRead: string[];
  /** SKEIN_MCP_CONFIG: the user's own .mcp.json-shaped file of MCP servers (`${VAR}` expanded), besides a trusted <workdir>/.mcp.json. */
  mcpConfig: string | undefined;
  mcpTimeoutMs: number;
  mcpStartTimeoutMs: number;
  /** How the server writes its log lines: text, or JSON lines with the session id on each. */
  logFormat: LogFormat;
  /** A loaded session unused this long (no client, nothing running) is unloaded; absent: 600000. */
  sessionIdleUnloadMs?: number;
  /** SKEIN_DATABASE_URL: keep events in PostgreSQL instead of JSONL files. */
  databaseUrl?: string | undefined;
  /** Several instances on one database: a session's lease is taken over this long after its owner's last heartbeat; absent: 5000. */
  leaseTimeoutMs?: number;
  /** A git command that talks to a remote (a worktree's push) is stopped after this long; absent: 120000. */
  gitNetworkTimeoutMs?: number;
  /** Provider keys and base URLs: environment only, never flags (see docs/providers.md). */
  credentials: Credentials;
}
