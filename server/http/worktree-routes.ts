// POST /api/sessions/:id/worktree/{commit,merge,apply,discard,push}: the
// Changes panel's actions on a session's own worktree (worktree-actions.ts).
// The user's, from the UI or the API: the model has no tool for them. Each is
// refused while the agent works (it could write while git merges), one at a
// time per session, and recorded in the timeline as a `worktree` event.
// POST /api/sessions/:id/worktree/cancel stops a push (the one action that
// waits on a remote); a local action ends on its own, quickly.
import type express from 'express';
import type { Response } from 'express';
import type { WorktreeActionResult, WorktreeEvent } from '../../shared/protocol.js';
import { WorktreeCommitBodySchema, WorktreeDiscardBodySchema } from '../../shared/wire/requests.js';
import type { Sessions } from '../sessions/sessions.js';
import { GitError } from '../workspace/git.js';
import { GitStoppedError } from '../workspace/git-network.js';
import { applyWorktree, commitWorktree, discardWorktree, mergeWorktree, pushWorktree, WorktreeActionError, type WorktreeAction } from '../workspace/worktree-actions.js';
import { valid } from './validate.js';
import { runningActions } from './worktree-running.js';
import { PROJECT_REMOVED, projectGone } from './project-gone.js';

type Live = NonNullable<Awaited<ReturnType<Sessions['open']>>>;

export interface WorktreeRouteOptions {
  /** SKEIN_GIT_NETWORK_TIMEOUT_MS: a push is stopped after this long. */
  gitNetworkTimeoutMs?: number;
}

export function mountWorktreeRoutes(app: express.Express, sessions: Sessions, options: WorktreeRouteOptions = {}): void {
  const running = runningActions(sessions);
  const timeoutMs = options.gitNetworkTimeoutMs ?? 120_000;

  const action = (name: WorktreeAction, run: (live: Live, body: unknown, res: Response, signal: AbortSignal) => Promise<WorktreeActionResult> | undefined) => {
    app.post(`/api/sessions/:id/worktree/${name}`, async (req, res) => {
      const live = await sessions.open(req.params.id);
      if (!live) return void res.status(404).json({ error: 'unknown session' });
      const { session } = live;
      const gone = projectGone(sessions, live);
      if (gone) return void res.status(409).json({ error: gone, code: PROJECT_REMOVED });
      if (session.state !== 'WaitingForUserInput') return void res.status(409).json({ error: `the agent is working: cancel it or wait for its turn to end, then ${name}`, code: 'busy' });
      const entry = running.start(session.id, name);
      if (!entry) return void res.status(409).json({ error: 'another action on this worktree is under way: wait for it', code: 'busy' });
      try {
        const started = run(live, req.body ?? {}, res, entry.controller.signal);
        if (!started) return; // a 400 was sent
        // A message sent meanwhile is logged; its turn starts once git is done.
        const result = await session.holdTurnsWhile(started);
        session.append(noticeOf(name, 'done', result));
        await session.durable();
        res.json(result);
      } catch (err) {
        if (err instanceof GitStoppedError) {
          // A push stopped (timed out, cancelled) is news for the timeline: the remote may or may not have the branch.
          session.append(noticeOf(name, 'stopped', { message: `Push stopped: ${err.message}.` }));
          await session.durable();
          res.status(err.why === 'timeout' ? 504 : 409).json({ error: err.message, code: err.why });
        } else if (err instanceof WorktreeActionError) {
          // A merge stopped on conflicts is news for the timeline: what was tried, nothing lost.
          if (err.code === 'merge_conflict') {
            session.append(noticeOf(name, 'stopped', { message: `Merge stopped: ${err.message}.`, ...(err.files && { files: err.files }) }));
            await session.durable();
          }
          res.status(409).json({ error: err.message, ...(err.code && { code: err.code }), ...(err.files && { files: err.files }) });
        } else if (err instanceof GitError) {
          // git refused (a lock, a state of the repository): its own words, nothing half-done (each action puts back what it began).
          const worktree = workspace(live)?.worktree;
          res.status(409).json({ error: worktree ? err.message.replaceAll(worktree, "the session's worktree") : err.message, code: 'git_failed' });
        } else throw err;
      } finally {
        running.end(session.id, entry);
      }
    });
  };

  const workspace = (live: Live) => live.session.log.header.workspace;
  action('commit', (live, body, res) => {
    const parsed = valid(WorktreeCommitBodySchema, body, res);
    return parsed && commitWorktree(workspace(live), parsed.message);
  });
  action('merge', (live) => mergeWorktree(workspace(live), live.session.id));
  action('apply', (live) => applyWorktree(workspace(live)));
  action('discard', (live, body, res) => (valid(WorktreeDiscardBodySchema, body, res) ? discardWorktree(workspace(live)) : undefined));
  action('push', (live, _body, _res, signal) => pushWorktree(workspace(live), { timeoutMs, signal }));

  app.post('/api/sessions/:id/worktree/cancel', async (req, res) => {
    const live = await sessions.open(req.params.id);
    if (!live) return void res.status(404).json({ error: 'unknown session' });
    const entry = running.get(live.session.id);
    if (!entry) return void res.status(409).json({ error: 'no action on this worktree is under way', code: 'nothing' });
    if (entry.action !== 'push') return void res.status(409).json({ error: `a ${entry.action} is not stopped midway (it would leave the repository half-done); it ends on its own`, code: 'busy' });
    entry.controller.abort();
    res.status(202).json({ cancelled: entry.action });
  });
}

function noticeOf(action: WorktreeAction, outcome: WorktreeEvent['outcome'], result: WorktreeActionResult): Omit<WorktreeEvent, 'seq' | 'ts'> {
  const files = result.conflicts?.length ? result.conflicts : result.files;
  return { kind: 'worktree', action, outcome, message: result.message, ...(result.commit && { commit: result.commit }), ...(files?.length && { files: files.slice(0, 100) }) };
}
