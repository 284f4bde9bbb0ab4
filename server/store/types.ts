// Types the store room shares, below its files so every import points one
// way: the log header and load report are used by the JSONL log
// (event-log.ts), by what any log must offer (session-log.ts) and by the
// PostgreSQL store.
import type { ToolSpec } from '../llm/types.js';
import type { ApprovalMode, SessionSnapshot, Workspace } from '../../shared/protocol.js';

export const LOG_FORMAT_VERSION = 1;

export interface LogHeader {
  skein: typeof LOG_FORMAT_VERSION;
  session: string;
  createdAt: string;
  model: string;
  /** Where the session works (its folder, branch and starting commit); absent in logs from before workspaces. */
  workspace?: Workspace;
  /** A fork: the session it was copied from and the last event copied; `edit`: made by Edit and resend (the message after `seq` is being replaced). */
  forkOf?: { session: string; seq: number; edit?: boolean };
  /**
   * The MCP tools the session started with, as every one of its requests
   * declares them for its whole life (a restart too: the servers may offer
   * others by then, which reach the model as a note). Absent: no MCP servers.
   */
  mcpTools?: ToolSpec[];
  /** A child session started by a `task` tool call: its parent, its agent, and what that agent fixed for its whole life. */
  subagent?: SubagentHeader;
}

export interface SubagentHeader {
  parent: string;
  callId: string;
  agent: string;
  /** The built-in tools it may use (absent: the parent's, minus `task` when depth is used up). */
  tools?: string[];
  /** The agent's own instructions, added to the system prompt. */
  prompt?: string;
  /** How many more levels of children it may start (0: no `task` tool). */
  depthLeft: number;
}

export interface LoadReport {
  /** A torn final line (crash mid-write) that was skipped. */
  tornTail?: string;
  /** Lines that could not be parsed, or repeated an earlier seq, and were skipped (1-based). */
  badLines: number[];
}

/** What the sessions index keeps of a session (see session-index.ts). */
export interface IndexEntry {
  snapshot: SessionSnapshot;
  /** Size and mtime of the log file when the entry was taken. */
  size: number;
  mtimeMs: number;
  /** Mtime of its <id>.meta.json when the entry was taken (absent: none): a rename the index missed (a crash) is seen. */
  metaMtimeMs?: number;
  /** Its log ended mid-turn or with queued compactions: loaded at start to close or run them. */
  needsStart: boolean;
  /** The mode the user last switched the session to (absent: it follows SKEIN_APPROVAL, which may differ at the next start). */
  chosenMode?: ApprovalMode;
}

/** One journal line: a session's new entry, or its removal. */
export interface JournalLine {
  n: number;
  id: string;
  entry?: IndexEntry;
}
