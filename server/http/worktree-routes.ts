// POST /api/sessions/:id/worktree/{commit,merge,apply,discard,push}: the
// Changes panel's actions on a session's own worktree (worktree-actions.ts).
// The user's, from the UI or the API: the model has no tool for them. Each is
// refused while the agent works (it could write while git merges), one at a
// time per session, and recorded in the timeline as a `worktree` event.
import type express from 'express';
import type { Response } from 'express';
import type { WorktreeActionResult, WorktreeEvent } from '../../shared/protocol.js';
import { WorktreeCommitBodySchema, WorktreeDiscardBodySchema } from '../../shared/wire/requests.js';
import type { Sessions } from '../sessions/sessions.js';
import { GitError } from '../workspace/git.js';
import { applyWorktree, commitWorktree, discardWorktree, mergeWorktree, pushWorktree, WorktreeActionError, type WorktreeAction } from '../workspace/worktree-actions.js';
import { valid } from './validate.js';

type Live = NonNullable<Awaited<ReturnType<Sessions['open']>>>;

export function mountWorktreeRoutes(app: express.Express, sessions: Sessions): void {
  /** Sessions with an action under way: a second one waits its turn by being refused. */
  const acting = new Set<string>();

  const action = (name: WorktreeAction, run: (live: Live, body: unknown, res: Response) => Promise<WorktreeActionResult> | undefined) => {
    app.post(`/api/sessions/:id/worktree/${name}`, async (req, res) => {
      const live = await sessions.open(req.params.id);
      if (!live) return void res.status(404).json({ error: 'unknown session' });
      const { session } = live;
      if (session.state !== 'WaitingForUserInput') return void res.status(409).json({ error: `the agent is working: cancel it or wait for its turn to end, then ${name}`, code: 'busy' });
      if (acting.has(session.id)) return void res.status(409).json({ error: 'another action on this worktree is under way: wait for it', code: 'busy' });
      acting.add(session.id);
      try {
        const running = run(live, req.body ?? {}, res);
        if (!running) return; // a 400 was sent
        // A message sent meanwhile is logged; its turn starts once git is done.
        const result = await session.holdTurnsWhile(running);
        session.append(noticeOf(name, 'done', result));
        await session.durable();
        res.json(result);
      } catch (err) {
        if (err instanceof WorktreeActionError) {
          // A merge stopped on conflicts is news for the timeline: what was tried, nothing lost.
          if (err.code === 'merge_conflict') {
            session.append(noticeOf(name, 'stopped', { message: `Merge stopped: ${err.message}.`, ...(err.files && { files: err.files }) }));
            await session.durable();
          }
          res.status(409).json({ error: err.message, ...(err.code && { code: err.code }), ...(err.files && { files: err.files }) });
        } else if (err instanceof GitError) res.status(500).json({ error: err.message });
        else throw err;
      } finally {
        acting.delete(session.id);
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
  action('push', (live) => pushWorktree(workspace(live)));
}

function noticeOf(action: WorktreeAction, outcome: WorktreeEvent['outcome'], result: WorktreeActionResult): Omit<WorktreeEvent, 'seq' | 'ts'> {
  const files = result.conflicts?.length ? result.conflicts : result.files;
  return { kind: 'worktree', action, outcome, message: result.message, ...(result.commit && { commit: result.commit }), ...(files?.length && { files: files.slice(0, 100) }) };
}
