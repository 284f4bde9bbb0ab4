// The wire protocol between the skein server and its clients (web UI, tests,
// outside tools). The names are a contract: fields may be added, but existing
// ones never change meaning. See docs/wire-protocol.md.
//
// The source is the zod schemas in ./wire/ (events.ts, frames.ts, rest.ts and
// the pieces they share); every type here is z.infer of one of them, and the
// OpenAPI document (GET /api/openapi.json) is generated from the same schemas.
// This file only gives them their names. The web UI imports types from here
// with `import type` (nothing of zod reaches the browser) and its runtime
// values from ./wire/constants.ts.
import type { z } from 'zod';
import type { EventOf } from './wire/events.js';
import type { ApprovalPreviewSchema, ApprovalRuleSchema, GaugeSchema, ImageInputSchema, ImageRefSchema, LedgerSchema, ProviderCompactionSchema, ReasoningSchema, SavedMessageSchema, ThinkingCapabilitiesSchema, UsageSchema, WorkspaceSchema } from './wire/parts.js';
import type {
  ChangedFileSchema,
  ChangesReportSchema,
  WorktreeActionResultSchema,
  McpServerInfoSchema,
  McpToolInfoSchema,
  ModelEntrySchema,
  ServerSettingsSchema,
  ProjectFileTrustSchema,
  ProjectServerPreviewSchema,
  ProjectAgentPreviewSchema,
  RewindPreviewSchema,
  ScanProgressSchema,
  SessionManagementSchema,
  SessionSnapshotSchema,
  ListedSessionSchema,
  TrashedSessionSchema,
  ViewMessageSchema,
} from './wire/resources.js';
import type { McpServerStateSchema } from './wire/events.js';
import type { ProjectRequestSchema, ProjectSchema } from './wire/projects.js';

export * from './wire/constants.js';
export { SkeinEventSchema, EVENT_SCHEMAS, type SkeinEvent, type EventKind, type EventOf } from './wire/events.js';
export {
  ClientFrameSchema,
  ServerFrameSchema,
  SessionListFrameSchema,
  parseClientFrame,
  parseApprovalDecision,
  type ClientFrame,
  type ServerFrame,
  type SessionListFrame,
  type ApprovalFrame,
  type DeltaFrame,
} from './wire/frames.js';
export { checkText, type Parsed } from './wire/validate.js';

export type Usage = z.infer<typeof UsageSchema>;
export type Gauge = z.infer<typeof GaugeSchema>;
export type Reasoning = z.infer<typeof ReasoningSchema>;
export type ProviderCompaction = z.infer<typeof ProviderCompactionSchema>;
export type SavedMessage = z.infer<typeof SavedMessageSchema>;
export type ImageInput = z.infer<typeof ImageInputSchema>;
export type ImageRef = z.infer<typeof ImageRefSchema>;
export type Ledger = z.infer<typeof LedgerSchema>;
export type ThinkingCapabilities = z.infer<typeof ThinkingCapabilitiesSchema>;
export type ApprovalPreview = z.infer<typeof ApprovalPreviewSchema>;
export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>;
export type Workspace = z.infer<typeof WorkspaceSchema>;
export type Project = z.infer<typeof ProjectSchema>;
export type ProjectRequest = z.infer<typeof ProjectRequestSchema>;
export type McpServerState = z.infer<typeof McpServerStateSchema>;
export type ScanProgress = z.infer<typeof ScanProgressSchema>;

export type UserEvent = EventOf<'user'>;
export type AgentEvent = EventOf<'agent'>;
export type ToolCallEvent = EventOf<'tool_call'>;
export type ToolResultEvent = EventOf<'tool_result'>;
export type StateEvent = EventOf<'state'>;
export type UsageEvent = EventOf<'usage'>;
export type CompactionEvent = EventOf<'compaction'>;
export type CompactionPhase = CompactionEvent['phase'];
export type ErrorEvent = EventOf<'error'>;
export type ModelEvent = EventOf<'model'>;
export type StatusEvent = EventOf<'status'>;
export type LimitsEvent = EventOf<'limits'>;
export type InstructionsEvent = EventOf<'instructions'>;
export type ApprovalRequestEvent = EventOf<'approval_request'>;
export type ApprovalDecisionEvent = EventOf<'approval_decision'>;
export type McpEvent = EventOf<'mcp'>;
export type ToolsChangedEvent = EventOf<'tools_changed'>;
export type ToolsetEvent = EventOf<'toolset'>;
export type AnswerCutEvent = EventOf<'answer_cut'>;
export type WorktreeEvent = EventOf<'worktree'>;
export type ModeEvent = EventOf<'mode'>;
export type SubagentEvent = EventOf<'subagent'>;

/** An event before the log gives it its seq and ts. */
export type NewEvent = import('./wire/events.js').SkeinEvent extends infer E ? (E extends unknown ? Omit<E, 'seq' | 'ts'> : never) : never;

export type SessionManagement = z.infer<typeof SessionManagementSchema>;
export type SessionSnapshot = z.infer<typeof SessionSnapshotSchema>;
export type ListedSession = z.infer<typeof ListedSessionSchema>;
export type ViewMessage = z.infer<typeof ViewMessageSchema>;
export type ModelEntry = z.infer<typeof ModelEntrySchema>;
export type ServerSettings = z.infer<typeof ServerSettingsSchema>;
export type ChangedFile = z.infer<typeof ChangedFileSchema>;
export type ChangesReport = z.infer<typeof ChangesReportSchema>;
export type WorktreeActionResult = z.infer<typeof WorktreeActionResultSchema>;
export type TrashedSession = z.infer<typeof TrashedSessionSchema>;
export type McpToolInfo = z.infer<typeof McpToolInfoSchema>;
export type McpServerInfo = z.infer<typeof McpServerInfoSchema>;
export type ProjectServerPreview = z.infer<typeof ProjectServerPreviewSchema>;
export type ProjectAgentPreview = z.infer<typeof ProjectAgentPreviewSchema>;
export type ProjectFileTrust = z.infer<typeof ProjectFileTrustSchema>;
export type RewindPreview = z.infer<typeof RewindPreviewSchema>;
