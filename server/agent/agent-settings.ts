// What an agent is given beside its session and provider (the sessions
// manager builds it from the config; tests and benches set parts of it).
import type { ApprovalMode, SkeinEvent } from '../../shared/protocol.js';
import type { SandboxSettings } from '../tools/sandbox.js';
import type { SessionTools } from '../tools/session-tools.js';
import type { ToolSecrets } from '../tools/tool.js';
import type { CompactionSettings } from './compaction-runner.js';
import type { ModelServices } from './model-switch.js';
import type { TurnLimitSettings } from './turn-limits.js';
import type { BackoffTiming } from './write-backoff.js';

export interface AgentSettings extends CompactionSettings, Partial<TurnLimitSettings> {
  workDir: string;
  /** Cap a huge tool result as it arrives (default true). */
  resultCap?: boolean;
  bashTimeoutMs: number;
  toolOutputLimit: number;
  /** SKEIN_TOOL_ENV_ALLOW and secret values to mask in tool output (e.g. the generated access token). */
  tools?: ToolSecrets;
  /** Retries, the summariser and model switches (absent: no retries, no switch, the session's model summarises). */
  models?: ModelServices;
  /** How long to wait before trying again when the log refuses writes (default 1 s doubling to 30 s). */
  writeBackoff?: BackoffTiming;
  /** SKEIN_STATUS_UPDATES: status notes to the agent (default off). */
  statusUpdates?: boolean;
  /** SKEIN_APPROVAL: the mode of a session that never switched (default never). */
  approval?: ApprovalMode;
  /** SKEIN_SANDBOX=workspace: bash runs under bubblewrap (absent: unconfined). */
  sandbox?: SandboxSettings;
  /** Plan mode: bash runs only in this read-only sandbox (absent: plan mode refuses bash). */
  planSandbox?: SandboxSettings;
  /** The session's tools, fixed at its start (absent: the built-in ones). */
  toolSet?: SessionTools;
  /** search_history's `session`: the logs of this session's children (subagents/). */
  childHistory?: (id: string) => readonly SkeinEvent[] | undefined;
  /** A child session's agent instructions, added to its system prompt (subagents/). */
  agentPrompt?: string;
}

/** The turn limits that are set (undefined ones keep their defaults). */
export function definedOnly(settings: Partial<TurnLimitSettings>): Partial<TurnLimitSettings> {
  return {
    ...(settings.maxStepsPerTurn !== undefined && { maxStepsPerTurn: settings.maxStepsPerTurn }),
    ...(settings.maxTurnCostUsd !== undefined && { maxTurnCostUsd: settings.maxTurnCostUsd }),
  };
}
