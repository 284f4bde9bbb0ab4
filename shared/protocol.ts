// The wire protocol between the skein server and its clients (web UI, tests,
// outside tools). The names here are a contract: fields may be added, but
// existing ones never change meaning. See README "Wire protocol".

export const AGENT_STATES = [
  'WaitingForUserInput',
  'SendingToLLM',
  'ProcessingLLMResponse',
  'RunningTools',
  'WaitingForApproval',
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
  'strategy',
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
  /** Tokens of every request so far (input, cache and output), for the session list; absent in logs older than it. */
  totalTokens?: number;
  /** The three segments of contextTokens, for the gauge's bar. */
  input?: number;
  cacheRead?: number;
  cacheWrite?: number;
  /** True when contextTokens is skein's estimate (after a compaction), not a provider's report. */
  estimated?: boolean;
  /** Where contextWindow comes from (see LimitsEvent). */
  windowSource?: WindowSource;
  /** Tokens kept free for the answer: skein compacts before a request whose estimate (with its margin) would leave less. */
  reserve?: number;
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
  /** Posted to another instance and forwarded through the database's inbox (its row id; several instances on one database). */
  inbox?: number;
  /** Too large for the window: kept whole in this file of the session's, the model sees its head and where it is. */
  saved?: SavedMessage;
}
export interface SavedMessage {
  file: string;
  chars: number;
  tokens: number;
  /** Characters of its start the model sees. */
  headChars: number;
}

/** Why a fork's copy closes the turn its fork point cut: a plain note, not an error. */
export const FORKED_HERE = 'forked here';

/** A user message of more than this share of the context window is saved as a file (the model sees its head and where it is). */
export const LARGE_MESSAGE_SHARE = 0.5;
/** Share of the window the head of a saved message takes in the model's view. */
export const SAVED_HEAD_SHARE = 0.1;
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
  /** provider_compact: the provider's own compaction of the span, as returned (the summary and ledger stay for other models). */
  provider?: ProviderCompaction;
  /** What the summariser's requests used (all chunks together), when it was called. */
  summariserUsage?: Usage;
  // failed:
  error?: string;
  fallback?: string;
}
/** Built without an LLM from the folded span; carried forward across compactions. */
export interface Ledger {
  /**
   * Every folded user message: verbatim (line breaks too); one saved as a file by its pointer line; in an
   * overflow's lean ledger, one that does not fit by a pointer to its event (`pointer`: `text` is that
   * pointer, not the user's words). `truncated`: only in logs of older versions (the start of a long one).
   */
  userMessages: { seq: number; text: string; truncated?: boolean; pointer?: boolean }[];
  filesRead: string[];
  filesWritten: string[];
  /** Commands with their exit status, most recent last; `seq` is the latest run. */
  commands: { seq: number; command: string; status: string; count?: number; firstSeq?: number }[];
  errors: string[];
  /** Entries left out to keep the ledger within its budget (all still reachable with search_history). */
  omitted: { commands: number; errors: number; files: number; userMessages?: number };
  /**
   * Every path touched: how (letters: r read or named, w written, e edited,
   * l listed, g grepped), how many times, and the latest event; most recent last.
   */
  paths?: { path: string; how: string; count: number; seq: number }[];
  /** Each distinct error line with the first and last event it came from and how often it appeared. */
  errorLines?: { text: string; firstSeq: number; lastSeq: number; count: number }[];
  /** The token budget the ledger was held to. */
  budgetTokens?: number;
  /**
   * The agent's plan as of the fold: its latest update_plan call in the folded
   * span (or carried from an earlier ledger), so the plan is there after every
   * fold. `seq` is that tool_call's event.
   */
  plan?: { seq: number; steps: { step: string; status: 'pending' | 'in_progress' | 'done' }[]; explanation?: string };
  /** Project instructions that changed during the session (the latest note in the folded span), re-shown in full. */
  instructions?: { seq: number; text: string };
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

/**
 * Project instructions: AGENTS.md (CLAUDE.md where a folder has none) in the
 * working folder and its parents up to the repository root. `start`: read
 * when the session was created and part of the system prompt from then on (a
 * restart rebuilds the same prompt from this event, byte for byte). `changed`:
 * a file changed, appeared or went away; `text` reaches the model as a new
 * message at the end of the next request (the system prompt never changes).
 */
export interface InstructionsEvent extends EventBase {
  kind: 'instructions';
  phase: 'start' | 'changed';
  /** Each file, outermost folder first: path relative to the working folder, its size and a hash of its text. */
  files: { path: string; chars: number; sha256: string }[];
  /** start: the system prompt's section; changed: the note as the model reads it (wrapped in <skein-instructions>). */
  text: string;
  /** Set when the files were longer than the cap: what was left out, as the model is told. */
  notice?: string;
}
/** Changed instructions are wrapped in this tag, so models and tools can tell them from what the user typed. */
export const INSTRUCTIONS_NOTE_OPEN = '<skein-instructions>';
export const INSTRUCTIONS_NOTE_CLOSE = '</skein-instructions>';

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
  | InstructionsEvent
  | ApprovalRequestEvent
  | ApprovalDecisionEvent
  | McpEvent
  | ToolsChangedEvent
  | ToolsetEvent
  | ModeEvent;
export type EventKind = SkeinEvent['kind'];

/** An event before the log gives it its seq and ts. */
export type NewEvent = SkeinEvent extends infer E ? (E extends SkeinEvent ? Omit<E, 'seq' | 'ts'> : never) : never;

export interface SessionSnapshot extends SessionManagement {
  id: string;
  /** The agent's latest plan (update_plan), for a client that fetched only the tail of the log. */
  plan?: import('./plan.js').Plan;
  state: AgentState;
  model: string;
  gauge: Gauge;
  lastSeq: number;
  title: string;
  createdAt: string;
  lastActivity: string;
  /** The session's reasoning effort (`default`: the provider's). */
  effort?: ReasoningEffort;
  /** The session's approval mode (its last switch, else SKEIN_APPROVAL). */
  mode?: ApprovalMode;
  /** The efforts the session's model accepts as its provider said them (Models API capabilities); wins over GET /api/models' table entry. */
  efforts?: ReasoningEffort[];
  /** Several instances on one database: the session's agent runs on another instance (why, and which); what is posted here is forwarded there. */
  runsElsewhere?: string;
  /** No instance can run the session from here (its folder is out of this instance's reach): posts are refused with this reason. */
  readOnly?: string;
}

/** One message of the model view (GET /api/sessions/:id/view). */
export interface ViewMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  toolCalls?: { id: string; name: string; input: Record<string, unknown> }[];
  toolCallId?: string;
  /** On an assistant message: the provider's own answer, to send back as returned (see `Reasoning`). */
  reasoning?: Reasoning;
  /** On a summary message: the provider's own compaction, sent instead of the text to the model that wrote it. */
  compacted?: ProviderCompaction;
}

/**
 * A provider-side compaction, exactly as returned: Anthropic's signed
 * `compaction` block (with its readable summary), or the items OpenAI's
 * `/responses/compact` returned (the span's user messages and an encrypted
 * `compaction` item). Tied to the model that wrote it, like `Reasoning`.
 */
export interface ProviderCompaction {
  provider: 'anthropic' | 'openai';
  model: string;
  output: Record<string, unknown>[];
}

// ---- WebSocket frames ----

export type ClientFrame =
  | { type: 'user_message'; text: string }
  | { type: 'compact'; instructions?: string }
  | { type: 'cancel' }
  | ApprovalFrame;

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
/** WebSocket close code: the session was deleted (moved to the trash); do not reconnect. */
export const CLOSE_SESSION_DELETED = 4004;

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
    case 'approval': {
      const decision = parseApprovalDecision(frame);
      if (!decision.ok) return decision;
      const callId = checkText(frame.callId, 'callId');
      if (typeof callId !== 'string') return callId;
      return { ok: true, value: { type: 'approval', callId, ...decision.value } };
    }
    default:
      return {
        ok: false,
        error: `unknown frame type ${JSON.stringify(frame.type)}; expected user_message, compact, cancel or approval`,
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
  /** How the model thinks, as the provider's Models API says (wins over skein's model table). */
  thinking?: ThinkingCapabilities;
  /** A sentence for the timeline, when the change is news to the user. */
  message?: string;
}

/**
 * A reasoning model's thinking options: `adaptive` thinks when it wants and
 * can be turned off; `always` thinks on every request and refuses
 * `thinking: {type: "disabled"}` and a forced tool choice; `off`: no
 * adaptive thinking (requests carry no thinking option).
 */
export interface ThinkingCapabilities {
  mode: 'adaptive' | 'always' | 'off';
  efforts: ReasoningEffort[];
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

// ---- Session management (rename, archive, trash, fork) and workspaces ----

/**
 * Where a session works, recorded in its log's header when it starts:
 * `folder` is what was asked for (a SKEIN_WORKDIR root or a folder inside
 * one), `workDir` where its tools run (the worktree's copy of `folder` when it
 * has its own worktree). `branch` and `baseCommit` are absent outside git.
 */
export interface Workspace {
  folder: string;
  workDir: string;
  /** The repository's top folder (of the worktree, when the session has one). */
  repo?: string;
  /** The branch checked out when the session started (`skein/<id>` in its own worktree; absent on a detached HEAD). */
  branch?: string;
  /** HEAD when the session started: the Changes panel diffs against it. */
  baseCommit?: string;
  /** The session's own git worktree (under <data dir>/worktrees/<id>). */
  worktree?: string;
}

/** Fields a session snapshot gains from session management (all optional: older clients ignore them). */
export interface SessionManagement {
  /** Set by rename; absent: the title is the first user message. */
  customTitle?: string;
  archived?: boolean;
  workspace?: Workspace;
  /** The session this one was forked from, and the last event it copied. */
  forkOf?: { session: string; seq: number };
}

/** One file of GET /api/sessions/:id/changes. */
export interface ChangedFile {
  /** Relative to the repository's top folder. */
  path: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed' | 'untracked';
  /** Unified diff against the session's starting commit (cut when very long). */
  diff: string;
  truncated?: boolean;
}

export interface ChangesReport {
  git: boolean;
  workDir: string;
  branch?: string;
  baseCommit?: string;
  files: ChangedFile[];
}

/** A deleted session in <data dir>/trash (GET /api/trash), restorable until `expiresAt`. */
export interface TrashedSession {
  id: string;
  title: string;
  deletedAt: string;
  expiresAt: string;
  /** The session's worktree, when it had one and it was kept. */
  worktree?: string;
}

/**
 * Frames of the list-level socket /ws/sessions: the whole list (archived
 * included, marked) when it opens, then one `session` frame whenever a
 * session's state, title, activity or flags change, and `session_removed`
 * when one is deleted.
 */
export type SessionListFrame =
  | { type: 'sessions'; sessions: SessionSnapshot[] }
  | { type: 'session'; session: SessionSnapshot }
  | { type: 'session_removed'; id: string };

// ---- Approvals (SKEIN_APPROVAL) ----

/**
 * A session's approval mode (SKEIN_APPROVAL is the default of a session that
 * never switched): `never` runs every call, `on-write` asks before a call that
 * changes something, `always` asks before every call, `plan` is read-only
 * (writes, bash and MCP tools are refused with a reason). See shared/modes.ts.
 */
export const APPROVAL_MODES = ['never', 'on-write', 'always', 'plan'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** The user switched the session's approval mode (UI, REST, CLI, ACP; never the model). */
export interface ModeEvent extends EventBase {
  kind: 'mode';
  from: ApprovalMode;
  to: ApprovalMode;
}

/** What the user may answer: run it once, run it and every call the session rule covers, or not at all. */
export const APPROVAL_DECISIONS = ['approve', 'approve_session', 'deny'] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

/** What the user is shown before deciding: the command, the would-be diff, or the input. */
export interface ApprovalPreview {
  kind: 'command' | 'diff' | 'input';
  text: string;
}

/**
 * A session-scoped approval ("Approve for this session"): bash by its exact
 * command, a tool that acts on a file (write_file, edit_file, read_file) by
 * that file, any other tool (MCP tools too) by its exact input. A rule without
 * its scope (`{tool}` alone, as older versions logged) matches nothing.
 */
export interface ApprovalRule {
  tool: string;
  command?: string;
  /** The file, relative to the working folder, `/`-separated, links resolved. */
  path?: string;
  /** The exact input (compared whatever the order of its keys). */
  input?: Record<string, unknown>;
}

/** A tool call waits for the user's decision (the agent is in WaitingForApproval). */
export interface ApprovalRequestEvent extends EventBase {
  kind: 'approval_request';
  callId: string;
  name: string;
  input: Record<string, unknown>;
  preview: ApprovalPreview;
  /** The rule "Approve for this session" would record. */
  rule: ApprovalRule;
  /** Why approving for the session records no rule (a protected path): the next such call asks again. */
  alwaysAsks?: string;
}

/**
 * The decision on a tool call: by the user (button, REST, WebSocket), by a
 * session rule (no request was made), by a cancel, by a new message (its
 * text is the reason), or by the user switching the session's mode while the
 * call waited (`mode`: decided again under the new mode).
 */
export interface ApprovalDecisionEvent extends EventBase {
  kind: 'approval_decision';
  callId: string;
  name: string;
  decision: ApprovalDecision;
  by: 'user' | 'rule' | 'cancel' | 'message' | 'mode';
  /** Given with a deny; the model receives it in the tool result. */
  reason?: string;
  /** approve_session: the rule recorded; by rule: the rule that matched. */
  rule?: ApprovalRule;
}

/** WebSocket: the decision on a pending tool call (as POST /api/sessions/:id/approvals/:callId). */
export interface ApprovalFrame {
  type: 'approval';
  callId: string;
  decision: ApprovalDecision;
  reason?: string;
}

/** Validates `decision` and the optional `reason` of a REST body or a frame. Never throws. */
export function parseApprovalDecision(body: Record<string, unknown>): Parsed<{ decision: ApprovalDecision; reason?: string }> {
  const decision = body.decision;
  if (!(APPROVAL_DECISIONS as readonly unknown[]).includes(decision)) {
    return { ok: false, error: `"decision" must be one of ${APPROVAL_DECISIONS.join(', ')}` };
  }
  if (body.reason === undefined) return { ok: true, value: { decision: decision as ApprovalDecision } };
  const reason = checkText(body.reason, 'reason', true);
  if (typeof reason !== 'string') return reason;
  if (reason.trim() && decision !== 'deny') return { ok: false, error: '"reason" goes only with "deny"' };
  return { ok: true, value: { decision: decision as ApprovalDecision, ...(reason.trim() && { reason: reason.trim() }) } };
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

/**
 * What every request carries before the conversation changed size: in a small
 * window (the full system prompt and tools would take over a quarter of it)
 * skein sends a short system prompt and only its core tools (`lean`); a window
 * large enough again (a model switch) brings the full set back. Logged when
 * the first request of the new shape goes out.
 */
export interface ToolsetEvent extends EventBase {
  kind: 'toolset';
  lean: boolean;
  /** The tools every request carries from here on. */
  tools: string[];
  /** Estimated tokens of the system prompt and the tools, as now sent. */
  tokens: number;
  /** The window that decided it. */
  contextWindow: number;
  /** A sentence for the timeline. */
  message: string;
}
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

/** What one server of a project's .mcp.json would run, as written (nothing expanded). */
export interface ProjectServerPreview {
  name: string;
  transport: 'stdio' | 'http';
  command?: string;
  args?: string[];
  /** Variables as written in the file (a `${VAR}` stays that text: project files are never expanded). */
  env?: Record<string, string>;
  url?: string;
  headerNames?: string[];
  /** The user's own SKEIN_MCP_CONFIG has a server of this name: that one runs instead. */
  shadowed?: boolean;
}

/** One row of GET /api/trust: a project file that makes skein run something, and the user's decision on it. */
export interface ProjectFileTrust {
  /** The working folder (its real path) and the file's name in it. */
  folder: string;
  file: string;
  path: string;
  /** sha256 of the content shown: POST /api/trust must name it. */
  sha256: string;
  /** untrusted: never decided; changed: decided on other content; trusted / ignored: decided on this content. */
  status: 'untrusted' | 'changed' | 'trusted' | 'ignored';
  content: string;
  servers: ProjectServerPreview[];
  /** Why the file cannot be trusted as it is (it does not parse). */
  error?: string;
  /** Unified diff from the content last trusted to this one, when they differ. */
  diff?: string;
}

/** A note skein adds to the conversation (a status note, changed instructions, changed tools): never the user speaking. */
export function isSkeinNote(content: string): boolean {
  return content.startsWith(STATUS_NOTE_OPEN) || content.startsWith(INSTRUCTIONS_NOTE_OPEN) || content.startsWith(TOOLS_NOTE_OPEN);
}
