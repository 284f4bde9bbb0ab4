// The wire protocol between the skein server and its clients (web UI, tests,
// outside tools). The names here are a contract: fields may be added, but
// existing ones never change meaning. See README "Wire protocol".

export const AGENT_STATES = [
  'WaitingForUserInput',
  'SendingToLLM',
  'ProcessingLLMResponse',
  'RunningTools',
  'Compacting',
  'EndOfTurn',
  'Cancelled',
  'Error',
] as const;
export type AgentState = (typeof AGENT_STATES)[number];

export const COMPACTION_TRIGGERS = [
  'threshold',
  'preflight',
  'overflow',
  'manual',
  'agent',
  'cadence',
  'model_switch',
] as const;
export type CompactionTrigger = (typeof COMPACTION_TRIGGERS)[number];

/** One LLM response's token usage, normalised across providers. */
export interface Usage {
  /** Uncached input tokens. */
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  costUsd: number;
  /** Of `output`: the tokens the model spent thinking (billed as output), when the provider says. */
  reasoning?: number;
}

export interface Gauge {
  /** input + cacheRead + cacheWrite of the last request. */
  contextTokens: number;
  contextWindow: number;
  ratio: number;
  thresholdRatio: number;
  model: string;
  totalCostUsd: number;
  /** The three segments of contextTokens, for the gauge's bar. */
  input?: number;
  cacheRead?: number;
  cacheWrite?: number;
  /** True when contextTokens is skein's estimate (after a compaction), not a provider's report. */
  estimated?: boolean;
  /** Where contextWindow comes from (see LimitsEvent). */
  windowSource?: WindowSource;
}

/**
 * Where a session's context window comes from: the provider's model-info
 * endpoint, a refusal (or a server seen cutting the prompt), skein's model
 * table, or SKEIN_CONTEXT_WINDOW.
 */
export type WindowSource = 'provider' | 'refusal' | 'table' | 'setting';

/** How the UI and error messages say where the window comes from. */
export const WINDOW_SOURCE_WORDS: Record<WindowSource, string> = {
  provider: 'from the provider',
  refusal: 'learned from a refusal',
  table: 'from the model table',
  setting: 'set by SKEIN_CONTEXT_WINDOW',
};

interface EventBase {
  seq: number;
  /** ISO 8601 time the event was recorded. */
  ts: string;
}

export interface UserEvent extends EventBase {
  kind: 'user';
  text: string;
}
export interface AgentEvent extends EventBase {
  kind: 'agent';
  text: string;
  model: string;
  endOfTurn: boolean;
  usage?: Usage;
  /** What a reasoning model returned beside its text, exactly as returned (see `Reasoning`). */
  reasoning?: Reasoning;
}

/**
 * A reasoning model's answer as its provider returned it, kept so that it can
 * be sent back exactly (Anthropic checks thinking signatures against their
 * prefix, OpenAI needs its encrypted reasoning items, Gemini its thought
 * signatures). Tied to the model that produced it: never sent to another.
 */
export interface Reasoning {
  provider: 'anthropic' | 'openai' | 'gemini';
  /** The provider's model name that produced it. */
  model: string;
  /**
   * The whole answer in the provider's own shape, in order: Anthropic content
   * blocks (thinking with signature, redacted_thinking, text, tool_use);
   * OpenAI Responses output items (reasoning with encrypted_content,
   * message, function_call); Gemini parts (thought summaries, thoughtSignature).
   */
  output: Record<string, unknown>[];
  /** The readable thinking: Anthropic's thinking text, OpenAI's summary, Gemini's thought summaries. */
  text?: string;
  /** Some or all of the thinking came back encrypted (Anthropic redacted_thinking). */
  redacted?: boolean;
  /** A fingerprint of the request that produced it (system, tools, messages): a later request whose prefix differs drops this thinking. */
  prefix?: string;
}
export interface ToolCallEvent extends EventBase {
  kind: 'tool_call';
  callId: string;
  name: string;
  input: Record<string, unknown>;
}
export interface ToolResultEvent extends EventBase {
  kind: 'tool_result';
  callId: string;
  name: string;
  output: string;
  isError: boolean;
  durationMs: number;
}
export interface StateEvent extends EventBase {
  kind: 'state';
  from: AgentState;
  to: AgentState;
  reason: string;
}
export interface UsageEvent extends EventBase {
  kind: 'usage';
  gauge: Gauge;
}
export type CompactionPhase = 'queued' | 'started' | 'finished' | 'failed';
export interface CompactionEvent extends EventBase {
  kind: 'compaction';
  phase: CompactionPhase;
  trigger: CompactionTrigger;
  /** Focus text given with /compact, if any. */
  instructions?: string;
  // finished:
  strategy?: string;
  tokensBefore?: number;
  tokensAfter?: number;
  messagesBefore?: number;
  messagesAfter?: number;
  summary?: string;
  coversSeq?: [number, number];
  durationMs?: number;
  /** Every strategy that ran, in order (e.g. clear_tool_results, summarize). */
  strategies?: string[];
  /** Tool results with seq <= this are shown to the model as a short placeholder. */
  clearedThroughSeq?: number;
  /** The deterministic record of the folded span, attached beside the summary. */
  ledger?: Ledger;
  /** compact_history: how many recent groups the agent asked to keep. */
  preserveRecentGroups?: number;
  /** What the summariser's requests used (all chunks together), when it was called. */
  summariserUsage?: Usage;
  // failed:
  error?: string;
  fallback?: string;
}
/** Built without an LLM from the folded span; carried forward across compactions. */
export interface Ledger {
  /** Every folded user message: verbatim, or its start and a pointer (seq) when very long. */
  userMessages: { seq: number; text: string; truncated?: boolean }[];
  filesRead: string[];
  filesWritten: string[];
  /** Commands with their exit status, most recent last; `seq` is the latest run. */
  commands: { seq: number; command: string; status: string; count?: number; firstSeq?: number }[];
  errors: string[];
  /** Entries left out to keep the ledger within its budget (all still reachable with search_history). */
  omitted: { commands: number; errors: number; files: number };
  /**
   * Every path touched: how (letters: r read or named, w written, e edited,
   * l listed, g grepped), how many times, and the latest event; most recent last.
   */
  paths?: { path: string; how: string; count: number; seq: number }[];
  /** Each distinct error line with the first and last event it came from and how often it appeared. */
  errorLines?: { text: string; firstSeq: number; lastSeq: number; count: number }[];
  /** The token budget the ledger was held to. */
  budgetTokens?: number;
}

/**
 * A status note to the agent (SKEIN_STATUS_UPDATES=on): how full the context
 * is and what it costs, sent as a new message at the end of the next request.
 * Logged so the model view stays derived from the log.
 */
export interface StatusEvent extends EventBase {
  kind: 'status';
  /** The note exactly as the model reads it (wrapped in <skein-status>). */
  text: string;
  /** Why now: `calls` (every 5 LLM calls) or `50%`, `70%`, `85%` (usage first passed that share of the window). */
  reason: string;
  contextTokens: number;
  contextWindow: number;
  costUsd: number;
  /** LLM calls of the session so far. */
  calls: number;
}
/** Status notes are wrapped in this tag, so models and tools can tell them from what the user typed. */
export const STATUS_NOTE_OPEN = '<skein-status>';
export const STATUS_NOTE_CLOSE = '</skein-status>';

export interface ErrorEvent extends EventBase {
  kind: 'error';
  message: string;
  code?: string;
}

export type SkeinEvent =
  | UserEvent
  | AgentEvent
  | ToolCallEvent
  | ToolResultEvent
  | StateEvent
  | UsageEvent
  | CompactionEvent
  | ErrorEvent
  | ModelEvent
  | StatusEvent
  | LimitsEvent
  | McpEvent
  | ToolsChangedEvent;
export type EventKind = SkeinEvent['kind'];

/** An event before the log gives it its seq and ts. */
export type NewEvent = SkeinEvent extends infer E ? (E extends SkeinEvent ? Omit<E, 'seq' | 'ts'> : never) : never;

export interface SessionSnapshot {
  id: string;
  state: AgentState;
  model: string;
  gauge: Gauge;
  lastSeq: number;
  title: string;
  createdAt: string;
  lastActivity: string;
  /** The session's reasoning effort (`default`: the provider's). */
  effort?: ReasoningEffort;
}

/** One message of the model view (GET /api/sessions/:id/view). */
export interface ViewMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  toolCalls?: { id: string; name: string; input: Record<string, unknown> }[];
  toolCallId?: string;
  /** On an assistant message: the provider's own answer, to send back as returned (see `Reasoning`). */
  reasoning?: Reasoning;
}

// ---- WebSocket frames ----

export type ClientFrame =
  | { type: 'user_message'; text: string }
  | { type: 'compact'; instructions?: string }
  | { type: 'cancel' };

export type ServerFrame =
  | { type: 'hello'; session: SessionSnapshot }
  | { type: 'event'; event: SkeinEvent }
  | { type: 'error'; message: string }
  | DeltaFrame;

/**
 * WebSocket close code: the server stopped sending to this client because it
 * fell too far behind (its send buffer passed the bound). Nothing is lost:
 * reconnect with `since` = the last seq received, and the rest is replayed.
 * (4000-4999 are the application's own codes in RFC 6455.)
 */
export const CLOSE_RESUME = 4000;

/** Largest accepted WebSocket frame / HTTP body, in bytes. */
export const MAX_FRAME_BYTES = 1024 * 1024;
/** Longest accepted user message, in characters. */
export const MAX_MESSAGE_CHARS = 200_000;

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** Validates a client frame that arrived as text. Never throws. */
export function parseClientFrame(raw: string): Parsed<ClientFrame> {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return { ok: false, error: 'frame is not valid JSON' };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { ok: false, error: 'frame must be a JSON object with a "type"' };
  }
  const frame = data as Record<string, unknown>;
  switch (frame.type) {
    case 'user_message': {
      const text = checkText(frame.text, 'text');
      return typeof text === 'string' ? { ok: true, value: { type: 'user_message', text } } : text;
    }
    case 'compact': {
      if (frame.instructions === undefined) return { ok: true, value: { type: 'compact' } };
      const instructions = checkText(frame.instructions, 'instructions', true);
      return typeof instructions === 'string'
        ? { ok: true, value: { type: 'compact', instructions } }
        : instructions;
    }
    case 'cancel':
      return { ok: true, value: { type: 'cancel' } };
    default:
      return {
        ok: false,
        error: `unknown frame type ${JSON.stringify(frame.type)}; expected user_message, compact or cancel`,
      };
  }
}

/** Checks a text field: a string, not blank (unless allowed), not too long. */
export function checkText(value: unknown, field: string, allowEmpty = false): string | { ok: false; error: string } {
  if (typeof value !== 'string') return { ok: false, error: `"${field}" must be a string` };
  if (!allowEmpty && value.trim() === '') return { ok: false, error: `"${field}" must not be empty` };
  if (value.length > MAX_MESSAGE_CHARS) {
    return { ok: false, error: `"${field}" is longer than ${MAX_MESSAGE_CHARS} characters` };
  }
  return value;
}

/** `/compact [focus]` typed as a message asks for a compaction. */
export function parseCompactCommand(text: string): { instructions?: string } | null {
  const match = /^\/compact(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return null;
  const focus = match[1]?.trim();
  return focus ? { instructions: focus } : {};
}

export function contextTokensOf(usage: Pick<Usage, 'input' | 'cacheRead' | 'cacheWrite'>): number {
  return usage.input + usage.cacheRead + usage.cacheWrite;
}

// ---- Models and streaming (providers) ----

/** The session moved to another model (POST /api/sessions/:id/model), applied at a safe point. */
export interface ModelEvent extends EventBase {
  kind: 'model';
  from: string;
  to: string;
  /** The new model's context window, in tokens. */
  contextWindow: number;
  /** The session's reasoning effort from here on (set with the model picker; `from` = `to` when only it changed). */
  effort?: ReasoningEffort;
}

/**
 * The limits skein uses for the session's model, and where they come from:
 * asked once per model (provider), learned when the provider refused a
 * request or was seen cutting the prompt (refusal), or the model table /
 * SKEIN_CONTEXT_WINDOW when the provider does not say. A restart reads the
 * last one for its model instead of asking again.
 */
export interface LimitsEvent extends EventBase {
  kind: 'limits';
  model: string;
  contextWindow: number;
  /** The output budget requests may ask for. */
  maxOutputTokens: number;
  source: WindowSource;
  /** How it was learned, e.g. "GET /props (n_ctx)", or why asking failed. */
  via: string;
  /** What the provider's model-info endpoint said, when it answered. */
  reported?: { contextWindow?: number; maxOutputTokens?: number };
  /** The server silently dropped the start of the prompt (it reported fewer prompt tokens than were sent). */
  truncated?: boolean;
  /** The server drops the start of a prompt that does not fit instead of refusing it (Ollama). */
  truncates?: boolean;
  /** A sentence for the timeline, when the change is news to the user. */
  message?: string;
}

/**
 * Ephemeral: a piece of the assistant's text as the model generates it. Never
 * logged nor replayed; the `agent` event that follows holds the whole text.
 * Deltas of one model call share `afterSeq` (the log's last seq when the
 * request was sent) and `attempt` (a retry starts a new attempt: drop the
 * partial text of the previous one); `index` counts from 0 within an attempt.
 */
export interface DeltaFrame {
  type: 'delta';
  afterSeq: number;
  attempt: number;
  index: number;
  text: string;
  /** `thinking`: a piece of the readable thinking shown above the answer (absent: the answer's text). */
  channel?: 'thinking';
}

/** How hard a reasoning model thinks (SKEIN_REASONING_EFFORT, per session from the model picker); `default`: the provider's default. */
export const REASONING_EFFORTS = ['default', 'none', 'low', 'medium', 'high', 'max'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/** One row of GET /api/models: a model usable with the configured keys. */
export interface ModelEntry {
  /** What to send as `model` (POST /api/sessions, POST /api/sessions/:id/model). */
  id: string;
  provider: 'predictable' | 'replay' | 'anthropic' | 'openai' | 'gemini';
  contextWindow: number;
  maxOutputTokens: number;
  /** USD per million tokens. */
  prices: { input: number; output: number; cacheWrite: number; cacheRead: number };
  /** Not in skein's model table (listed by an OpenAI-compatible server): a conservative window, no prices. */
  unknown?: boolean;
  /** The efforts this model accepts (besides `default`); absent: it does not reason or skein does not know. */
  efforts?: ReasoningEffort[];
}

// ---- MCP servers ----

/** An MCP server's state: `failed` servers are started again after a growing pause; `stopped` on shutdown. */
export type McpServerState = 'starting' | 'ready' | 'failed' | 'stopped';

/** An MCP server started, became ready, failed (to start, crashed, timed out) or changed its tools. */
export interface McpEvent extends EventBase {
  kind: 'mcp';
  server: string;
  state: McpServerState;
  message: string;
  /** When failed: how long until the next attempt. */
  retryInMs?: number;
}

/**
 * Tools that appeared or vanished after the session started (an MCP server
 * connected late, crashed, or sent tools/list_changed). The tools of the
 * session's requests never change; the model reads this note as a new
 * message at the end of the next request, like a status note.
 */
export interface ToolsChangedEvent extends EventBase {
  kind: 'tools_changed';
  /** The note exactly as the model reads it (wrapped in <skein-tools>). */
  text: string;
  added: string[];
  removed: string[];
}
export const TOOLS_NOTE_OPEN = '<skein-tools>';
export const TOOLS_NOTE_CLOSE = '</skein-tools>';

/** One tool of an MCP server as GET /api/mcp lists it. */
export interface McpToolInfo {
  /** The name the model calls: mcp__<server>__<tool>. */
  name: string;
  description: string;
  /** Why the tool is not offered to the model (e.g. a broken input schema). */
  skipped?: string;
}

/** One row of GET /api/mcp. */
export interface McpServerInfo {
  name: string;
  transport: 'stdio' | 'http';
  state: McpServerState;
  /** The last failure, while failed. */
  error?: string;
  restarts: number;
  /** When failed: ISO time of the next attempt. */
  nextAttemptAt?: string;
  tools: McpToolInfo[];
}
