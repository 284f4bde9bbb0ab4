// The objects the REST API and the sockets hand out: session snapshots, the
// model view, models, changes, the trash, MCP servers, project-file trust,
// rewind previews. zod schemas; their types are z.infer (../protocol.ts).
import { z } from 'zod';
import { APPROVAL_MODES } from './constants.js';
import { AgentStateSchema, McpServerStateSchema } from './events.js';
import { GaugeSchema, ImageRefSchema, JsonObject, PlanSchema, ProviderCompactionSchema, ReasoningEffortSchema, ReasoningSchema, WorkspaceSchema } from './parts.js';

/** Fields a session snapshot gains from session management (all optional: older clients ignore them). */
export const SessionManagementSchema = z.object({
  /** Set by rename; absent: the title is the first user message. */
  customTitle: z.string().optional(),
  archived: z.boolean().optional(),
  workspace: WorkspaceSchema.optional(),
  /**
   * The session this one was forked from, and the last event it copied;
   * `edit`: made by Edit and resend (its first own message replaces the one after `seq`).
   * The web UI's list nests a fork under it.
   */
  forkOf: z.object({ session: z.string(), seq: z.number(), edit: z.boolean().optional() }).optional(),
  /** A child session started by another session's `task` tool call (the UI nests it under its parent). */
  parent: z.object({ session: z.string(), callId: z.string(), agent: z.string() }).optional(),
  /** A child session: its latest step in a line (the tool it called and on what, or its answer), for the parent's task card. */
  step: z.string().optional(),
  /** A parent: how many children its `task` calls started, and what the finished ones cost and used (not in its own gauge: a client adds them to show the totals). */
  subtasks: z.object({ count: z.number().int(), costUsd: z.number(), tokens: z.number() }).optional(),
});

export const SessionSnapshotSchema = SessionManagementSchema.extend({
  id: z.string(),
  /** The agent's latest plan (update_plan), for a client that fetched only the tail of the log. */
  plan: PlanSchema.optional(),
  state: AgentStateSchema,
  model: z.string(),
  gauge: GaugeSchema,
  lastSeq: z.number().int(),
  title: z.string(),
  createdAt: z.string(),
  lastActivity: z.string(),
  /** The session's reasoning effort (`default`: the provider's). */
  effort: ReasoningEffortSchema.optional(),
  /** The session's approval mode (its last switch, else SKEIN_APPROVAL). */
  mode: z.enum(APPROVAL_MODES).optional(),
  /** The efforts the session's model accepts as its provider said them; wins over GET /api/models' table entry. */
  efforts: z.array(ReasoningEffortSchema).optional(),
  /** Several instances on one database: the session's agent runs on another instance (why, and which). */
  runsElsewhere: z.string().optional(),
  /** No instance can run the session from here: posts are refused with this reason. */
  readOnly: z.string().optional(),
}).meta({ id: 'SessionSnapshot', description: 'A session as GET /api/sessions/:id, the hello frame and the session list show it.' });

/** A row of GET /api/sessions?q=: where the words were found. */
export const SearchMatchSchema = z
  .object({
    /** The seq of a user message that holds the words (absent: only the title matched). */
    seq: z.number().int().optional(),
    /** About 180 characters of that message around the first word found, on one line, "…" where cut (the first 20 results). */
    snippet: z.string().optional(),
  })
  .meta({ id: 'SearchMatch', description: 'Where a search found its words in the session.' });

export const ListedSessionSchema = SessionSnapshotSchema.extend({
  /** With ?q= only. */
  match: SearchMatchSchema.optional(),
}).meta({ id: 'ListedSession', description: 'A row of GET /api/sessions: the snapshot, and with ?q= where the words were found.' });

/** One message of the model view (GET /api/sessions/:id/view). */
export const ViewMessageSchema = z
  .object({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: z.string(),
    toolCalls: z.array(z.object({ id: z.string(), name: z.string(), input: JsonObject })).optional(),
    toolCallId: z.string().optional(),
    /** On a user message: its images (each provider sends their bytes its own way). */
    images: z.array(ImageRefSchema).optional(),
    /** On an assistant message: the provider's own answer, to send back as returned. */
    reasoning: ReasoningSchema.optional(),
    /** On a summary message: the provider's own compaction, sent instead of the text to the model that wrote it. */
    compacted: ProviderCompactionSchema.optional(),
  })
  .meta({ id: 'ViewMessage' });

/** One row of GET /api/models: a model usable with the configured keys. */
export const ModelEntrySchema = z
  .object({
    /** What to send as `model` (POST /api/sessions, POST /api/sessions/:id/model). */
    id: z.string(),
    provider: z.enum(['predictable', 'replay', 'anthropic', 'openai', 'gemini']),
    contextWindow: z.number(),
    maxOutputTokens: z.number(),
    /** USD per million tokens. */
    prices: z.object({ input: z.number(), output: z.number(), cacheWrite: z.number(), cacheRead: z.number() }),
    /** Not in skein's model table (listed by an OpenAI-compatible server): a conservative window, no prices. */
    unknown: z.boolean().optional(),
    /** The efforts this model accepts (besides `default`); absent: it does not reason or skein does not know. */
    efforts: z.array(ReasoningEffortSchema).optional(),
  })
  .meta({ id: 'ModelEntry' });

/** GET /api/settings: what every session of the server shares; a client asked for another value is refused, not ignored. */
export const ServerSettingsSchema = z
  .object({
    sandbox: z.enum(['off', 'workspace']),
    sandboxNetwork: z.boolean(),
    sandboxRead: z.array(z.string()),
    /** SKEIN_WORKTREE: a new session in a git folder gets its own worktree unless it asks otherwise. */
    worktreeDefault: z.boolean().optional(),
  })
  .meta({ id: 'ServerSettings' });

/** One file of GET /api/sessions/:id/changes. */
export const ChangedFileSchema = z.object({
  /** Relative to the repository's top folder. */
  path: z.string(),
  status: z.enum(['added', 'modified', 'deleted', 'renamed', 'untracked']),
  /** Unified diff against the session's starting commit (cut when very long). */
  diff: z.string(),
  truncated: z.boolean().optional(),
});

export const ChangesReportSchema = z
  .object({
    git: z.boolean(),
    workDir: z.string(),
    branch: z.string().optional(),
    baseCommit: z.string().optional(),
    files: z.array(ChangedFileSchema),
    /** A folder shared with other sessions: only the files this session's tools changed are listed. */
    sessionOnly: z.boolean().optional(),
    /** The session has a worktree of its own: the actions below apply (POST /api/sessions/:id/worktree/...). */
    worktree: z
      .object({
        /** The main checkout's branch, which Merge merges into (absent: a detached HEAD there). */
        baseBranch: z.string().optional(),
        /** Commits on the session's branch since it started. */
        commits: z.number(),
        /** Files with uncommitted changes in the worktree (untracked ones included). */
        uncommitted: z.number(),
        /** The remote Push pushes to (absent: no remote, no Push). */
        remote: z.string().optional(),
      })
      .optional(),
  })
  .meta({ id: 'ChangesReport' });

/** What one of a worktree session's actions did (POST /api/sessions/:id/worktree/<action>). */
export const WorktreeActionResultSchema = z
  .object({
    /** A sentence: what was done. */
    message: z.string(),
    /** The commit made (commit, merge) or pushed (push). */
    commit: z.string().optional(),
    /** The files it touched. */
    files: z.array(z.string()).optional(),
    /** apply: files left with conflict markers in the main checkout (both sides kept), to resolve there. */
    conflicts: z.array(z.string()).optional(),
  })
  .meta({ id: 'WorktreeActionResult' });

/** A deleted session in <data dir>/trash (GET /api/trash), restorable until `expiresAt`. */
export const TrashedSessionSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    deletedAt: z.string(),
    expiresAt: z.string(),
    /** The session's worktree, when it had one and it was kept. */
    worktree: z.string().optional(),
  })
  .meta({ id: 'TrashedSession' });

/** One tool of an MCP server as GET /api/mcp lists it. */
export const McpToolInfoSchema = z.object({
  /** The name the model calls: mcp__<server>__<tool>. */
  name: z.string(),
  description: z.string(),
  /** Why the tool is not offered to the model (e.g. a broken input schema). */
  skipped: z.string().optional(),
});

/** One row of GET /api/mcp. */
export const McpServerInfoSchema = z
  .object({
    name: z.string(),
    transport: z.enum(['stdio', 'http']),
    state: McpServerStateSchema,
    /** The last failure, while failed. */
    error: z.string().optional(),
    restarts: z.number(),
    /** When failed: ISO time of the next attempt. */
    nextAttemptAt: z.string().optional(),
    tools: z.array(McpToolInfoSchema),
  })
  .meta({ id: 'McpServerInfo' });

/** What one server of a project's .mcp.json would run, as written (nothing expanded). */
export const ProjectServerPreviewSchema = z.object({
  name: z.string(),
  transport: z.enum(['stdio', 'http']),
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  /** Variables as written in the file (a `${VAR}` stays that text: project files are never expanded). */
  env: z.record(z.string(), z.string()).optional(),
  url: z.string().optional(),
  headerNames: z.array(z.string()).optional(),
  /** The user's own SKEIN_MCP_CONFIG has a server of this name: that one runs instead. */
  shadowed: z.boolean().optional(),
});

/** What a project's agent file (`.skein/agents/NAME.md`) would define, as the user is asked about it. */
export const ProjectAgentPreviewSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    /** The built-in tools its child may use (absent: the parent's). */
    tools: z.array(z.string()).optional(),
    model: z.string().optional(),
    mode: z.enum(APPROVAL_MODES).optional(),
    /** How many levels of children its child may start. */
    depth: z.number().int(),
    /** The instructions added to the child's system prompt. */
    prompt: z.string().optional(),
  })
  .meta({ id: 'ProjectAgentPreview' });

/** One row of GET /api/trust: a project file that makes skein run something (.mcp.json, or an agent file `.skein/agents/NAME.md`), and the user's decision on it. */
export const ProjectFileTrustSchema = z
  .object({
    /** The working folder (its real path) and the file's name in it. */
    folder: z.string(),
    file: z.string(),
    path: z.string(),
    /** sha256 of the content shown: POST /api/trust must name it. */
    sha256: z.string(),
    /** untrusted: never decided; changed: decided on other content; trusted / ignored: decided on this content. */
    status: z.enum(['untrusted', 'changed', 'trusted', 'ignored']),
    content: z.string(),
    servers: z.array(ProjectServerPreviewSchema),
    /** An agent file: the agent it would define (absent when it does not parse). */
    agent: ProjectAgentPreviewSchema.optional(),
    /** Why the file cannot be trusted as it is (it does not parse). */
    error: z.string().optional(),
    /** Unified diff from the content last trusted to this one, when they differ. */
    diff: z.string().optional(),
  })
  .meta({ id: 'ProjectFileTrust' });

/** What rewinding the files to an event would change (GET /api/sessions/:id/rewind). */
export const RewindPreviewSchema = z
  .object({
    /** Each file a rewind changes: restored, deleted (created after the point) or recreated. */
    files: z.array(z.object({ path: z.string(), change: z.enum(['restore', 'delete', 'recreate']) })),
    diff: z.string(),
    notes: z.array(z.string()),
  })
  .meta({ id: 'RewindPreview' });

/**
 * A first start over logs the sessions index does not describe scans them
 * while the list is served: how many of them it has read so far (GET
 * /api/sessions and the list socket carry it until the scan is done).
 */
export const ScanProgressSchema = z.object({ done: z.number().int(), total: z.number().int() }).meta({ id: 'ScanProgress', description: 'How far a first start has scanned the logs the index does not describe.' });
