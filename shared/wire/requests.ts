// What clients send the REST API: JSON bodies and query strings, as zod
// schemas. The routes validate with them (server/http), the OpenAPI document
// shows them (rest.ts). Each refusal reads as it always has: the messages are
// part of the contract clients and tests rely on.
import { z } from 'zod';
import { MAX_TITLE_CHARS, REASONING_EFFORTS } from './constants.js';
import { messageFields, saysSomething, text } from './validate.js';

const OBJECT = { error: 'the request body must be a JSON object' };

export const CreateSessionBodySchema = z.object(
  {
    model: z.string({ error: '"model" must be a string' }).optional(),
    /** Absolute, or relative to the first root: a SKEIN_WORKDIR root or a folder inside one. */
    folder: z.string({ error: '"folder" must be a string and "worktree" true or false' }).optional(),
    /** The session's own git worktree (needs a repository with a commit). */
    worktree: z.boolean({ error: '"folder" must be a string and "worktree" true or false' }).optional(),
  },
  OBJECT,
);

const TITLE = `"title" must be a string of at most ${MAX_TITLE_CHARS} characters (empty: the first message again)`;
export const PatchSessionBodySchema = z
  .object({ title: z.string({ error: TITLE }).max(MAX_TITLE_CHARS, { error: TITLE }).optional(), archived: z.boolean({ error: '"archived" must be true or false' }).optional() }, OBJECT)
  .refine((b) => b.title !== undefined || b.archived !== undefined, { error: 'nothing to change: send "title" and/or "archived"' });

export const ModelBodySchema = z.object(
  {
    effort: z.enum(REASONING_EFFORTS, { error: `"effort" must be one of ${REASONING_EFFORTS.join(', ')}` }).optional(),
    /** Defaults to the session's model when only `effort` is given. */
    model: text('model').optional(),
  },
  OBJECT,
);

export const MessageBodySchema = z.object(messageFields(), OBJECT).refine(...saysSomething);
export const CompactBodySchema = z.object({ instructions: text('instructions', true).optional() }, OBJECT);
export const ForkBodySchema = z.object(
  {
    seq: z.number({ error: '"seq" must be the number of an event of the session' }),
    /** Edit and resend: the fork replaces the message after `seq` (its title says "edited"); the event after `seq` must be a user message (else 400). */
    edit: z.boolean({ error: '"edit" must be true or false' }).optional(),
  },
  OBJECT,
);
/** POST /api/sessions/:id/worktree/commit: the commit's message. */
export const WorktreeCommitBodySchema = z.object(
  { message: z.string({ error: '"message" must be a non-empty string (the commit message)' }).trim().min(1, { error: '"message" must be a non-empty string (the commit message)' }).max(10_000, { error: '"message" must be at most 10000 characters' }) },
  OBJECT,
);
/** POST /api/sessions/:id/worktree/discard: the user confirmed (uncommitted work is gone after it). */
export const WorktreeDiscardBodySchema = z.object({ confirm: z.literal(true, { error: '"confirm" must be true: discarding loses the worktree\'s uncommitted work and its commits since the start' }) }, OBJECT);
export const RewindBodySchema = z.object(
  {
    /** An event of the session: from 1 to its last seq. */
    seq: z.number().int().min(1),
    /** Also fork the conversation at that event. */
    fork: z.boolean({ error: '"fork" must be true or false' }).optional(),
  },
  OBJECT,
);

export const TRUST_ACTIONS = ['trust', 'ignore', 'revoke'] as const;
const FOLDER_FILE = '"folder" (and "file": ".mcp.json", the default, or ".skein/agents/NAME.md") must be strings';
const HASH = '"hash" must be the sha256 (64 hex digits) of the content shown, as GET /api/trust gives it';
export const TrustBodySchema = z
  .object(
    {
      folder: z.string({ error: FOLDER_FILE }),
      file: z.string({ error: FOLDER_FILE }).default('.mcp.json'),
      decision: z.enum(TRUST_ACTIONS, { error: `"decision" must be one of ${TRUST_ACTIONS.join(', ')}` }),
      /** The sha256 of the content shown (64 hex digits); not needed to revoke. */
      hash: z.unknown().optional().meta({ type: 'string', pattern: '^[0-9a-f]{64}$' }),
    },
    OBJECT,
  )
  .refine((b) => b.decision === 'revoke' || (typeof b.hash === 'string' && /^[0-9a-f]{64}$/.test(b.hash)), { error: HASH });

const flag = z.enum(['1', 'true', '0', 'false']).optional();

export const ListQuerySchema = z.object({
  /** Sessions whose title contains this text, or whose user messages hold every word of it (a word typed may be the start of one; case-insensitive). */
  q: z.string().optional(),
  /** `1`: archived sessions too. */
  archived: flag,
  /** `1` with q: the first 20 results carry `match.snippet` (each costs a read of that message; without it a search reads only the index). */
  snippets: flag,
});

export const DeleteQuerySchema = z.object({
  worktree: z.enum(['keep', 'remove'], { error: '"worktree" must be keep or remove' }).optional(),
  /** Remove a worktree with uncommitted work all the same. */
  force: flag,
});

/** GET /api/sessions/:id/changes: `all=1` lists every change in a shared folder, not only the session's own files. */
export const ChangesQuerySchema = z.object({ all: z.enum(['1', '0'], { error: '"all" must be 1 or 0' }).optional() });
export const ExportQuerySchema = z.object({ format: z.enum(['jsonl', 'md', 'markdown'], { error: '"format" must be jsonl or md' }).optional() });

const digits = z.string().regex(/^\d{1,15}$/);
export const EventsQuerySchema = z.object({
  /** Events after this seq (0: from the start). */
  since: digits.optional(),
  /** Events before this seq (with `limit`: paging back from the tail). */
  before: digits.optional(),
  /** At most this many (1 to 5,000). */
  limit: digits.optional(),
});

export const RewindQuerySchema = z.object({ seq: digits });
