// Every event of a session's log, as a zod schema: the source of the events'
// TypeScript types (../protocol.ts), of their validation, and of the OpenAPI
// document's `SkeinEvent` component. The names are a contract: fields may be
// added, existing ones never change meaning (docs/wire-protocol.md).
//
// To add an event kind: define `export const FooEventSchema = event('foo', { ...fields })`
// below, and add it to EVENT_SCHEMAS at the end of this file. That is all: the
// `SkeinEvent` union, `EventOf<'foo'>`, `NewEvent` and the document follow.
import { z } from 'zod';
import { AGENT_STATES, APPROVAL_DECISIONS, APPROVAL_MODES, COMPACTION_TRIGGERS } from './constants.js';
import {
  ApprovalPreviewSchema,
  ApprovalRuleSchema,
  GaugeSchema,
  ImageRefSchema,
  JsonObject,
  LedgerSchema,
  ProviderCompactionSchema,
  ReasoningEffortSchema,
  ReasoningSchema,
  SavedMessageSchema,
  ThinkingCapabilitiesSchema,
  UsageSchema,
  WindowSourceSchema,
} from './parts.js';

export const AgentStateSchema = z.enum(AGENT_STATES);

/** An event of kind `kind`: `seq` (gap-free from 1 per session) and `ts` (ISO 8601) besides its own fields. */
function event<K extends string, S extends z.ZodRawShape>(kind: K, shape: S, description: string) {
  const id = `${kind.replace(/(^|_)(\w)/g, (_m, _u, c: string) => c.toUpperCase())}Event`;
  return z.object({ seq: z.number().int(), ts: z.string(), kind: z.literal(kind), ...shape }).meta({ id, description });
}

export const UserEventSchema = event(
  'user',
  {
    text: z.string(),
    /** Posted to another instance and forwarded through the database's inbox (its row id; several instances on one database). */
    inbox: z.number().optional(),
    /** Too large for the window: kept whole in this file of the session's, the model sees its head and where it is. */
    saved: SavedMessageSchema.optional(),
    /** Images sent with it, each kept as a file of the session's (the log holds no image bytes). */
    images: z.array(ImageRefSchema).optional(),
  },
  'A message from the user.',
);

export const AgentEventSchema = event(
  'agent',
  {
    text: z.string(),
    model: z.string(),
    endOfTurn: z.boolean(),
    usage: UsageSchema.optional(),
    /** What a reasoning model returned beside its text, exactly as returned. */
    reasoning: ReasoningSchema.optional(),
  },
  "The model's answer (its `usage` event comes first).",
);

export const ToolCallEventSchema = event('tool_call', { callId: z.string(), name: z.string(), input: JsonObject }, 'A tool call the model made.');

export const ToolResultEventSchema = event(
  'tool_result',
  { callId: z.string(), name: z.string(), output: z.string(), isError: z.boolean(), durationMs: z.number() },
  "A tool call's result.",
);

export const StateEventSchema = event('state', { from: AgentStateSchema, to: AgentStateSchema, reason: z.string() }, "The agent's state changed.");

export const UsageEventSchema = event('usage', { gauge: GaugeSchema }, "The gauge after a model's response.");

export const CompactionEventSchema = event(
  'compaction',
  {
    phase: z.enum(['queued', 'started', 'finished', 'failed']),
    trigger: z.enum(COMPACTION_TRIGGERS),
    /** Focus text given with /compact, if any. */
    instructions: z.string().optional(),
    // finished:
    strategy: z.string().optional(),
    tokensBefore: z.number().optional(),
    tokensAfter: z.number().optional(),
    messagesBefore: z.number().optional(),
    messagesAfter: z.number().optional(),
    summary: z.string().optional(),
    coversSeq: z.tuple([z.number(), z.number()]).optional(),
    /** Events inside coversSeq that stay verbatim, after the summary: the message being answered and the turn's latest step. */
    keptSeqs: z.array(z.number()).optional(),
    durationMs: z.number().optional(),
    /** Every strategy that ran, in order (e.g. clear_tool_results, summarize). */
    strategies: z.array(z.string()).optional(),
    /** Tool results with seq <= this are shown to the model as a short placeholder. */
    clearedThroughSeq: z.number().optional(),
    /** Those placeholders also list the identifiers (paths, symbols, error codes) each output held. */
    clearedIndex: z.boolean().optional(),
    /** The deterministic record of the folded span, attached beside the summary. */
    ledger: LedgerSchema.optional(),
    /** compact_history: how many recent groups the agent asked to keep. */
    preserveRecentGroups: z.number().optional(),
    /** provider_compact: the provider's own compaction of the span, as returned (the summary and ledger stay for other models). */
    provider: ProviderCompactionSchema.optional(),
    /** What the summariser's requests used (all chunks together), when it was called. */
    summariserUsage: UsageSchema.optional(),
    // failed:
    error: z.string().optional(),
    fallback: z.string().optional(),
  },
  'A compaction was queued, started, finished or failed.',
);

export const ErrorEventSchema = event('error', { message: z.string(), code: z.string().optional() }, 'A turn or an operation failed.');

export const ModelEventSchema = event(
  'model',
  {
    from: z.string(),
    to: z.string(),
    /** The new model's context window, in tokens. */
    contextWindow: z.number(),
    /** The session's reasoning effort from here on (`from` = `to` when only it changed). */
    effort: ReasoningEffortSchema.optional(),
  },
  'The session moved to another model (or effort), applied at a safe point.',
);

export const StatusEventSchema = event(
  'status',
  {
    /** The note exactly as the model reads it (wrapped in <skein-status>). */
    text: z.string(),
    /** Why now: `calls` (every 5 LLM calls) or `50%`, `70%`, `85%`. */
    reason: z.string(),
    contextTokens: z.number(),
    contextWindow: z.number(),
    costUsd: z.number(),
    /** LLM calls of the session so far. */
    calls: z.number(),
  },
  'A status note to the agent (SKEIN_STATUS_UPDATES=on).',
);

export const LimitsEventSchema = event(
  'limits',
  {
    model: z.string(),
    contextWindow: z.number(),
    /** The output budget requests may ask for. */
    maxOutputTokens: z.number(),
    source: WindowSourceSchema,
    /** How it was learned, e.g. "GET /props (n_ctx)", or why asking failed. */
    via: z.string(),
    /** What the provider's model-info endpoint said, when it answered. */
    reported: z.object({ contextWindow: z.number().optional(), maxOutputTokens: z.number().optional() }).optional(),
    /** The server silently dropped the start of the prompt. */
    truncated: z.boolean().optional(),
    /** The server drops the start of a prompt that does not fit instead of refusing it (Ollama). */
    truncates: z.boolean().optional(),
    /** How the model thinks, as the provider's Models API says (wins over skein's model table). */
    thinking: ThinkingCapabilitiesSchema.optional(),
    /** The provider's model-info endpoint could not be reached (yet): these are the fallback, and skein asks again at a later request. */
    unanswered: z.boolean().optional(),
    /** A sentence for the timeline, when the change is news to the user. */
    message: z.string().optional(),
  },
  "The limits skein uses for the session's model, and where they come from.",
);

export const InstructionsEventSchema = event(
  'instructions',
  {
    phase: z.enum(['start', 'changed']),
    /** Each file, outermost folder first: path relative to the working folder, its size and a hash of its text. */
    files: z.array(z.object({ path: z.string(), chars: z.number(), sha256: z.string() })),
    /** start: the system prompt's section; changed: the note as the model reads it (wrapped in <skein-instructions>). */
    text: z.string(),
    /** Set when the files were longer than the cap: what was left out, as the model is told. */
    notice: z.string().optional(),
    /** Files that are there but were not read (a symbolic link leaving the repository), and why: shown to the user, never to the model. */
    skipped: z.array(z.object({ path: z.string(), reason: z.string() })).optional(),
  },
  'Project instructions (AGENTS.md, CLAUDE.md) read at the start or changed.',
);

export const ApprovalRequestEventSchema = event(
  'approval_request',
  {
    callId: z.string(),
    name: z.string(),
    input: JsonObject,
    preview: ApprovalPreviewSchema,
    /** The rule "Approve for this session" would record. */
    rule: ApprovalRuleSchema,
    /** Why approving for the session records no rule (a protected path): the next such call asks again. */
    alwaysAsks: z.string().optional(),
  },
  "A tool call waits for the user's decision.",
);

export const ApprovalDecisionEventSchema = event(
  'approval_decision',
  {
    callId: z.string(),
    name: z.string(),
    decision: z.enum(APPROVAL_DECISIONS),
    by: z.enum(['user', 'rule', 'cancel', 'message', 'mode']),
    /** Given with a deny; the model receives it in the tool result. */
    reason: z.string().optional(),
    /** approve_session: the rule recorded; by rule: the rule that matched. */
    rule: ApprovalRuleSchema.optional(),
  },
  'The decision on a tool call: by the user, a session rule, a cancel, a new message, or the user switching the mode while it waited (`mode`: decided again under the new mode).',
);

/** An MCP server's state: `failed` servers are started again after a growing pause; `stopped` on shutdown. */
export const McpServerStateSchema = z.enum(['starting', 'ready', 'failed', 'stopped']);

export const McpEventSchema = event(
  'mcp',
  {
    server: z.string(),
    state: McpServerStateSchema,
    message: z.string(),
    /** When failed: how long until the next attempt. */
    retryInMs: z.number().optional(),
  },
  'An MCP server started, became ready, failed or changed its tools.',
);

export const ToolsChangedEventSchema = event(
  'tools_changed',
  {
    /** The note exactly as the model reads it (wrapped in <skein-tools>). */
    text: z.string(),
    added: z.array(z.string()),
    removed: z.array(z.string()),
  },
  'Tools that appeared or vanished after the session started.',
);

export const ToolsetEventSchema = event(
  'toolset',
  {
    lean: z.boolean(),
    /** The tools every request carries from here on. */
    tools: z.array(z.string()),
    /** Estimated tokens of the system prompt and the tools, as now sent. */
    tokens: z.number(),
    /** The window that decided it. */
    contextWindow: z.number(),
    /** A sentence for the timeline. */
    message: z.string(),
  },
  'Requests now carry the lean system prompt and core tools of a small window (or the full set again).',
);

export const ModeEventSchema = event(
  'mode',
  { from: z.enum(APPROVAL_MODES), to: z.enum(APPROVAL_MODES) },
  "The user switched the session's approval mode (UI, REST, CLI, ACP; never the model).",
);

export const AnswerCutEventSchema = event(
  'answer_cut',
  {
    /** `context`: prompt and answer filled the context window; `max_tokens`: the answer reached the output budget it asked for. */
    reason: z.enum(['context', 'max_tokens']),
    /** The prompt tokens of the cut request (input + cacheRead + cacheWrite) and the answer's output tokens, as the provider reported them. */
    input: z.number(),
    output: z.number(),
    /** The output budget the request asked for (max_tokens). */
    maxTokens: z.number(),
    /** The context window skein uses from here on (learned from the cut when it was smaller than skein believed). */
    contextWindow: z.number(),
    /** The note asking the model to go on from the cut, exactly as the model reads it (wrapped in <skein-cut>); absent when skein stops asking. */
    text: z.string().optional(),
    /** A sentence for the timeline. */
    message: z.string(),
    /** The same note sent again, no new cut: a compaction folded the first one before the model answered it (the timeline shows nothing). */
    again: z.boolean().optional(),
  },
  'An answer stopped before its end: the context window was full, or it reached its max_tokens limit (it stays in the log and the view).',
);

export const WorktreeEventSchema = event(
  'worktree',
  {
    action: z.enum(['commit', 'merge', 'apply', 'discard', 'push']),
    /** Done, or stopped with nothing lost (a merge with conflicts, aborted). */
    outcome: z.enum(['done', 'stopped']),
    /** A sentence for the timeline: what was done. */
    message: z.string(),
    /** The commit made (commit, merge) or pushed (push). */
    commit: z.string().optional(),
    /** The files touched, or the conflicting ones. */
    files: z.array(z.string()).optional(),
  },
  "The user acted on the session's own worktree from the Changes panel (never the model: it has no tool for this).",
);

/** A child's call waiting for approval (or decided), as its parent's timeline shows it. */
const SubagentApprovalSchema = z.object({
  session: z.string(),
  callId: z.string(),
  name: z.string(),
  input: JsonObject.optional(),
  preview: ApprovalPreviewSchema.optional(),
  rule: ApprovalRuleSchema.optional(),
  alwaysAsks: z.string().optional(),
  decision: z.enum(APPROVAL_DECISIONS).optional(),
  by: z.enum(['user', 'rule', 'cancel', 'message', 'mode']).optional(),
  reason: z.string().optional(),
});

export const SubagentEventSchema = event(
  'subagent',
  {
    /** The parent's `task` tool call this child answers. */
    callId: z.string(),
    /** The child session's id (open it as any session). */
    child: z.string(),
    /** The agent it runs as (`general`, `explore`, or a defined one). */
    agent: z.string(),
    /**
     * started: the child was created; approval: it waits for the user's decision on a tool call (answer it here, with the
     * parent's approval route or frame and `approval.callId`, or in the child's own timeline); approval_decision: that
     * call was decided (from either view, by a rule, a cancel or a mode switch); finished: its turn ended.
     */
    phase: z.enum(['started', 'approval', 'approval_decision', 'finished']),
    /** finished: how its turn ended. */
    outcome: z.enum(['answered', 'error', 'cancelled', 'interrupted']).optional(),
    /** approval, approval_decision: the tool that waits (or waited). */
    tool: z.string().optional(),
    /**
     * approval: the child's request as its own `approval_request` has it, and `session`: the session whose call waits
     * (this child, or one of its own children); approval_decision: `session`, `callId`, `name` and the decision.
     */
    approval: SubagentApprovalSchema.optional(),
    /** finished: what the child's model calls cost and used (also counted in the parent's gauge totals). */
    costUsd: z.number().optional(),
    tokens: z.number().optional(),
    /** A sentence for the timeline. */
    message: z.string(),
  },
  "A child session started by the `task` tool: started, waiting for an approval (answerable from the parent), that approval decided, finished (the parent's timeline; the child's own log has its work).",
);

/** Every event kind. A new kind is one more entry here (see the top of this file). */
export const EVENT_SCHEMAS = [
  UserEventSchema,
  AgentEventSchema,
  ToolCallEventSchema,
  ToolResultEventSchema,
  StateEventSchema,
  UsageEventSchema,
  CompactionEventSchema,
  ErrorEventSchema,
  ModelEventSchema,
  StatusEventSchema,
  LimitsEventSchema,
  InstructionsEventSchema,
  ApprovalRequestEventSchema,
  ApprovalDecisionEventSchema,
  McpEventSchema,
  ToolsChangedEventSchema,
  ToolsetEventSchema,
  ModeEventSchema,
  AnswerCutEventSchema,
  WorktreeEventSchema,
  SubagentEventSchema,
] as const;

export const SkeinEventSchema = z.discriminatedUnion('kind', EVENT_SCHEMAS).meta({ id: 'SkeinEvent', description: 'One event of a session log (clients skip kinds they do not know).' });

export type SkeinEvent = z.infer<typeof SkeinEventSchema>;
export type EventKind = SkeinEvent['kind'];
/** The event of one kind. */
export type EventOf<K extends EventKind> = Extract<SkeinEvent, { kind: K }>;
