// A new session: its folder or worktree, its log's header, its lease when
// several instances share a database, and what its timeline starts with.
import path from 'node:path';
import type { Workspace } from '../../shared/protocol.js';
import { createProvider } from '../llm/providers.js';
import { EventLog, type LogHeader } from '../store/event-log.js';
import type { SubagentHeader } from '../store/types.js';
import type { SessionLog } from '../store/session-log.js';
import { createWorkspace, type WorkspaceRequest } from '../workspace/workspace.js';
import { log as logger } from '../log.js';
import { providerSettings } from '../agent/model-switch.js';
import type { LiveSession } from '../agent/live-session.js';
import type { SessionsHost } from './host.js';
import { newId } from './session-id.js';

export type CreateHost = Pick<SessionsHost, 'config' | 'roots' | 'live' | 'claimed' | 'options' | 'dir' | 'start' | 'changed'>;

/**
 * A new session in a folder of its choice (one of the SKEIN_WORKDIR roots or
 * inside one), with its own worktree when asked. Its folder, branch and
 * starting commit are recorded in its log's header.
 */
export async function createSessionIn(host: CreateHost, model: string, request: WorkspaceRequest): Promise<LiveSession> {
  createProvider(model, providerSettings(host.config));
  const id = newId();
  // SKEIN_WORKTREE=on: a worktree of its own unless the request says otherwise.
  const asked = request.worktree === undefined && host.config.worktreeDefault ? { ...request, preferWorktree: true } : request;
  const workspace = await createWorkspace(host.roots(), host.config.dataDir, id, asked);
  const live = createSession(host, model, workspace, id);
  // Its lease first: no other instance may take a session that is being answered to its creator.
  await host.claimed.get(id);
  return host.live.get(id) ?? live;
}

/** A new session (its log's header written), its agent started. */
export function createSession(host: CreateHost, model: string, workspace: Workspace | undefined, id: string, subagent?: SubagentHeader): LiveSession {
  // Refuses an unknown model, or one whose provider has no key, before writing anything.
  const choice = createProvider(model, providerSettings(host.config));
  const now = new Date();
  // Recorded only when some server is configured (the hub exists even without one, for a project file trusted later).
  const mcpTools = host.options.mcp?.size ? host.options.mcp.tools().map((t) => t.spec) : undefined;
  const header: LogHeader = { skein: 1, session: id, createdAt: now.toISOString(), model, ...(workspace && { workspace }), ...(mcpTools && { mcpTools }), ...(subagent && { subagent }) };
  const log = host.options.database ? host.options.database.create(header) : EventLog.create(path.join(host.dir, `${id}.jsonl`), header);
  const live = host.start(log, choice);
  host.changed(id);
  // Once its row is in the database (its first group), so that other instances can read it when told.
  const cluster = host.options.cluster;
  const claim = cluster && Promise.resolve((log as SessionLog).flushed?.()).then(() => cluster.created(id)).catch((err: unknown) => logger.warn(`cluster: could not take the new session's lease: ${err instanceof Error ? err.message : String(err)}`, { session: id }));
  if (claim) {
    host.claimed.set(id, claim);
    void claim.finally(() => host.claimed.delete(id));
  }
  // The timeline starts with the MCP servers as they are: which tools the session has, which were skipped, which server is down.
  for (const state of host.options.mcp?.states() ?? []) live.session.append({ kind: 'mcp', ...state });
  // A model not in skein's table is not warned about here: its server usually says its window at the first request (agent/window.ts).
  return live;
}
