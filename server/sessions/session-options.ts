// What the sessions manager is given beside the config (tests and benches pass most of it).
import type { SkeinEvent } from '../../shared/protocol.js';
import type { CompactionStrategy } from '../compaction/pipeline.js';
import type { Provider } from '../llm/types.js';
import type { McpHub } from '../mcp/hub.js';
import type { PgStore } from '../store/postgres/pg-store.js';
import type { NamedSecret } from '../tools/env.js';
import type { ClusterRoles } from '../cluster/cluster-roles.js';

export interface SessionOptions {
  strategies?: CompactionStrategy[];
  /** Cap a huge tool result as it arrives (default true). */
  resultCap?: boolean;
  /** Values masked in every tool output (the access token, which is not in the environment). */
  toolSecrets?: NamedSecret[];
  /** Stands between a session and its provider (benchmarks: a server whose real window is smaller than skein is told). */
  wrapProvider?: (provider: Provider) => Provider;
  /** The MCP servers: their tools join each session's tools at its start; their failures reach every timeline. */
  mcp?: McpHub;
  /** Sees every event any session appends, after it is on disk (metrics). */
  onEvent?: (sessionId: string, event: SkeinEvent) => void;
  /** SKEIN_DATABASE_URL: the sessions' events live in PostgreSQL (see PgStore); absent: JSONL files. */
  database?: PgStore;
  /** Several instances on that database: which sessions this one runs (see cluster-roles.ts). */
  cluster?: ClusterRoles;
}
