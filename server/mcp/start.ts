// Starts the MCP servers of <workdir>/.mcp.json and SKEIN_MCP_CONFIG, if any.
import type { Config } from '../config.js';
import { loadMcpServers } from './config.js';
import { McpHub } from './hub.js';

/** Throws McpConfigError for a bad file; undefined when no server is configured. */
export async function startMcp(config: Pick<Config, 'workDir' | 'mcpConfig' | 'mcpTimeoutMs' | 'mcpStartTimeoutMs'>): Promise<McpHub | undefined> {
  const servers = loadMcpServers(config.workDir, config.mcpConfig);
  if (!servers.size) return undefined;
  const hub = new McpHub(servers, { workDir: config.workDir, callTimeoutMs: config.mcpTimeoutMs, startTimeoutMs: config.mcpStartTimeoutMs });
  await hub.start();
  return hub;
}
