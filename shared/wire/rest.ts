// Every HTTP route of the server, once: its request (body, query) and its
// answers by status, as zod schemas. The routes in server/http validate what
// they receive with these (`ROUTES['POST /api/sessions'].body`), and
// openapi.ts turns this table into the OpenAPI 3.1 document served at
// GET /api/openapi.json. A test walks the express app and fails for a route
// missing here (test/integration/openapi.test.ts).
//
// To add a route: one entry `'METHOD /path/:param': { summary, body?, query?,
// responses: { status: reply } }` below; path parameters come from the path.
// Statuses not listed are answered with the default error body `{error}`.
import { z } from 'zod';
import { SkeinEventSchema } from './events.js';
import { ApprovalBodySchema, ApprovalDecisionSchema, ServerFrameSchema, SessionListFrameSchema } from './frames.js';
import {
  CompactBodySchema,
  CreateSessionBodySchema,
  DeleteQuerySchema,
  EventsQuerySchema,
  ChangesQuerySchema,
  ExportQuerySchema,
  ForkBodySchema,
  ListQuerySchema,
  MessageBodySchema,
  ModelBodySchema,
  PatchSessionBodySchema,
  RewindBodySchema,
  RewindQuerySchema,
  TrustBodySchema,
  WorktreeCommitBodySchema,
  WorktreeDiscardBodySchema,
} from './requests.js';
import {
  ChangesReportSchema,
  McpServerInfoSchema,
  ModelEntrySchema,
  ProjectFileTrustSchema,
  RewindPreviewSchema,
  ScanProgressSchema,
  ServerSettingsSchema,
  SessionSnapshotSchema,
  ListedSessionSchema,
  TrashedSessionSchema,
  ViewMessageSchema,
  WorktreeActionResultSchema,
} from './resources.js';
import { JsonObject, ReasoningEffortSchema } from './parts.js';
import {
  ProjectDecisionBodySchema,
  ProjectFolderBodySchema,
  ProjectRemoveQuerySchema,
  ProjectRequestBodySchema,
  ProjectRequestSchema,
  ProjectsListSchema,
  ProjectWaitQuerySchema,
} from './projects.js';
import { APPROVAL_MODES } from './constants.js';

/** Every refusal: a sentence, and for some a machine-readable code (`busy`, `dirty_worktree`) and the files in the way. */
export const ErrorBodySchema = z
  .object({ error: z.string(), code: z.string().optional(), files: z.array(z.string()).optional() })
  .meta({ id: 'Error', description: 'A refusal: `error` says why.' });

/** An answer: a description and its body by content type (a JSON answer is `json(...)`). */
export interface Reply {
  description: string;
  content?: Record<string, z.ZodType>;
}
export interface Route {
  summary: string;
  /** JSON body; `bodyRequired: false` when it may be absent (every field optional). */
  body?: z.ZodType;
  bodyRequired?: boolean;
  query?: z.ZodObject;
  responses: Record<number, Reply>;
  /** A grouping for the document (sessions, approvals, ...). */
  tag: string;
  /** Answered without the token. */
  open?: boolean;
  /** A WebSocket upgrade (server/http/ws-hub.ts), not an express route. */
  socket?: boolean;
}

const json = (schema: z.ZodType, description: string): Reply => ({ description, content: { 'application/json': schema } });
const typed = (type: string, description: string): Reply => ({ description, content: { [type]: z.string() } });
const refused = (description: string): Reply => json(ErrorBodySchema, description);
const accepted = z.object({ accepted: z.literal(true) });
const created = z.object({ id: z.string() });
const UNKNOWN_SESSION = refused('Unknown session.');
const BAD_REQUEST = refused('A bad body or query: `error` names the field.');

/** One of the Changes panel's actions on a session's own worktree: the user's, never the model's. */
function worktreeAction(summary: string, body?: z.ZodType): Route {
  return {
    tag: 'sessions',
    summary,
    ...(body && { body }),
    responses: {
      200: json(WorktreeActionResultSchema, 'Done (also a `worktree` event in the timeline).'),
      400: BAD_REQUEST,
      404: UNKNOWN_SESSION,
      409: refused('Refused, nothing changed: the agent is working or another action runs (`busy`), the session has no worktree, nothing to do, the main checkout has changes in the way or a merge of its own under way (`dirty_main`, with the files), the merge had conflicts (`merge_conflict`, with the files; aborted), git refused (`git_failed`, with its words; aborted), the push was cancelled (`cancelled`), or the session\'s folder is no longer a project (`project_removed`).'),
      504: refused('The push got no answer from the remote within SKEIN_GIT_NETWORK_TIMEOUT_MS and was stopped (`timeout`).'),
    },
  };
}

export const ROUTES = {
  'GET /healthz': { tag: 'server', open: true, summary: 'Alive (no token needed).', responses: { 200: json(z.object({ ok: z.literal(true) }), 'Alive.') } },
  'GET /api/openapi.json': { tag: 'server', summary: 'This document.', responses: { 200: json(z.looseObject({ openapi: z.string() }), 'The OpenAPI 3.1 document.') } },
  'GET /metrics': { tag: 'server', summary: 'Prometheus metrics of the server (always served; there is no setting for it).', responses: { 200: typed('text/plain', 'Prometheus text format.') } },

  'GET /api/sessions': {
    tag: 'sessions',
    summary: 'The sessions, newest first.',
    query: ListQuerySchema,
    responses: { 200: json(z.object({ sessions: z.array(ListedSessionSchema), scanning: ScanProgressSchema.optional() }), 'The sessions (while a first start scans logs: how far it got); with ?q=, where each matched.') },
  },
  'POST /api/sessions': {
    tag: 'sessions',
    summary: 'A new session.',
    body: CreateSessionBodySchema,
    bodyRequired: false,
    responses: { 201: json(created, 'Created.'), 400: BAD_REQUEST },
  },
  'GET /api/sessions/:id': { tag: 'sessions', summary: "A session's snapshot.", responses: { 200: json(SessionSnapshotSchema, 'The snapshot.'), 404: UNKNOWN_SESSION } },
  'PATCH /api/sessions/:id': {
    tag: 'sessions',
    summary: 'Rename (`""`: the first message again) or archive a session.',
    body: PatchSessionBodySchema,
    responses: { 200: json(SessionSnapshotSchema, 'The snapshot after the change.'), 400: BAD_REQUEST, 404: UNKNOWN_SESSION },
  },
  'DELETE /api/sessions/:id': {
    tag: 'sessions',
    summary: 'Move a session to the trash (its worktree kept or removed).',
    query: DeleteQuerySchema,
    responses: {
      200: json(z.object({ deleted: z.literal(true), trash: z.literal(true), worktreeRemoved: z.boolean() }), 'In the trash.'),
      400: BAD_REQUEST,
      404: UNKNOWN_SESSION,
      409: refused('`busy`: a turn, a compaction or a worktree action (a push: cancel it) runs; `dirty_worktree`: the worktree has uncommitted `files` (nothing deleted).'),
    },
  },
  'GET /api/sessions/:id/events': {
    tag: 'sessions',
    summary: 'A page of the log: after `since`, or the last `limit` before `before`.',
    query: EventsQuerySchema,
    responses: { 200: json(z.object({ events: z.array(SkeinEventSchema), more: z.boolean() }), '`more`: events exist beyond the page.'), 400: BAD_REQUEST, 404: UNKNOWN_SESSION },
  },
  'GET /api/sessions/:id/view': {
    tag: 'sessions',
    summary: 'What the next request would send the model.',
    responses: {
      200: json(
        z.object({
          messages: z.array(ViewMessageSchema),
          tokens: z.number(),
          /** skein's estimate of the request in the server's tokens (its count times the ratio learned from this server): what its output budget is sized against. */
          estimate: z.number().optional(),
        }),
        'The model view.',
      ),
      404: UNKNOWN_SESSION,
    },
  },
  'POST /api/sessions/:id/messages': {
    tag: 'turns',
    summary: 'A user message (`/compact [focus]` asks for a compaction).',
    body: MessageBodySchema,
    responses: { 202: json(accepted, 'Durable (or in the owner instance\'s inbox).'), 400: BAD_REQUEST, 404: UNKNOWN_SESSION, 409: refused("No instance can run the session, or its folder is no longer a project (`project_removed`): add it again.") },
  },
  'POST /api/sessions/:id/compact': {
    tag: 'turns',
    summary: 'Compact now, with an optional focus.',
    body: CompactBodySchema,
    bodyRequired: false,
    responses: { 202: json(accepted, 'Queued.'), 400: BAD_REQUEST, 404: UNKNOWN_SESSION, 409: refused("The session's folder is no longer a project (`project_removed`): add it again.") },
  },
  'POST /api/sessions/:id/cancel': { tag: 'turns', summary: 'Cancel the turn.', responses: { 202: json(accepted, 'Cancelling.'), 404: UNKNOWN_SESSION } },
  'POST /api/sessions/:id/model': {
    tag: 'turns',
    summary: "Switch the session's model and/or reasoning effort (at a safe point).",
    body: ModelBodySchema,
    responses: {
      202: json(z.object({ accepted: z.literal(true), model: z.string(), effort: ReasoningEffortSchema.optional() }), 'Will switch.'),
      400: BAD_REQUEST,
      404: UNKNOWN_SESSION,
    },
  },
  'PUT /api/sessions/:id/mode': {
    tag: 'approvals',
    summary: "Switch the session's approval mode (the user only; a call waiting for approval is decided again under the new mode).",
    body: z.object({ mode: z.enum(APPROVAL_MODES) }),
    responses: {
      200: json(SessionSnapshotSchema.extend({ changed: z.boolean() }), 'The session once the switch is durable; `changed` false when it already had that mode.'),
      400: BAD_REQUEST,
      404: UNKNOWN_SESSION,
      409: refused('Another instance runs the session.'),
      507: refused('The log could not record it (nothing changed).'),
    },
  },
  'POST /api/sessions/:id/approvals/:callId': {
    tag: 'approvals',
    summary: 'The decision on the tool call waiting for approval.',
    body: ApprovalBodySchema,
    responses: {
      202: json(z.object({ accepted: z.literal(true), decision: ApprovalDecisionSchema }), 'Taken.'),
      400: BAD_REQUEST,
      404: UNKNOWN_SESSION,
      409: refused("That call is not the one waiting, or (to approve) the session's folder is no longer a project (`project_removed`); a deny is always taken."),
      507: refused('The log could not record it.'),
    },
  },
  'GET /api/sessions/:id/export': {
    tag: 'sessions',
    summary: 'The log as on disk (JSONL) or a Markdown transcript.',
    query: ExportQuerySchema,
    responses: {
      200: { description: 'The file, as an attachment.', content: { 'application/x-ndjson': z.string(), 'text/markdown': z.string() } },
      400: BAD_REQUEST,
      404: UNKNOWN_SESSION,
    },
  },
  'GET /api/sessions/:id/images/:name': {
    tag: 'sessions',
    summary: "An image of one of the session's messages (`:name` is the base name of its ImageRef's `file`).",
    responses: {
      200: { description: "The image's bytes.", content: { 'image/png': z.string(), 'image/jpeg': z.string(), 'image/gif': z.string(), 'image/webp': z.string() } },
      404: refused('Unknown session, or no such image in it.'),
    },
  },
  'POST /api/sessions/:id/fork': {
    tag: 'sessions',
    summary: 'A new session with the events up to `seq` (and its own worktree when the session has one).',
    body: ForkBodySchema,
    responses: { 201: json(created, 'The fork.'), 400: BAD_REQUEST, 404: UNKNOWN_SESSION, 409: refused("The session's folder is no longer a project (`project_removed`): add it again.") },
  },
  'GET /api/sessions/:id/changes': {
    tag: 'sessions',
    summary: "What changed in the session's folder since it started (in a folder shared with other sessions, only the files this session changed, unless `all=1`).",
    query: ChangesQuerySchema,
    responses: { 200: json(ChangesReportSchema, 'The changed files with their diffs.'), 400: BAD_REQUEST, 404: UNKNOWN_SESSION, 500: refused('git failed.') },
  },
  'POST /api/sessions/:id/worktree/commit': worktreeAction('Commit every change of the session\'s worktree on its branch skein/<id>.', WorktreeCommitBodySchema),
  'POST /api/sessions/:id/worktree/merge': worktreeAction("Merge the session's branch into the main checkout's branch; on conflicts the merge is aborted (409 `merge_conflict` with the files), nothing lost."),
  'POST /api/sessions/:id/worktree/apply': worktreeAction("Apply the session's changes since its start (uncommitted ones too) to the main checkout as a patch (git apply --3way); conflicts are left marked there and listed."),
  'POST /api/sessions/:id/worktree/discard': worktreeAction("Reset the worktree to the session's starting commit: its uncommitted work and its branch's commits since are gone.", WorktreeDiscardBodySchema),
  'POST /api/sessions/:id/worktree/push': worktreeAction("Push the session's branch to the repository's remote (hooks never run; stopped after SKEIN_GIT_NETWORK_TIMEOUT_MS or by `worktree/cancel`)."),
  'POST /api/sessions/:id/worktree/cancel': {
    tag: 'sessions',
    summary: 'Stop the push under way on the session\'s worktree (its git and every program it started are killed; the push answers 409 `cancelled`). A local action is not stopped midway.',
    responses: {
      202: json(z.object({ cancelled: z.string() }), 'Stopping.'),
      404: UNKNOWN_SESSION,
      409: refused('Nothing runs (`nothing`), or a local action that ends on its own (`busy`).'),
    },
  },
  'GET /api/sessions/:id/rewind': {
    tag: 'rewind',
    summary: 'What putting the files back to event `seq` would change.',
    query: RewindQuerySchema,
    responses: { 200: json(RewindPreviewSchema, 'The preview.'), 400: BAD_REQUEST, 404: UNKNOWN_SESSION, 500: refused('git failed.') },
  },
  'POST /api/sessions/:id/rewind': {
    tag: 'rewind',
    summary: 'Put the files back to event `seq` (and fork the conversation there with `fork: true`).',
    body: RewindBodySchema,
    responses: {
      200: json(z.object({ restored: z.array(z.string()), id: z.string().optional() }), 'The files restored (and the fork).'),
      400: BAD_REQUEST,
      404: UNKNOWN_SESSION,
      409: refused("The agent is working, a worktree action (a push) is under way (`busy`), or the session's folder is no longer a project (`project_removed`)."),
    },
  },

  'GET /api/workdirs': { tag: 'workspaces', summary: 'The folders sessions may work in.', responses: { 200: json(z.object({ roots: z.array(z.string()) }), 'The existing projects, SKEIN_WORKDIR roots first.') } },
  'GET /api/projects': { tag: 'workspaces', summary: 'The projects (the folders the user chose) and the pending requests to add one.', responses: { 200: json(ProjectsListSchema, 'The projects, SKEIN_WORKDIR\'s roots first; a folder that no longer exists is `missing`.') } },
  'POST /api/projects': {
    tag: 'workspaces',
    summary: 'Add a folder the user chose (an absolute path; not `/`, the home folder itself, or the data folder).',
    body: ProjectFolderBodySchema,
    responses: { 201: json(ProjectsListSchema.extend({ folder: z.string() }), 'Added (`folder`: as kept, symlinks resolved).'), 400: refused('Not a folder that can be a project: `error` says why.') },
  },
  'DELETE /api/projects': {
    tag: 'workspaces',
    summary: 'Remove a project (its sessions stay; new ones cannot start there).',
    query: ProjectRemoveQuerySchema,
    responses: { 200: json(ProjectsListSchema, 'Removed.'), 400: BAD_REQUEST, 404: refused('Not one of the projects.'), 409: refused('One of the folders this server was started with (SKEIN_WORKDIR).') },
  },
  'POST /api/projects/requests': {
    tag: 'workspaces',
    summary: 'Ask the user to add a folder (an editor opening its project): shown in every web UI tab until someone answers.',
    body: ProjectRequestBodySchema,
    responses: { 201: json(z.object({ request: ProjectRequestSchema, tabs: z.number().int().min(0).meta({ description: 'Web UI tabs open now, each showing the request (0: only the asker can get an answer).' }) }), 'Pending (or `allowed` at once: the folder is already inside a project).'), 400: refused('Not a folder that can be a project: `error` says why.') },
  },
  'POST /api/projects/requests/:id': {
    tag: 'workspaces',
    summary: "The user's answer to a request to add a folder (`allow` adds it).",
    body: ProjectDecisionBodySchema,
    responses: {
      200: json(z.object({ request: ProjectRequestSchema }), 'Decided.'),
      400: refused('A bad body, or the folder can no longer be a project.'),
      404: refused('No such request.'),
      409: json(ErrorBodySchema.extend({ request: ProjectRequestSchema }), 'Already decided (elsewhere): `request` says how.'),
    },
  },
  'DELETE /api/projects/requests/:id': {
    tag: 'workspaces',
    summary: 'The asker withdraws its request (an editor that cancelled or closed): it ends as denied and leaves every prompt. A request nobody waits on (GET ?wait=) for 15 s is withdrawn too.',
    responses: { 200: json(z.object({ request: ProjectRequestSchema }), 'Withdrawn (or as it was decided).'), 404: refused('No such request.') },
  },
  'GET /api/projects/requests/:id': {
    tag: 'workspaces',
    summary: 'A request to add a folder; with `?wait=<seconds>` (at most 60), answered once it is decided or when they have passed.',
    query: ProjectWaitQuerySchema,
    responses: { 200: json(z.object({ request: ProjectRequestSchema }), 'The request.'), 400: BAD_REQUEST, 404: refused('No such request.') },
  },
  'GET /api/trash': { tag: 'workspaces', summary: 'Deleted sessions, restorable.', responses: { 200: json(z.object({ sessions: z.array(TrashedSessionSchema) }), 'The trash.') } },
  'POST /api/trash/:id/restore': {
    tag: 'workspaces',
    summary: 'Restore a deleted session.',
    responses: { 200: json(SessionSnapshotSchema, 'The restored session.'), 404: refused('No such session in the trash.') },
  },
  'GET /api/settings': {
    tag: 'server',
    summary: "The settings every session of this server shares, which no client can change for one session (skein run and skein acp compare the ones they were asked for).",
    responses: { 200: json(ServerSettingsSchema, 'SKEIN_SANDBOX, SKEIN_SANDBOX_NETWORK and SKEIN_SANDBOX_READ as the server took them.') },
  },
  'GET /api/models': {
    tag: 'models',
    summary: 'The models usable with the configured keys.',
    responses: { 200: json(z.object({ models: z.array(ModelEntrySchema), default: z.string() }), 'The models and the default.') },
  },
  'POST /api/mcp/servers': {
    tag: 'mcp',
    summary: "MCP servers a client brings (an editor's, through `skein acp`), in SKEIN_MCP_CONFIG's shape; started without a trust prompt, their text taken literally.",
    body: z.object({ mcpServers: z.record(z.string(), JsonObject) }),
    responses: {
      200: json(z.object({ added: z.array(z.string()), kept: z.array(z.string()), servers: z.array(McpServerInfoSchema) }), 'Once each new server is ready or failed its first attempt; a name the hub has keeps its server.'),
      400: BAD_REQUEST,
      404: refused('This skein runs no MCP hub.'),
    },
  },
  'GET /api/mcp': { tag: 'mcp', summary: 'The MCP servers and their tools.', responses: { 200: json(z.object({ servers: z.array(McpServerInfoSchema) }), 'The servers.') } },
  'GET /api/trust': {
    tag: 'mcp',
    summary: "Project files that would make skein run something (.mcp.json) or define an agent (.skein/agents/*.md), and the decisions on them.",
    responses: { 200: json(z.object({ files: z.array(ProjectFileTrustSchema) }), 'The files.') },
  },
  'POST /api/trust': {
    tag: 'mcp',
    summary: 'Trust, ignore or revoke a project file (its content named by its sha256); `file` is ".mcp.json" (the default) or ".skein/agents/NAME.md".',
    body: TrustBodySchema,
    responses: {
      200: json(z.object({ file: ProjectFileTrustSchema.nullable() }), 'The file as it is now.'),
      400: BAD_REQUEST,
      404: refused('Not one of this skein\'s project files.'),
      409: refused('The file changed since it was shown.'),
      422: refused('It cannot be trusted as it is (it does not parse).'),
    },
  },

  // The sockets: an upgrade, then one JSON frame per message (frames.ts). Not express routes (server/http/ws-hub.ts).
  'GET /ws': {
    tag: 'websocket',
    socket: true,
    summary: "A session's socket: `hello`, the events after `since`, then live events and deltas; send ClientFrame messages.",
    query: z.object({ session: z.string(), since: z.string().regex(/^\d{1,15}$/).optional() }),
    responses: { 101: json(ServerFrameSchema, 'Switching to WebSocket; each message the server sends is one ServerFrame.') },
  },
  'GET /ws/sessions': {
    tag: 'websocket',
    socket: true,
    summary: 'The session list, live: the whole list, then each change.',
    responses: { 101: json(SessionListFrameSchema, 'Switching to WebSocket; each message is one SessionListFrame.') },
  },

  'GET /': { tag: 'ui', summary: 'The web UI.', responses: { 200: typed('text/html', 'The UI.'), 503: typed('text/plain', 'The UI is not built.') } },
  'GET /s/:id': { tag: 'ui', summary: 'The web UI on a session.', responses: { 200: typed('text/html', 'The UI.'), 503: typed('text/plain', 'The UI is not built.') } },
} satisfies Record<string, Route>;

export type RouteKey = keyof typeof ROUTES;
