// The slash commands over ACP, each the way an editor can show it: the
// answer is the agent's message of that prompt (the turn ends with
// `end_turn`). /compact is not here: the server reads it from the message.
// - /clear and /fork make a new skein session and say its id (the editor
//   opens it with session/load; `_meta.skein.sessionId` carries it too);
// - /export sends the Markdown transcript back as an embedded resource;
// - /rewind lists the points to rewind to; `/rewind N` shows what putting the
//   files back to event N changes (its diff) and does it; `/rewind N fork`
//   forks the conversation there too.
import type { ContentBlock } from '@agentclientprotocol/sdk';
import { parseCompactCommand, type RewindPreview, type SkeinEvent } from '../../shared/protocol.js';
import type { Api } from '../cli/api.js';
import type { Connection } from '../cli/connection.js';
import { applySessionSettings, refusedSetting } from '../cli/session-settings.js';
import { helpText, modeFor, MODES, parseRewind, type Slash } from './commands.js';
import type { AcpSession } from './session.js';

/** Rewind points listed by a bare /rewind (the latest ones). */
const REWIND_POINTS = 10;

export async function runSlash(slash: Slash, target: AcpSession, api: Api, connection: Pick<Connection, 'model' | 'settings'>): Promise<void> {
  const route = `/api/sessions/${encodeURIComponent(target.id)}`;
  switch (slash.name) {
    case 'help':
      return target.say(helpText());
    case 'mode': {
      const chosen = modeFor(slash.arg);
      if ('error' in chosen) return target.say(`/mode takes one of ${MODES.map((m) => m.id).join(', ')}`);
      await target.setMode(chosen.mode);
      return target.say(chosen.said);
    }
    case 'model': {
      if (!slash.arg) return target.say('/model takes a model name, e.g. /model claude-sonnet-4-5');
      await api.request('POST', `${route}/model`, { model: slash.arg });
      return target.say(`The session switches to ${slash.arg} at the next safe point.`);
    }
    case 'clear': {
      const folder = (await api.session(target.id)).workspace?.folder;
      const model = connection.model;
      const asked = connection.settings.model;
      const { id } = await api
        .request<{ id: string }>('POST', '/api/sessions', { ...(folder && { folder }), ...(model && { model }) })
        .catch((err: unknown): never => {
          if (asked) refusedSetting(asked, err);
          throw err;
        });
      // As session/new: the mode (and model, effort) this agent was asked for, read back, before the id is given; never the server's in silence.
      const snapshot = await applySessionSettings(api, id, connection.settings);
      const mode = snapshot.mode ? ` (approval mode ${snapshot.mode})` : '';
      return target.say(`Started a new session ${id}${folder ? ` in ${folder}` : ''}${mode}; this one stays as it is. Open it with session/load (your editor's session history).`, { sessionId: id });
    }
    case 'fork': {
      const snapshot = await api.session(target.id);
      const { id } = await api.request<{ id: string }>('POST', `${route}/fork`, { seq: snapshot.lastSeq });
      return target.say(`Forked this session up to event ${snapshot.lastSeq} into ${id}. Open it with session/load.`, { sessionId: id });
    }
    case 'export': {
      const markdown = await api.text(`${route}/export?format=md`);
      const resource: ContentBlock = { type: 'resource', resource: { uri: `skein://sessions/${target.id}.md`, mimeType: 'text/markdown', text: markdown } };
      await target.say(`This session as Markdown (${markdown.length} characters):`);
      return target.send1(resource);
    }
    case 'rewind':
      return rewind(slash.arg, target, api, route);
    case 'compact':
      throw new Error('/compact is the server\'s: sent as a message');
  }
}

async function rewind(arg: string, target: AcpSession, api: Api, route: string): Promise<void> {
  const events = await api.events(target.id);
  const messages = events.filter((e): e is Extract<SkeinEvent, { kind: 'user' }> => e.kind === 'user' && !parseCompactCommand(e.text));
  const asked = parseRewind(arg);
  if (asked?.kind === 'list') {
    if (!messages.length) return target.say('/rewind: nothing to rewind yet (no message in this session).');
    const points = messages.slice(-REWIND_POINTS).map((m) => `- /rewind ${Math.max(1, m.seq - 1)}: before "${firstLine(m.text)}"`);
    return target.say(['Points to rewind the files to (the conversation stays; add "fork" to fork it there too):', ...points].join('\n'));
  }
  if (!asked) return target.say('/rewind takes an event number, optionally followed by "fork": /rewind 12 or /rewind 12 fork. /rewind alone lists the points.');
  const { seq } = asked;
  // Answered as the other bad arguments are (an agent message), not as a failed prompt.
  const last = events.at(-1)?.seq ?? 0;
  if (!Number.isSafeInteger(seq) || seq < 1 || seq > last) return target.say(`/rewind ${seq}: no such event; this session's events are 1 to ${last}. /rewind alone lists the points.`);
  const preview = await api.request<RewindPreview>('GET', `${route}/rewind?seq=${seq}`);
  const done = await api.request<{ restored: string[]; id?: string }>('POST', `${route}/rewind`, { seq, ...(asked.fork && { fork: true }) });
  const files = preview.files.length ? preview.files.map((f) => `- ${f.path}: ${f.change}`).join('\n') : 'No file changed since then.';
  const diff = preview.diff.trim() ? `\n\nWhat it undid:\n\`\`\`diff\n${preview.diff.trimEnd()}\n\`\`\`` : '';
  const notes = preview.notes.length ? `\n\n${preview.notes.join('\n')}` : '';
  const fork = done.id ? `\n\nThe conversation was forked there: ${done.id} (open it with session/load).` : '';
  return target.say(`Rewound the files to event ${seq}:\n${files}${diff}${notes}${fork}`, done.id ? { sessionId: done.id } : undefined);
}

function firstLine(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line || '(images)';
}

