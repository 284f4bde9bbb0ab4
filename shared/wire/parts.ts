// Pieces several events and REST bodies share: usage, the gauge, a
// reasoning model's answer, the compaction ledger, approval previews and
// rules, workspaces. Each is a zod schema; its TypeScript type is z.infer of
// it (exported from ../protocol.ts). `.meta({ id })` makes it a named
// component of the OpenAPI document.
import { z } from 'zod';
import { PLAN_STATUSES, type Plan } from '../plan.js';
import { IMAGE_MEDIA_TYPES, REASONING_EFFORTS, WINDOW_SOURCES } from './constants.js';
import { imageSizeError, isBase64Text } from './image-data.js';

/** Free-form JSON object (tool inputs, a provider's own blocks). */
export const JsonObject = z.record(z.string(), z.unknown());

export const ReasoningEffortSchema = z.enum(REASONING_EFFORTS);
export const WindowSourceSchema = z.enum(WINDOW_SOURCES);

/** One LLM response's token usage, normalised across providers. */
export const UsageSchema = z
  .object({
    /** Uncached input tokens. */
    input: z.number(),
    cacheRead: z.number(),
    cacheWrite: z.number(),
    output: z.number(),
    costUsd: z.number(),
    /** Of `output`: the tokens the model spent thinking (billed as output), when the provider says. */
    reasoning: z.number().optional(),
  })
  .meta({ id: 'Usage', description: "One LLM response's token usage, normalised across providers." });

export const GaugeSchema = z
  .object({
    /** input + cacheRead + cacheWrite of the last request. */
    contextTokens: z.number(),
    contextWindow: z.number(),
    ratio: z.number(),
    thresholdRatio: z.number(),
    model: z.string(),
    totalCostUsd: z.number(),
    /** Tokens of every request so far (input, cache and output), for the session list; absent in logs older than it. */
    totalTokens: z.number().optional(),
    /** The three segments of contextTokens, for the gauge's bar. */
    input: z.number().optional(),
    cacheRead: z.number().optional(),
    cacheWrite: z.number().optional(),
    /** True when contextTokens is skein's estimate (after a compaction), not a provider's report. */
    estimated: z.boolean().optional(),
    /** Where contextWindow comes from (see the `limits` event). */
    windowSource: WindowSourceSchema.optional(),
    /** True while contextWindow is a guess: a model not in skein's table whose server has not said its window (yet). */
    windowGuess: z.boolean().optional(),
    /** Tokens kept free for the answer: skein compacts before a request whose estimate (with its margin) would leave less. */
    reserve: z.number().optional(),
  })
  .meta({ id: 'Gauge', description: 'How full the context window is, and what the session cost.' });

/**
 * A reasoning model's answer as its provider returned it, kept so that it can
 * be sent back exactly (Anthropic checks thinking signatures against their
 * prefix, OpenAI needs its encrypted reasoning items, Gemini its thought
 * signatures). Tied to the model that produced it: never sent to another.
 */
export const ReasoningSchema = z
  .object({
    provider: z.enum(['anthropic', 'openai', 'gemini']),
    /** The provider's model name that produced it. */
    model: z.string(),
    /**
     * The whole answer in the provider's own shape, in order: Anthropic content
     * blocks (thinking with signature, redacted_thinking, text, tool_use);
     * OpenAI Responses output items (reasoning with encrypted_content,
     * message, function_call); Gemini parts (thought summaries, thoughtSignature).
     */
    output: z.array(JsonObject),
    /** The readable thinking: Anthropic's thinking text, OpenAI's summary, Gemini's thought summaries. */
    text: z.string().optional(),
    /** Some or all of the thinking came back encrypted (Anthropic redacted_thinking). */
    redacted: z.boolean().optional(),
    /** A fingerprint of the request that produced it (system, tools, messages): a later request whose prefix differs drops this thinking. */
    prefix: z.string().optional(),
  })
  .meta({ id: 'Reasoning', description: "A reasoning model's answer exactly as its provider returned it." });

/**
 * A provider-side compaction, exactly as returned: Anthropic's signed
 * `compaction` block (with its readable summary), or the items OpenAI's
 * `/responses/compact` returned. Tied to the model that wrote it, like `Reasoning`.
 */
export const ProviderCompactionSchema = z
  .object({ provider: z.enum(['anthropic', 'openai']), model: z.string(), output: z.array(JsonObject) })
  .meta({ id: 'ProviderCompaction', description: "A provider's own compaction of a span, exactly as returned." });

/** The agent's plan (update_plan); shared/plan.ts validates the tool's input with its own messages. */
export const PlanSchema = z
  .object({ steps: z.array(z.object({ step: z.string(), status: z.enum(PLAN_STATUSES) })), explanation: z.string().optional() })
  .meta({ id: 'Plan' });

/** Too large for the window: kept whole in this file of the session's, the model sees its head and where it is. */
export const SavedMessageSchema = z.object({
  file: z.string(),
  chars: z.number(),
  tokens: z.number(),
  /** Characters of its start the model sees. */
  headChars: z.number(),
});

const IMAGE_TYPES = `"mediaType" must be one of ${IMAGE_MEDIA_TYPES.join(', ')}`;

/** An image as a client sends it with a message: its type and its bytes in base64 (no `data:` prefix). */
export const ImageInputSchema = z
  .object({
    mediaType: z.enum(IMAGE_MEDIA_TYPES, { error: IMAGE_TYPES }),
    data: z
      .string({ error: '"data" must be the image\'s bytes in base64' })
      .min(1, { error: '"data" must be the image\'s bytes in base64' })
      .refine(isBase64Text, { error: '"data" must be the image\'s bytes in base64 (no "data:" prefix)' })
      .refine((d) => imageSizeError(d) === undefined, { error: (issue) => imageSizeError(issue.input as string) }),
  })
  .meta({ id: 'ImageInput', description: 'An image sent with a user message (PNG, JPEG, GIF or WebP), base64.' });

/**
 * An image of a user message as the log keeps it: the bytes are a file the session owns
 * (`file`, read with GET /api/sessions/:id/images/:name), not inline, so the log stays small.
 */
export const ImageRefSchema = z
  .object({
    /** The file holding the image's bytes; its base name is the `:name` of GET /api/sessions/:id/images/:name. */
    file: z.string(),
    /** As the bytes say (a wrong type given by the client is corrected). */
    mediaType: z.enum(IMAGE_MEDIA_TYPES),
    bytes: z.number().int(),
    width: z.number().int(),
    height: z.number().int(),
  })
  .meta({ id: 'ImageRef', description: "An image of a user message, kept as a file of the session's." });

/** Built without an LLM from the folded span; carried forward across compactions. */
export const LedgerSchema = z
  .object({
    /**
     * Every folded user message: verbatim (line breaks too); one saved as a file by its pointer line; in an
     * overflow's lean ledger, one that does not fit by a pointer to its event (`pointer`: `text` is that
     * pointer, not the user's words). `truncated`: only in logs of older versions (the start of a long one).
     */
    userMessages: z.array(z.object({ seq: z.number(), text: z.string(), truncated: z.boolean().optional(), pointer: z.boolean().optional() })),
    filesRead: z.array(z.string()),
    filesWritten: z.array(z.string()),
    /** Commands with their exit status, most recent last; `seq` is the latest run. */
    commands: z.array(z.object({ seq: z.number(), command: z.string(), status: z.string(), count: z.number().optional(), firstSeq: z.number().optional() })),
    errors: z.array(z.string()),
    /** Entries left out to keep the ledger within its budget (all still reachable with search_history). */
    omitted: z.object({ commands: z.number(), errors: z.number(), files: z.number(), userMessages: z.number().optional() }),
    /** Every path touched: how (r read, w written, e edited, l listed, g grepped), how many times, and the latest event; most recent last. */
    paths: z.array(z.object({ path: z.string(), how: z.string(), count: z.number(), seq: z.number() })).optional(),
    /** Each distinct error line with the first and last event it came from and how often it appeared. */
    errorLines: z.array(z.object({ text: z.string(), firstSeq: z.number(), lastSeq: z.number(), count: z.number() })).optional(),
    /**
     * Identifiers (paths, symbols, error codes) the folded messages named, newest first, held to a share of the
     * budget: a later step that names one needs no re-read.
     */
    identifiers: z.array(z.string()).optional(),
    /** The token budget the ledger was held to. */
    budgetTokens: z.number().optional(),
    /** The agent's plan as of the fold (its latest update_plan call); `seq` is that tool_call's event. */
    plan: z.object({ seq: z.number(), steps: PlanSchema.shape.steps, explanation: z.string().optional() }).optional(),
    /** Project instructions that changed during the session (the latest note in the folded span), re-shown in full. */
    instructions: z.object({ seq: z.number(), text: z.string() }).optional(),
  })
  .meta({ id: 'Ledger', description: 'The deterministic record of a folded span, beside its summary.' });

/**
 * A reasoning model's thinking options: `adaptive` thinks when it wants and
 * can be turned off; `always` thinks on every request and refuses
 * `thinking: {type: "disabled"}` and a forced tool choice; `off`: no adaptive thinking.
 */
export const ThinkingCapabilitiesSchema = z.object({ mode: z.enum(['adaptive', 'always', 'off']), efforts: z.array(ReasoningEffortSchema) });

/** What the user is shown before deciding: the command, the would-be diff, or the input. */
export const ApprovalPreviewSchema = z.object({ kind: z.enum(['command', 'diff', 'input']), text: z.string() });

/**
 * A session-scoped approval ("Approve for this session"): bash by its exact
 * command, a tool that acts on a file by that file, any other tool by its
 * exact input. A rule without its scope (`{tool}` alone) matches nothing.
 */
export const ApprovalRuleSchema = z
  .object({
    tool: z.string(),
    command: z.string().optional(),
    /** The file, relative to the working folder, `/`-separated, links resolved. */
    path: z.string().optional(),
    /** The exact input (compared whatever the order of its keys). */
    input: JsonObject.optional(),
  })
  .meta({ id: 'ApprovalRule' });

/**
 * Where a session works, recorded in its log's header: `folder` is what was
 * asked for, `workDir` where its tools run (the worktree's copy of `folder`
 * when it has its own worktree). `branch` and `baseCommit` are absent outside git.
 */
export const WorkspaceSchema = z
  .object({
    folder: z.string(),
    workDir: z.string(),
    /** The repository's top folder (of the worktree, when the session has one). */
    repo: z.string().optional(),
    /** The branch checked out when the session started (`skein/<id>` in its own worktree; absent on a detached HEAD). */
    branch: z.string().optional(),
    /** HEAD when the session started: the Changes panel diffs against it. */
    baseCommit: z.string().optional(),
    /** The session's own git worktree (under <data dir>/worktrees/<id>). */
    worktree: z.string().optional(),
  })
  .meta({ id: 'Workspace' });

// The plan's wire schema and shared/plan.ts's type (kept zod-free for the UI) must agree both ways.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const planAgrees: Same<z.infer<typeof PlanSchema>, Plan> = true;
void planAgrees;
