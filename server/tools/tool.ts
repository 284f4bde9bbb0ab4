// What a tool is: a spec the model sees and a run function. Tools never throw
// for the model's mistakes; they return an error result the model can read.
import type { SkeinEvent } from '../../shared/protocol.js';
import type { ToolSpec } from '../llm/types.js';
import type { NamedSecret } from './env.js';
import type { SandboxSettings } from './sandbox.js';

/** What the server tells its tools about secrets (see env.ts). */
export interface ToolSecrets {
  /** SKEIN_TOOL_ENV_ALLOW: variables passed to bash although their names look secret. */
  envAllow?: readonly string[];
  /** Values masked in every tool output besides the environment's own secrets (e.g. a generated access token). */
  secrets?: readonly NamedSecret[];
}

export interface ToolContext extends ToolSecrets {
  workDir: string;
  signal: AbortSignal;
  bashTimeoutMs: number;
  outputLimit: number;
  /** Extra folders read_file may read (the session's saved full outputs). */
  readRoots?: string[];
  /** compact_history: asks for a compaction at the next safe point. */
  requestCompaction?: (request: { instructions?: string; preserveRecentGroups?: number }) => void;
  /** SKEIN_SANDBOX=workspace: bash runs under bubblewrap with these settings. */
  sandbox?: SandboxSettings;
  /** search_history: the session's whole event log, in order. */
  history?: () => readonly SkeinEvent[];
  /** The id of the tool call being run (task: the child's log names it). */
  callId?: string;
  /** search_history with `session`: the log of a child session of this one (undefined: no such child). */
  childHistory?: (id: string) => readonly SkeinEvent[] | undefined;
}

export interface ToolResult {
  output: string;
  isError: boolean;
}

export interface Tool {
  spec: ToolSpec;
  /** Changes nothing outside skein (no files, no processes): needs no approval in any sandbox mode. */
  readOnly?: boolean;
  run(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult>;
}

export class ToolInputError extends Error {}

export function stringField(input: Record<string, unknown>, field: string): string {
  const value = input[field];
  if (typeof value !== 'string') throw new ToolInputError(`"${field}" must be a string`);
  return value;
}
