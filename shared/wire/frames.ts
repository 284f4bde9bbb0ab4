// WebSocket frames, as zod schemas: what a client sends on /ws?session=ID
// (CLIENT_FRAME_SCHEMAS), what the server sends there (SERVER_FRAME_SCHEMAS),
// and the frames of the list socket /ws/sessions (LIST_FRAME_SCHEMAS).
//
// To add a frame: define its schema (`z.object({ type: z.literal('foo'), ... })`)
// and add it to the list of its direction below. parseClientFrame, the types
// (ClientFrame, ServerFrame, SessionListFrame) and the OpenAPI document's
// components follow; the server's handler for a new client frame is in
// server/http/ws-hub.ts (TypeScript names the missing case).
import { z } from 'zod';
import { APPROVAL_DECISIONS } from './constants.js';
import { SkeinEventSchema } from './events.js';
import { ScanProgressSchema, SessionSnapshotSchema } from './resources.js';
import { ProjectRequestSchema, ProjectSchema } from './projects.js';
import { messageFields, parseWith, saysSomething, text, type Parsed } from './validate.js';

export const ApprovalDecisionSchema = z.enum(APPROVAL_DECISIONS, { error: `"decision" must be one of ${APPROVAL_DECISIONS.join(', ')}` });

/**
 * `decision` and the optional `reason` of an approval (REST body or frame):
 * a reason goes only with a deny; a blank one is dropped, another trimmed.
 */
function withReasonRule<S extends z.ZodObject<{ decision: typeof ApprovalDecisionSchema; reason: z.ZodOptional<z.ZodType<string>> }>>(schema: S) {
  return schema
    .refine((v) => !v.reason?.trim() || v.decision === 'deny', { error: '"reason" goes only with "deny"' })
    .overwrite((v) => {
      const { reason, ...rest } = v;
      return (reason?.trim() ? { ...rest, reason: reason.trim() } : rest) as typeof v;
    });
}

const approvalFields = { decision: ApprovalDecisionSchema, reason: text('reason', true).optional() };

/** POST /api/sessions/:id/approvals/:callId's body. */
export const ApprovalBodySchema = withReasonRule(z.object(approvalFields)).meta({ id: 'ApprovalBody' });

// ---- Client frames (/ws?session=ID) ----

/** A message; `images` (optional) come with it. The text may be empty when images come. */
export const UserMessageFrameSchema = z.object({ type: z.literal('user_message'), ...messageFields() }).refine(...saysSomething);
export const CompactFrameSchema = z.object({ type: z.literal('compact'), instructions: text('instructions', true).optional() });
export const CancelFrameSchema = z.object({ type: z.literal('cancel') });
/** The decision on a pending tool call (as POST /api/sessions/:id/approvals/:callId). */
export const ApprovalFrameSchema = withReasonRule(z.object({ type: z.literal('approval'), ...approvalFields, callId: text('callId') }));

/** Every frame a client may send. A new one is one more entry here. */
export const CLIENT_FRAME_SCHEMAS = [UserMessageFrameSchema, CompactFrameSchema, CancelFrameSchema, ApprovalFrameSchema] as const;

const clientFrameTypes = CLIENT_FRAME_SCHEMAS.map((s) => s.shape.type.value);
const expected = `${clientFrameTypes.slice(0, -1).join(', ')} or ${clientFrameTypes.at(-1)}`;

export const ClientFrameSchema = z
  .discriminatedUnion('type', CLIENT_FRAME_SCHEMAS, {
    error: (issue) => (issue.code === 'invalid_union' ? `unknown frame type ${JSON.stringify((issue.input as { type?: unknown }).type)}; expected ${expected}` : undefined),
  })
  .meta({ id: 'ClientFrame', description: 'A frame a client sends on /ws?session=ID.', unusedIO: 'input' });

// ---- Server frames (/ws?session=ID) ----

/**
 * Ephemeral: a piece of the assistant's text as the model generates it. Never
 * logged nor replayed; the `agent` event that follows holds the whole text.
 * Deltas of one model call share `afterSeq` and `attempt` (a retry starts a
 * new attempt: drop the partial text of the previous one); `index` counts from 0 within an attempt.
 */
export const DeltaFrameSchema = z.object({
  type: z.literal('delta'),
  afterSeq: z.number().int(),
  attempt: z.number().int(),
  index: z.number().int(),
  text: z.string(),
  /** `thinking`: a piece of the readable thinking shown above the answer (absent: the answer's text). */
  channel: z.literal('thinking').optional(),
});

/** Every frame the server sends on a session's socket. A new one is one more entry here. */
export const SERVER_FRAME_SCHEMAS = [
  z.object({ type: z.literal('hello'), session: SessionSnapshotSchema }),
  z.object({ type: z.literal('event'), event: SkeinEventSchema }),
  z.object({ type: z.literal('error'), message: z.string() }),
  DeltaFrameSchema,
] as const;

export const ServerFrameSchema = z.discriminatedUnion('type', SERVER_FRAME_SCHEMAS).meta({ id: 'ServerFrame', description: 'A frame the server sends on /ws?session=ID.' });

// ---- The list socket (/ws/sessions) ----

/**
 * The whole list (archived included, marked) when it opens, then one
 * `session` frame whenever a session's state, title, activity or flags
 * change, and `session_removed` when one is deleted. Clients send nothing.
 */
export const LIST_FRAME_SCHEMAS = [
  z.object({ type: z.literal('sessions'), sessions: z.array(SessionSnapshotSchema), scanning: ScanProgressSchema.optional() }),
  z.object({ type: z.literal('session'), session: SessionSnapshotSchema }),
  z.object({ type: z.literal('session_removed'), id: z.string() }),
  z.object({ type: z.literal('scanning'), ...ScanProgressSchema.shape }),
  /** The projects and the pending requests to add one: when the socket opens and at each change. */
  z.object({ type: z.literal('projects'), projects: z.array(ProjectSchema), requests: z.array(ProjectRequestSchema) }),
] as const;

export const SessionListFrameSchema = z.discriminatedUnion('type', LIST_FRAME_SCHEMAS).meta({ id: 'SessionListFrame', description: 'A frame of the list socket /ws/sessions.' });

export type ClientFrame = z.output<typeof ClientFrameSchema>;
export type ServerFrame = z.output<typeof ServerFrameSchema>;
export type SessionListFrame = z.output<typeof SessionListFrameSchema>;
export type ApprovalFrame = z.output<typeof ApprovalFrameSchema>;
export type DeltaFrame = z.output<typeof DeltaFrameSchema>;

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
  return parseWith(ClientFrameSchema, data);
}

/** Validates `decision` and the optional `reason` of a REST body or a frame. Never throws. */
export function parseApprovalDecision(body: Record<string, unknown>): Parsed<{ decision: z.output<typeof ApprovalDecisionSchema>; reason?: string }> {
  return parseWith(ApprovalBodySchema, body);
}
