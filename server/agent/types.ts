// Types the agent room shares, below its files so every import points one
// way: the tool runner reads these of the agent's settings without importing
// the agent (agent.ts's AgentSettings has all of them and is passed as is).
import type { SandboxSettings } from '../tools/sandbox.js';
import type { ToolSecrets } from '../tools/tool.js';
import type { SkeinEvent } from '../../shared/protocol.js';

/** What running a session's tool calls needs of the agent's settings. */
export interface ToolRunSettings {
  workDir: string;
  /** The window, for capping a huge tool result as it arrives. */
  contextWindow: number;
  /** Cap a huge tool result as it arrives (default true). */
  resultCap?: boolean;
  bashTimeoutMs: number;
  toolOutputLimit: number;
  /** SKEIN_TOOL_ENV_ALLOW and secret values to mask in tool output (e.g. the generated access token). */
  tools?: ToolSecrets;
  /** search_history's `session`: the logs of this session's children (subagents/). */
  childHistory?: (id: string) => readonly SkeinEvent[] | undefined;
  /** SKEIN_SANDBOX=workspace: bash runs under bubblewrap (absent: unconfined). */
  sandbox?: SandboxSettings;
  /** Plan mode: bash runs only in this read-only sandbox (tools/sandbox/read-only.ts; absent: plan mode refuses bash). */
  planSandbox?: SandboxSettings;
}
