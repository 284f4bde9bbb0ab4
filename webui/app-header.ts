// The header of <skein-app> (a part of its template): the sessions button,
// the name, the session's title with its folder and branch beneath, its
// state, its model and the connection. Nothing in it is cut: the title and the
// folder wrap, and on a phone the title takes a row of its own.
import { html } from 'lit';
import type { AgentState } from '../shared/protocol.js';
import type { ConnectionStatus } from './connection.js';
import type { ModelChoice } from './api.js';
import { STATE_WORDS } from './format.js';
import { workspaceLine, type WorkspaceBarHost } from './workspace-bar.js';
import './skein-model-picker.js';

const STATUS_TEXT: Record<ConnectionStatus, string> = { open: 'connected', connecting: 'connecting…', closed: 'offline, retrying…' };

export interface HeaderHost extends WorkspaceBarHost {
  drawer: boolean;
  models: ModelChoice[];
  status: ConnectionStatus;
  switchModel(model: string, effort?: string): Promise<void>;
}

export function appHeader(host: HeaderHost, view: { title: string; state: AgentState; efforts: string[] | undefined }) {
  const busy = view.state !== 'WaitingForUserInput';
  return html`<header>
    <button class="menu" aria-label="Sessions" aria-expanded=${host.drawer} @click=${() => (host.drawer = !host.drawer)}>☰</button>
    <span class="brand">skein</span>
    <div class="heading">
      <h1 class="title" title=${view.title}>${view.title}</h1>
      ${workspaceLine(host)}
    </div>
    <span class="state ${busy ? 'busy' : ''}" role="status" aria-live="polite">
      <span class="pulse" aria-hidden="true"></span>${STATE_WORDS[view.state]}<span class="raw" data-testid="agent-state" aria-hidden="true">${view.state}</span>
    </span>
    <skein-model-picker .models=${host.models} .current=${host.snapshot?.model ?? ''} .busy=${busy} .effort=${host.snapshot?.effort ?? 'default'}
      .efforts=${view.efforts}
      @switch-model=${(e: CustomEvent<{ model: string; effort?: string }>) => void host.switchModel(e.detail.model, e.detail.effort)}></skein-model-picker>
    <span class="conn ${host.status}" title="Live connection to the server"><span class="dot" aria-hidden="true"></span>${STATUS_TEXT[host.status]}</span>
  </header>`;
}
