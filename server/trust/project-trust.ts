// The trust gate of a running skein: the working folder's .mcp.json starts
// nothing (and its agent files `.skein/agents/*.md` define nothing: they are
// read at each `task` call, see subagents/agent-files.ts) until the user trusts that exact content (UI, POST /api/trust, or
// `skein trust`), and then starts without a restart. The servers started
// are parsed from the very bytes whose hash was trusted, as written (never
// `${VAR}`-expanded); a crash restart reuses them, never re-reads the file.
// They run while the store says that hash is trusted: trusting a newer
// content swaps them, a revoke or an "ignore" stops them. The store is
// checked again on every GET/POST /api/trust and GET /api/mcp, and when
// trust.json changes (`skein trust` writes it without a server).
import fs from 'node:fs';
import type { ProjectFileTrust } from '../../shared/protocol.js';
import type { McpHub } from '../mcp/hub.js';
import { log } from '../log.js';
import { inspectProjectFile, shown } from './project-files.js';
import { inspectGatedFile, inspectGatedFiles, isGatedName, trustable } from './gated-files.js';
import { folderKey, TrustStore, TrustStoreError } from './store.js';

export type TrustAction = 'trust' | 'ignore' | 'revoke';

/** The decision named content that is no longer the file's (HTTP 409). */
export class StaleTrustError extends Error {
  override readonly name = 'StaleTrustError';
}

/** No such gated file in a working folder of this skein (HTTP 404), or it cannot be trusted as it is (HTTP 422). */
export class TrustRequestError extends Error {
  override readonly name = 'TrustRequestError';
  constructor(
    readonly status: 404 | 422,
    message: string,
  ) {
    super(message);
  }
}

/** How often trust.json is looked at for a change `skein trust` made (a stat, not a read). */
const STORE_POLL_MS = 1000;

export class ProjectTrust {
  readonly store: TrustStore;
  private readonly folder: string;
  /** The project servers running now and the sha256 of the content they came from. */
  private running: { sha256: string; names: string[] } | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** The trust.json watcher (only this one is removed at close: another skein in this process may watch the same file). */
  private readonly onStoreChange = () => void this.sync().catch((err: unknown) => log.warn(`project trust: ${String(err)}`));
  private watching = false;

  constructor(
    dataDir: string,
    folder: string,
    private readonly hub: McpHub,
    /** Names the user's own SKEIN_MCP_CONFIG defines: those win, the project's server of that name never runs. */
    private readonly userServers: ReadonlySet<string>,
  ) {
    this.store = new TrustStore(dataDir);
    this.folder = folderKey(folder);
  }

  /** The project files of this skein and the decision on each (checking the store again first). */
  async list(): Promise<ProjectFileTrust[]> {
    await this.sync();
    return inspectGatedFiles(this.folder, (name) => this.decision(name), this.userServers).map(shown);
  }

  /** The user's decision on the content with sha256 `hash`; refused when the file is no longer that content. */
  async decide(folder: string, file: string, hash: string, action: TrustAction): Promise<ProjectFileTrust | undefined> {
    return this.serial(async () => {
      if (folderKey(folder) !== this.folder || !isGatedName(file)) throw new TrustRequestError(404, `${folder}/${file} is not a project file of this skein (its working folder is ${this.folder})`);
      if (action === 'revoke') {
        this.store.revoke(this.folder, file);
      } else {
        const now = this.inspect(file);
        if (!now) throw new TrustRequestError(404, `${this.folder}/${file} does not exist (any more)`);
        if (now.sha256 !== hash) throw new StaleTrustError(`${now.path} changed since it was shown (sha256 ${hash.slice(0, 12)}… was asked, it is ${now.sha256.slice(0, 12)}… now): look at it again`);
        if (action === 'trust' && !trustable(now)) throw new TrustRequestError(422, `${now.path} cannot be trusted as it is: ${now.error ?? 'it does not parse'}`);
        this.store.decide(this.folder, file, now.content, action === 'trust' ? 'trusted' : 'ignored');
      }
      await this.apply();
      const after = this.inspect(file);
      return after && shown(after);
    });
  }

  /** Starts what is trusted and stops what no longer is (at start, and whenever the store may have changed). */
  sync(): Promise<void> {
    return this.serial(() => this.apply());
  }

  /** Notices `skein trust` run in a terminal while this skein runs. */
  watch(): void {
    if (this.watching) return;
    this.watching = true;
    fs.watchFile(this.store.file, { interval: STORE_POLL_MS, persistent: false }, this.onStoreChange);
  }

  close(): void {
    if (this.watching) fs.unwatchFile(this.store.file, this.onStoreChange);
    this.watching = false;
  }

  private inspect(file = '.mcp.json') {
    return file === '.mcp.json' ? inspectProjectFile(this.folder, this.decision(file), this.userServers) : inspectGatedFile(this.folder, file, this.decision(file));
  }

  /** The stored decision; an unreadable trust.json trusts nothing (the file is shown as undecided). */
  private decision(file: string) {
    try {
      return this.store.get(this.folder, file);
    } catch (err) {
      if (!(err instanceof TrustStoreError)) throw err;
      log.warn(err.message);
      return undefined;
    }
  }

  private async apply(): Promise<void> {
    const decision = this.decision('.mcp.json');
    const trustedHash = decision?.decision === 'trusted' ? decision.sha256 : undefined;
    if (this.running && this.running.sha256 === trustedHash) return;
    // What runs (if anything) is no longer the trusted content: it stops.
    await this.stop();
    if (!trustedHash) return;
    // Started only when the file on disk is the trusted content, from the bytes that were hashed.
    const file = this.inspect();
    if (!file || file.sha256 !== trustedHash || !file.parsed) return;
    const servers = new Map([...file.parsed].filter(([name]) => !this.userServers.has(name)));
    this.running = { sha256: file.sha256, names: [...servers.keys()] };
    log.info(`starting the MCP servers of the trusted ${file.path}: ${[...servers.keys()].join(', ') || 'none'}`);
    await this.hub.add(servers);
  }

  private async stop(): Promise<void> {
    if (!this.running) return;
    const names = this.running.names;
    this.running = undefined;
    await this.hub.remove(names);
  }

  /** One change at a time: a decision and a store check never interleave their starts and stops. */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}
