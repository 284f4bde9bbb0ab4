// The wire's constants and small helpers, without zod: the web UI imports its
// runtime values from here, so the browser bundle carries no schema library
// (it takes the types from ../protocol.ts with `import type`, which vanish).
// The schemas (events.ts, frames.ts, rest.ts) build their enums from these lists.

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

export const COMPACTION_TRIGGERS = ['threshold', 'preflight', 'overflow', 'manual', 'agent', 'cadence', 'model_switch', 'strategy'] as const;
export type CompactionTrigger = (typeof COMPACTION_TRIGGERS)[number];

/**
 * Where a session's context window comes from: the provider's model-info
 * endpoint, a refusal (or a server seen cutting the prompt), skein's model
 * table, or SKEIN_CONTEXT_WINDOW.
 */
export const WINDOW_SOURCES = ['provider', 'refusal', 'table', 'setting'] as const;
export type WindowSource = (typeof WINDOW_SOURCES)[number];

/** How the UI and error messages say where the window comes from. */
export const WINDOW_SOURCE_WORDS: Record<WindowSource, string> = {
  provider: 'from the provider',
  refusal: 'learned from a refusal',
  table: 'from the model table',
  setting: 'set by SKEIN_CONTEXT_WINDOW',
};

/** How hard a reasoning model thinks (SKEIN_REASONING_EFFORT, per session from the model picker); `default`: the provider's default. */
export const REASONING_EFFORTS = ['default', 'none', 'low', 'medium', 'high', 'max'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/**
 * A session's approval mode (SKEIN_APPROVAL is the default of a session that
 * never switched): `never` runs every call, `on-write` asks before a call that
 * changes something, `always` asks before every call, `plan` is read-only
 * (writes and MCP tools are refused with a reason, bash runs only in a
 * read-only sandbox). See shared/modes.ts.
 */
export const APPROVAL_MODES = ['never', 'on-write', 'always', 'plan'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** What the user may answer: run it once, run it and every call the session rule covers, or not at all. */
export const APPROVAL_DECISIONS = ['approve', 'approve_session', 'deny'] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

/** Why a fork's copy closes the turn its fork point cut: a plain note, not an error. */
export const FORKED_HERE = 'forked here';

/** A user message of more than this share of the context window is saved as a file (the model sees its head and where it is). */
export const LARGE_MESSAGE_SHARE = 0.5;
/** Share of the window the head of a saved message takes in the model's view. */
export const SAVED_HEAD_SHARE = 0.1;

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
/** The image types a user message may carry (every provider skein speaks takes these four). */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];
/**
 * Largest image, decoded: its base64 must fit one frame (MAX_FRAME_BYTES) beside the text.
 * The web composer scales a larger picture down (Anthropic resizes anything over 1568 px anyway).
 */
export const MAX_IMAGE_BYTES = 720 * 1024;
/** Most images one message may carry (and all of them together within one frame). */
export const MAX_IMAGES_PER_MESSAGE = 8;
/** Longest accepted user message, in characters. */
export const MAX_MESSAGE_CHARS = 200_000;
/** Longest title a rename may give (PATCH /api/sessions/:id). */
export const MAX_TITLE_CHARS = 200;

/** Status notes are wrapped in this tag, so models and tools can tell them from what the user typed. */
export const STATUS_NOTE_OPEN = '<skein-status>';
export const STATUS_NOTE_CLOSE = '</skein-status>';
/** Changed instructions are wrapped in this tag, so models and tools can tell them from what the user typed. */
export const INSTRUCTIONS_NOTE_OPEN = '<skein-instructions>';
export const INSTRUCTIONS_NOTE_CLOSE = '</skein-instructions>';
/** Changed tools are wrapped in this tag (a `tools_changed` event's note). */
export const TOOLS_NOTE_OPEN = '<skein-tools>';
export const TOOLS_NOTE_CLOSE = '</skein-tools>';

/** The note asking the model to go on with an answer that was cut (an `answer_cut` event's note). */
export const CUT_NOTE_OPEN = '<skein-cut>';
export const CUT_NOTE_CLOSE = '</skein-cut>';

/** A note skein adds to the conversation (a status note, changed instructions, changed tools, a cut answer): never the user speaking. */
export function isSkeinNote(content: string): boolean {
  return content.startsWith(STATUS_NOTE_OPEN) || content.startsWith(INSTRUCTIONS_NOTE_OPEN) || content.startsWith(TOOLS_NOTE_OPEN) || content.startsWith(CUT_NOTE_OPEN);
}

/** `/compact [focus]` typed as a message asks for a compaction. */
export function parseCompactCommand(text: string): { instructions?: string } | null {
  const match = /^\/compact(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return null;
  const focus = match[1]?.trim();
  return focus ? { instructions: focus } : {};
}

export function contextTokensOf(usage: { input: number; cacheRead: number; cacheWrite: number }): number {
  return usage.input + usage.cacheRead + usage.cacheWrite;
}
