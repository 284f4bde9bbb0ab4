// Starts the MCP servers: the user's own SKEIN_MCP_CONFIG (`${VAR}` expanded,
// no prompt), and the working folder's .mcp.json only when the user trusted
// its exact content (see server/trust/). The hub exists even with no server,
// so a project file trusted later starts without a restart.
import type { Config } from '../config.js';
import { ProjectTrust } from '../trust/project-trust.js';
import { loadUserMcpServers } from './config.js';
import { McpHub } from './hub.js';
import { sandboxSettingsOf } from '../tools/sandbox.js';

export interface StartedMcp {
  hub: McpHub;
  trust: ProjectTrust;
}

/** Throws McpConfigError for a bad SKEIN_MCP_CONFIG (a project's file never stops skein: it is shown, untrusted). */
export async function startMcp(
  config: Pick<Config, 'workDir' | 'dataDir' | 'mcpConfig' | 'mcpTimeoutMs' | 'mcpStartTimeoutMs'> & Partial<Pick<Config, 'sandbox' | 'sandboxNetwork' | 'sandboxRead'>>,
): Promise<StartedMcp> {
  const user = loadUserMcpServers(config.mcpConfig);
  // SKEIN_SANDBOX=workspace: stdio servers (the user's and a trusted project's) run in the same sandbox as bash.
  const sandbox = config.sandbox ? sandboxSettingsOf({ sandbox: config.sandbox, sandboxNetwork: config.sandboxNetwork ?? false, dataDir: config.dataDir, sandboxRead: config.sandboxRead ?? [] }) : undefined;
  const hub = new McpHub(user, { workDir: config.workDir, callTimeoutMs: config.mcpTimeoutMs, startTimeoutMs: config.mcpStartTimeoutMs, ...(sandbox && { sandbox }) });
  // The project file of the first working folder (the one skein starts in), as before the trust gate.
  const trust = new ProjectTrust(config.dataDir, config.workDir, hub, new Set(user.keys()));
  await Promise.all([hub.start(), trust.sync()]);
  trust.watch();
  return { hub, trust };
}
