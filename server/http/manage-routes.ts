// REST routes of session management: rename and archive (PATCH), delete to
// the trash and restore, export (JSONL, Markdown), fork, the Changes of a
// session's folder, and the folders a new session may work in.
import fs from 'node:fs';
import { logLines } from '../store/jsonl-export.js';
import { EventLog } from '../store/event-log.js';
import type express from 'express';
import type { Response } from 'express';
import { SessionBusyError, type Sessions } from '../sessions/sessions.js';
import { markdownPieces } from '../manage/export-markdown.js';
import { ForkPointError } from '../manage/fork.js';
import { ROUTES } from '../../shared/wire/rest.js';
import { PROJECT_REMOVED, projectGone } from './project-gone.js';
import { runningActions } from './worktree-running.js';
import { valid } from './validate.js';
import { changesOf } from '../workspace/changes.js';
import { sessionPaths } from '../workspace/session-paths.js';
import { worktreeStatus } from '../workspace/worktree-actions.js';
import { checkpointsOf } from '../agent/tool-runner.js';
import { GitError } from '../workspace/git.js';
import { DirtyWorktreeError, WorkspaceError } from '../workspace/workspace.js';

export function mountManageRoutes(app: express.Express, sessions: Sessions): void {
  app.get('/api/workdirs', (_req, res) => {
    res.json({ roots: sessions.roots() });
  });

  app.patch('/api/sessions/:id', async (req, res) => {
    const body = valid(ROUTES['PATCH /api/sessions/:id'].body, req.body, res);
    if (!body) return;
    const { title, archived } = body;
    // PostgreSQL: its events are read first (update() itself is synchronous).
    await sessions.open(req.params.id);
    const snapshot = sessions.update(req.params.id, { ...(title !== undefined && { title }), ...(archived !== undefined && { archived }) });
    if (!snapshot) return notFound(res);
    res.json(snapshot);
  });

  app.delete('/api/sessions/:id', async (req, res) => {
    const query = valid(ROUTES['DELETE /api/sessions/:id'].query.pick({ worktree: true }), req.query, res);
    if (!query) return;
    const { worktree } = query;
    const force = req.query.force === '1' || req.query.force === 'true';
    // Never from under a running git (its worktree removed while it pushes): cancel the push, or wait for it.
    const acting = runningActions(sessions).get(req.params.id);
    if (acting) return void res.status(409).json({ error: `a ${acting.action} on this session's worktree is under way: ${acting.action === 'push' ? 'cancel it (Cancel in Changes) or ' : ''}wait for it to end, then delete`, code: 'busy' });
    try {
      if (!(await sessions.delete(req.params.id, { removeWorktree: worktree === 'remove', force }))) return notFound(res);
      res.json({ deleted: true, trash: true, worktreeRemoved: worktree === 'remove' });
    } catch (err) {
      if (err instanceof SessionBusyError) res.status(409).json({ error: err.message, code: 'busy' });
      else if (err instanceof DirtyWorktreeError) res.status(409).json({ error: err.message, code: 'dirty_worktree', files: err.files });
      else if (err instanceof GitError) res.status(500).json({ error: err.message });
      else throw err;
    }
  });

  app.get('/api/trash', (_req, res) => {
    res.json({ sessions: sessions.trash.list() });
  });

  app.post('/api/trash/:id/restore', async (req, res) => {
    const live = await sessions.restore(req.params.id);
    if (!live) return void res.status(404).json({ error: 'no such session in the trash' });
    // From the database store, the events are inserted again: answered once they are.
    await live.session.durable();
    await live.session.log.flushed?.();
    res.json(live.session.snapshot());
  });

  app.get('/api/sessions/:id/export', async (req, res) => {
    const live = await sessions.open(req.params.id);
    if (!live) return notFound(res);
    const query = valid(ROUTES['GET /api/sessions/:id/export'].query, req.query, res);
    if (!query) return;
    const format = query.format ?? 'jsonl';
    const { log } = live.session;
    if (format === 'jsonl') {
      // The file byte for byte; from the database, the same format rebuilt from its rows.
      // attachment() types by the name's extension: the type docs/wire-protocol.md promises is set after it.
      res.attachment(`${live.session.id}.jsonl`).type('application/x-ndjson');
      if (!(log instanceof EventLog)) return void res.send(logLines(log.header, log.all()));
      // Streamed (a 150 MB log is never whole in memory, nor read while the event loop waits), up to its size now: appends after are not half in it.
      const { size } = fs.statSync(log.file);
      res.setHeader('content-length', size);
      if (size === 0) return void res.end();
      const stream = fs.createReadStream(log.file, { start: 0, end: size - 1 });
      stream.on('error', (err) => res.destroy(err));
      stream.pipe(res);
    } else {
      // Built and sent a piece at a time (the loop free between pieces); the events as they are now.
      res.attachment(`${live.session.id}.md`).type('text/markdown; charset=utf-8');
      await sendPieces(res, markdownPieces(log.header, live.session.title(), log.all().slice()));
    }
  });

  app.post('/api/sessions/:id/fork', async (req, res) => {
    const body = valid(ROUTES['POST /api/sessions/:id/fork'].body, req.body ?? {}, res);
    if (!body) return;
    const { seq, edit } = body;
    const source = await sessions.open(req.params.id);
    const gone = source && projectGone(sessions, source);
    if (gone) return void res.status(409).json({ error: gone, code: PROJECT_REMOVED });
    try {
      const live = await sessions.fork(req.params.id, seq, { ...(edit && { edit }) });
      if (!live) return notFound(res);
      // The fork's closing of a cut turn is visible to the first GET after this answer.
      await live.session.durable();
      res.status(201).json({ id: live.session.id });
    } catch (err) {
      if (err instanceof ForkPointError || err instanceof WorkspaceError || err instanceof GitError) res.status(400).json({ error: err.message });
      else throw err;
    }
  });

  app.get('/api/sessions/:id/changes', async (req, res) => {
    const live = await sessions.open(req.params.id);
    if (!live) return notFound(res);
    const query = valid(ROUTES['GET /api/sessions/:id/changes'].query, req.query, res);
    if (!query) return;
    const workspace = live.session.log.header.workspace;
    try {
      // A folder shared with other sessions: only the files this session changed (all=1: everything in the folder).
      const only = workspace?.repo && !workspace.worktree && query.all !== '1'
        ? sessionPaths(live.session.log.all(), workspace.workDir, workspace.repo, checkpointsOf(live.session, workspace.workDir).touched())
        : undefined;
      const report = await changesOf(workspace, sessions.roots()[0]!, only);
      if (workspace?.worktree && report.git) report.worktree = await worktreeStatus(workspace);
      res.json(report);
    } catch (err) {
      if (err instanceof GitError) res.status(500).json({ error: err.message });
      else throw err;
    }
  });
}

function notFound(res: Response): void {
  res.status(404).json({ error: 'unknown session' });
}

/** Writes the pieces as the client takes them (a slow reader holds back the building, not memory); a client gone stops it. */
async function sendPieces(res: Response, pieces: AsyncGenerator<string>): Promise<void> {
  for await (const piece of pieces) {
    if (res.destroyed) return; // leaving the loop ends the generator
    if (!res.write(piece)) await drained(res);
  }
  res.end();
}

function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
