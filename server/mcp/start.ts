// Starts the MCP servers of <workdir>/.mcp.json and SKEIN_MCP_CONFIG, if any.
import type { Config } from '../config.js';
import { loadMcpServers } from './config.js';
import { McpHub } from './hub.js';
import { sandboxSettingsOf } from '../tools/sandbox.js';

/** Throws McpConfigError for a bad file; undefined when no server is configured. */
export async function startMcp(
  config: Pick<Config, 'workDir' | 'mcpConfig' | 'mcpTimeoutMs' | 'mcpStartTimeoutMs'> & Partial<Pick<Config, 'sandbox' | 'sandboxNetwork' | 'sandboxRead' | 'dataDir'>>,
): Promise<McpHub | undefined> {
  const servers = loadMcpServers(config.workDir, config.mcpConfig);
  if (!servers.size) return undefined;
  // SKEIN_SANDBOX=workspace: stdio servers run in the same sandbox as bash.
  const sandbox = config.sandbox && config.dataDir ? sandboxSettingsOf({ sandbox: config.sandbox, sandboxNetwork: config.sandboxNetwork ?? false, dataDir: config.dataDir, sandboxRead: config.sandboxRead ?? [] }) : undefined;
  const hub = new McpHub(servers, { workDir: config.workDir, callTimeoutMs: config.mcpTimeoutMs, startTimeoutMs: config.mcpStartTimeoutMs, ...(sandbox && { sandbox }) });
  await hub.start();
  return hub;
}
