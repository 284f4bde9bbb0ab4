// What the parts of the sessions manager (the list and its index, the first
// scan, trash, fork, the database and cluster side) see of it: one object the
// manager makes, each part declaring the few members it uses (Pick<>). A leaf,
// so that no part imports the manager.
import type { ListedSession, SessionListFrame } from '../../shared/protocol.js';
import type { Config } from '../config.js';
import type { ProviderChoice } from '../llm/providers.js';
import type { Trash } from '../manage/trash.js';
import type { ScanContext } from '../store/log-scan.js';
import type { IndexEntry, SessionIndex } from '../store/session-index.js';
import type { SessionLog } from '../store/session-log.js';
import type { LiveSession } from '../agent/live-session.js';
import type { SessionOptions } from './session-options.js';
import type { SessionSearch } from './session-search.js';
import type { LogReads } from '../store/log-reads.js';

export interface SessionsHost {
  /** `<data dir>/sessions`. */
  readonly dir: string;
  readonly config: Config;
  readonly options: SessionOptions;
  /** The loaded sessions. */
  readonly live: Map<string, LiveSession>;
  /** When each loaded session was last used (get, post, its agent). */
  readonly lastUsed: Map<string, number>;
  /** Sessions whose list entry changed and is about to be sent (changes are coalesced). */
  readonly dirty: Set<string>;
  /** Loaded sessions whose index entry must be taken again at the next index write. */
  readonly indexDirty: Set<string>;
  readonly index: SessionIndex;
  readonly search: SessionSearch;
  readonly trash: Trash;
  /** New sessions whose lease is being taken (several instances on one database). */
  readonly claimed: Map<string, Promise<void>>;
  /** JSONL: the logs being read off the event loop for open() (two opens share one read). */
  readonly reads: LogReads;
  /** The server is shutting down. */
  closing(): boolean;
  /** Listed by neither the index nor memory yet: the start's scan (or PostgreSQL's build) has still to reach it. */
  pending(id: string): boolean;
  open(id: string): Promise<LiveSession | undefined>;
  get(id: string): LiveSession | undefined;
  load(id: string, warnings?: string[]): LiveSession | undefined;
  start(log: SessionLog, choice?: ProviderChoice): LiveSession;
  unload(id: string): void;
  idle(live: LiveSession): boolean;
  roots(): string[];
  changed(id: string): void;
  indexChanged(): void;
  emit(frame: SessionListFrame): void;
  saveIndex(options?: { sync?: boolean }): Promise<void>;
  capture(id: string, live: LiveSession): void;
  entryOf(live: LiveSession): IndexEntry | undefined;
  listed(entry: IndexEntry): ListedSession;
  scanContext(id: string): ScanContext;
  /** A meta file was written for the session (scanContext reads it from now on). */
  metaWritten(id: string): void;
}
