// The project-trust calls of <skein-app>: the files waiting for a decision
// (GET /api/trust), and Trust / Ignore sent with the hash that was shown; a
// file that changed meanwhile (409) is shown again, with a notice.
import type { McpServerInfo, ProjectFileTrust } from '../shared/protocol.js';
import * as api from './api.js';
import type { TrustDetail } from './skein-trust-prompt.js';

export interface TrustHost {
  trust: ProjectFileTrust[];
  mcp: McpServerInfo[];
  notice: string;
}

export async function refreshTrust(host: TrustHost): Promise<void> {
  host.trust = await api.listTrust();
}

/** After a Trust the server has started the file's servers (first attempt done): the MCP list shows them. */
export async function decideTrust(host: TrustHost, { file, decision }: TrustDetail): Promise<void> {
  try {
    await api.decideTrust(file, decision);
  } catch (err) {
    host.notice = err instanceof api.ApiError && err.status === 409 ? `${file.path} changed since it was shown: look at it again.` : `Could not record the decision: ${err instanceof Error ? err.message : String(err)}`;
  }
  const [trust, mcp] = await Promise.all([api.listTrust(), api.listMcpServers()]);
  host.trust = trust;
  host.mcp = mcp;
}
