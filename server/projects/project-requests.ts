// Requests to add a folder to the projects: an editor's session/new (through
// `skein acp`) for a folder no project holds. The request waits for the user,
// who answers in the editor (its permission prompt) or in any web UI tab,
// whichever first; the other prompt goes away (the list socket carries the
// pending requests, and the editor's agent is waiting on wait()).
import crypto from 'node:crypto';
import path from 'node:path';
import type { ProjectRequest } from '../../shared/protocol.js';
import type { Projects } from './projects.js';

/** Decided requests kept for a late reader (the editor's agent waiting on one). */
const KEPT_DECIDED = 100;

/**
 * A pending request lives while its asker waits on it (GET ?wait=, asked
 * again every 25 s by `skein acp`): this long without a waiter (the editor
 * closed, `skein acp` killed), it is withdrawn and every prompt goes away.
 */
export const UNWATCHED_MS = 15_000;

export class RequestDecidedError extends Error {
  override readonly name = 'RequestDecidedError';
  constructor(readonly request: ProjectRequest) {
    super(`the request to open ${request.folder} was already ${request.state === 'allowed' ? 'allowed' : 'denied'}`);
  }
}

export class ProjectRequests {
  private readonly requests = new Map<string, ProjectRequest>();
  private readonly waiters = new Map<string, Set<(request: ProjectRequest) => void>>();
  /** Pending requests nobody waits on, and when they are withdrawn. */
  private readonly unwatched = new Map<string, NodeJS.Timeout>();

  /** Web UI tabs open now (list sockets): each shows every pending request. */
  private tabs = 0;

  constructor(private readonly projects: Projects, private readonly unwatchedMs = UNWATCHED_MS) {}

  /** A web UI tab that shows the requests opened; the function it returns closes it. */
  shownInTab(): () => void {
    this.tabs++;
    let open = true;
    return () => {
      if (open) this.tabs--;
      open = false;
    };
  }

  /** How many web UI tabs show a request now: with none, an editor that cannot ask has nobody to ask. */
  tabsOpen(): number {
    return this.tabs;
  }

  /** Asks to add a folder (checked first: a refused one throws ProjectError). Already inside a project: allowed at once, nothing asked. */
  ask(folder: string, from: string): ProjectRequest {
    if (path.isAbsolute(folder) && this.projects.contains(folder)) return { id: crypto.randomUUID(), folder, state: 'allowed', from };
    const real = this.projects.check(folder);
    if (this.projects.contains(real)) return { id: crypto.randomUUID(), folder: real, state: 'allowed', from };
    // The same folder asked twice (two editor windows) is one question.
    const same = this.pending().find((r) => r.folder === real);
    if (same) return same;
    const request: ProjectRequest = { id: crypto.randomUUID(), folder: real, state: 'pending', from };
    this.requests.set(request.id, request);
    this.watch(request.id);
    this.projects.changed();
    return request;
  }

  get(id: string): ProjectRequest | undefined {
    return this.requests.get(id);
  }

  pending(): ProjectRequest[] {
    return [...this.requests.values()].filter((r) => r.state === 'pending');
  }

  /** The user's answer: allowed adds the folder. A request decided before throws RequestDecidedError; unknown: undefined. */
  decide(id: string, decision: 'allow' | 'deny'): ProjectRequest | undefined {
    const request = this.requests.get(id);
    if (!request) return undefined;
    if (request.state !== 'pending') throw new RequestDecidedError(request);
    // Checked again: the folder may be gone (or have become a link) since it was asked.
    if (decision === 'allow') this.projects.add(request.folder);
    return this.settle(request, decision === 'allow' ? 'allowed' : 'denied');
  }

  /**
   * The asker gave up (the editor cancelled its session/new or went away):
   * the request ends as denied, its prompts go away. Decided already: as it is.
   */
  withdraw(id: string): ProjectRequest | undefined {
    const request = this.requests.get(id);
    return request?.state === 'pending' ? this.settle(request, 'denied') : request;
  }

  private settle(request: ProjectRequest, state: 'allowed' | 'denied'): ProjectRequest {
    const id = request.id;
    clearTimeout(this.unwatched.get(id));
    this.unwatched.delete(id);
    const decided: ProjectRequest = { ...request, state };
    this.requests.set(id, decided);
    this.forgetOld();
    this.projects.changed();
    for (const wake of this.waiters.get(id) ?? []) wake(decided);
    this.waiters.delete(id);
    return decided;
  }

  /** The request once decided, or as it is after `ms`. */
  wait(id: string, ms: number): Promise<ProjectRequest | undefined> {
    const request = this.requests.get(id);
    if (!request || request.state !== 'pending' || ms <= 0) return Promise.resolve(request);
    return new Promise((resolve) => {
      const waiters = this.waiters.get(id) ?? new Set();
      this.waiters.set(id, waiters);
      // Watched while someone waits on it.
      clearTimeout(this.unwatched.get(id));
      this.unwatched.delete(id);
      const wake = (decided: ProjectRequest) => {
        clearTimeout(timer);
        resolve(decided);
      };
      const timer = setTimeout(() => {
        waiters.delete(wake);
        if (!waiters.size) this.watch(id);
        resolve(this.requests.get(id));
      }, ms);
      timer.unref();
      waiters.add(wake);
    });
  }

  /** Withdraws a pending request if nobody waits on it within `unwatchedMs`. */
  private watch(id: string): void {
    clearTimeout(this.unwatched.get(id));
    const timer = setTimeout(() => {
      this.unwatched.delete(id);
      if (!this.waiters.get(id)?.size) this.withdraw(id);
    }, this.unwatchedMs);
    timer.unref();
    this.unwatched.set(id, timer);
  }

  private forgetOld(): void {
    const decided = [...this.requests.values()].filter((r) => r.state !== 'pending');
    for (const old of decided.slice(0, Math.max(0, decided.length - KEPT_DECIDED))) this.requests.delete(old.id);
  }
}
