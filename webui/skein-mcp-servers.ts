// <skein-mcp-servers>: the MCP servers of this skein (GET /api/mcp), in the
// sidebar under the sessions: each with its state (a failed one with its
// error and next attempt), and its tools in a collapsible list (a skipped
// tool with the reason). Nothing is shown when no server is configured.
import { css, html, LitElement, nothing } from 'lit';
import type { McpServerInfo } from '../shared/protocol.js';

const STATE_WORDS: Record<McpServerInfo['state'], string> = { starting: 'starting…', ready: 'ready', failed: 'failed', stopped: 'stopped' };

export class SkeinMcpServers extends LitElement {
  static override properties = { servers: { attribute: false } };
  declare servers: McpServerInfo[];

  constructor() {
    super();
    this.servers = [];
  }

  static override styles = css`
    :host { display: block; border-top: 1px solid var(--border); padding: 6px 8px 10px; font-size: 13px; }
    h2 { font-size: 12px; text-transform: uppercase; letter-spacing: 0.05em; color: var(--muted); margin: 6px 8px 4px; }
    ul { list-style: none; margin: 0; padding: 0; }
    li.server { padding: 4px 8px; }
    .head { display: flex; align-items: center; gap: 6px; }
    .name { font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .transport { color: var(--muted); font-size: 12px; }
    .state { margin-left: auto; font-size: 12px; }
    .dot { width: 8px; height: 8px; border-radius: 50%; flex: none; background: var(--muted); }
    .ready .dot { background: var(--ok); } .failed .dot { background: var(--danger); } .starting .dot { background: var(--warn); }
    .failed .state { color: var(--danger); }
    .error { color: var(--danger); font-size: 12px; margin: 2px 0 0 14px; overflow-wrap: anywhere; }
    details { margin: 2px 0 0 14px; }
    summary { cursor: pointer; color: var(--muted); font-size: 12px; }
    summary:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
    .tools li { font-family: var(--mono, monospace); font-size: 12px; padding: 1px 0; overflow-wrap: anywhere; }
    .tools .skipped { color: var(--muted); text-decoration: line-through; }
    .why { font-family: inherit; text-decoration: none; display: block; color: var(--warn); }
  `;

  override render() {
    if (!this.servers.length) return nothing;
    return html`
      <h2 id="mcp-h">MCP servers</h2>
      <ul aria-labelledby="mcp-h" data-testid="mcp-servers">
        ${this.servers.map((s) => {
          const usable = s.tools.filter((t) => !t.skipped);
          return html`<li class="server ${s.state}" data-server=${s.name}>
            <div class="head">
              <span class="dot" aria-hidden="true"></span>
              <span class="name">${s.name}</span>
              <span class="transport">${s.transport}</span>
              <span class="state" data-testid="mcp-state">${STATE_WORDS[s.state]}${s.restarts ? ` · ${s.restarts} restart${s.restarts === 1 ? '' : 's'}` : ''}</span>
            </div>
            ${s.error ? html`<p class="error" role="note">${s.error}${s.nextAttemptAt ? html` · next try ${new Date(s.nextAttemptAt).toLocaleTimeString()}` : nothing}</p>` : nothing}
            ${s.tools.length
              ? html`<details>
                  <summary>${usable.length} tool${usable.length === 1 ? '' : 's'}${s.tools.length > usable.length ? `, ${s.tools.length - usable.length} skipped` : ''}</summary>
                  <ul class="tools">
                    ${s.tools.map(
                      (t) => html`<li title=${t.description}>
                        <span class=${t.skipped ? 'skipped' : ''}>${t.name}</span>${t.skipped ? html`<span class="why">skipped: ${t.skipped}</span>` : nothing}
                      </li>`,
                    )}
                  </ul>
                </details>`
              : nothing}
          </li>`;
        })}
      </ul>
    `;
  }
}
customElements.define('skein-mcp-servers', SkeinMcpServers);
