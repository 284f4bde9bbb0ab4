// The list-level socket /ws/sessions: every session's state, title and
// activity, live. It opens with the whole list (archived sessions included,
// marked) and the projects, then sends a `session` frame for each change,
// `session_removed` for each deletion and `projects` when they change. Clients send nothing on it.
import type { WebSocket } from 'ws';
import type { SessionListFrame } from '../../shared/protocol.js';
import type { Sessions } from '../sessions/sessions.js';

/** A list client that falls this far behind is dropped (it reconnects and gets the whole list again). */
const MAX_LIST_BUFFER = 4 * 1024 * 1024;

export function serveSessionList(ws: WebSocket, sessions: Sessions): void {
  const send = (frame: SessionListFrame) => {
    if (ws.readyState !== ws.OPEN) return;
    ws.send(JSON.stringify(frame));
    if (ws.bufferedAmount > MAX_LIST_BUFFER) ws.close(1013, 'too far behind: reconnect');
  };
  const scanning = sessions.scanning;
  send({ type: 'sessions', sessions: sessions.list({ archived: true }), ...(scanning && { scanning }) });
  const unsubscribe = sessions.onListChange(send);
  // The projects and the pending requests to add one (every tab shows an editor's request).
  const projects = () => send({ type: 'projects', projects: sessions.projects.list(), requests: sessions.projectRequests.pending() });
  projects();
  const unsubscribeProjects = sessions.projects.onChange(projects);
  const closeTab = sessions.projectRequests.shownInTab();
  ws.on('close', () => {
    unsubscribe();
    unsubscribeProjects();
    closeTab();
  });
  ws.on('error', () => ws.terminate());
  ws.on('message', () => undefined);
}
