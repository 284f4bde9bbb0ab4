// <skein-trust-prompt>: a working folder's .mcp.json or agent file
// (.skein/agents/NAME.md) that is not trusted (never decided, or changed
// since the user decided). Shows what it would run, as written — each stdio
// server's command, arguments and environment, each http server's URL and
// header names; an agent file's agent: its tools, model, mode and
// instructions — the diff from the content last
// trusted, and Trust / Ignore. The decision names the sha256 of the content
// shown; the server refuses it (409) if the file changed meanwhile, and the
// app then shows the file again. Plain text only (lit escapes it).
import { css, html, LitElement, nothing } from 'lit';
import type { ProjectAgentPreview, ProjectFileTrust, ProjectServerPreview } from '../shared/protocol.js';
import './skein-diff.js';

export interface TrustDetail {
  file: ProjectFileTrust;
  decision: 'trust' | 'ignore';
}

export class SkeinTrustPrompt extends LitElement {
  static override properties = { files: { attribute: false }, busy: { state: true } };
  declare files: ProjectFileTrust[];
  declare busy: boolean;

  constructor() {
    super();
    this.files = [];
    this.busy = false;
  }

  static override styles = css`
    :host { display: block; }
    section { border: 1px solid var(--warn); background: var(--warn-bg); border-radius: 8px; margin: 8px 12px; padding: 10px 12px; font-size: 13px; }
    h2 { font-size: 14px; margin: 0 0 4px; }
    p { margin: 4px 0; }
    .path, code, pre { font-family: var(--mono, monospace); font-size: 12.5px; overflow-wrap: anywhere; }
    ul { margin: 6px 0; padding-left: 18px; }
    li { margin: 3px 0; }
    pre { margin: 2px 0; white-space: pre-wrap; background: var(--code-bg); padding: 4px 6px; border-radius: 4px; }
    .muted { color: var(--muted); }
    .error { color: var(--danger); }
    .actions { display: flex; gap: 8px; margin-top: 8px; }
    button { font: inherit; padding: 4px 12px; border-radius: 6px; border: 1px solid var(--border); background: var(--bg, transparent); color: inherit; cursor: pointer; }
    button.trust { background: var(--accent); color: var(--accent-fg); border-color: var(--accent); }
    button:disabled { opacity: 0.6; cursor: default; }
    button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
    details { margin-top: 6px; }
    summary { cursor: pointer; color: var(--muted); }
  `;

  override willUpdate(changed: Map<string, unknown>) {
    // A new list (after a decision, or a refusal) makes the buttons usable again.
    if (changed.has('files')) this.busy = false;
  }

  override render() {
    const asking = this.files.filter((f) => f.status === 'untrusted' || f.status === 'changed');
    if (!asking.length) return nothing;
    return asking.map((f) => this.renderFile(f));
  }

  private renderFile(f: ProjectFileTrust) {
    const changed = f.status === 'changed';
    const isAgent = f.file !== '.mcp.json';
    const heading = isAgent
      ? changed ? `This project’s agent file ${f.file} changed since you decided on it` : `This project’s agent file ${f.file} wants to define an agent`
      : changed ? 'This project’s .mcp.json changed since you decided on it' : 'This project’s .mcp.json wants to run programs';
    return html`<section role="alertdialog" aria-labelledby="trust-h-${f.sha256}" data-testid="trust-prompt" data-path=${f.path}>
      <h2 id="trust-h-${f.sha256}">${heading}</h2>
      <p class="path">${f.path}</p>
      ${isAgent
        ? html`<p class="muted">The agent is not defined (a <code>task</code> call naming it is refused) until you trust this exact content.</p>`
        : html`<p class="muted">Nothing in it runs until you trust this exact content. <code>\${VAR}</code> is never filled in from skein’s environment in a project’s file: what you see is what runs.</p>`}
      ${f.agent ? this.renderAgent(f.agent) : nothing}
      ${f.servers.length ? html`<ul data-testid="trust-servers">${f.servers.map((s) => this.renderServer(s))}</ul>` : nothing}
      ${f.error ? html`<p class="error" role="note">Cannot be trusted as it is: ${f.error}</p>` : nothing}
      ${f.diff ? html`<p>Changes since you trusted it:</p><skein-diff data-testid="trust-diff" .diff=${f.diff}></skein-diff>` : nothing}
      <details><summary>The whole file</summary><pre>${f.content}</pre></details>
      <div class="actions">
        ${f.error ? nothing : html`<button class="trust" ?disabled=${this.busy} @click=${() => this.decide(f, 'trust')}>Trust</button>`}
        <button ?disabled=${this.busy} @click=${() => this.decide(f, 'ignore')} title="Do not run it and do not ask again, until the file changes">Ignore</button>
      </div>
    </section>`;
  }

  private renderAgent(a: ProjectAgentPreview) {
    return html`<ul data-testid="trust-agent"><li><strong>${a.name}</strong>: ${a.description}</li>
      <li>tools: ${a.tools ? a.tools.join(', ') || '(none)' : 'the parent’s'}</li>
      <li>model: ${a.model ?? 'the parent’s'}; mode: ${a.mode ?? 'the parent’s'}; may start children: ${a.depth ? `${a.depth} level(s)` : 'no'}</li>
      ${a.prompt ? html`<li>instructions:<pre>${a.prompt}</pre></li>` : nothing}</ul>`;
  }

  private renderServer(s: ProjectServerPreview) {
    const shadowed = s.shadowed ? html` <span class="muted">(not run: your SKEIN_MCP_CONFIG has a server of this name)</span>` : nothing;
    if (s.transport === 'http') {
      return html`<li data-server=${s.name}><strong>${s.name}</strong> connects to${shadowed}
        <pre data-testid="trust-url">${s.url}</pre>
        ${s.headerNames?.length ? html`<span class="muted">sends headers: ${s.headerNames.join(', ')}</span>` : nothing}</li>`;
    }
    const env = Object.entries(s.env ?? {});
    return html`<li data-server=${s.name}><strong>${s.name}</strong> runs${shadowed}
      <pre data-testid="trust-command">${[s.command ?? '', ...(s.args ?? [])].map(shown).join(' ')}</pre>
      ${env.length ? html`<span class="muted">with</span><pre>${env.map(([k, v]) => `${k}=${shown(v)}`).join('\n')}</pre>` : nothing}</li>`;
  }

  private decide(file: ProjectFileTrust, decision: TrustDetail['decision']) {
    this.busy = true;
    this.dispatchEvent(new CustomEvent<TrustDetail>('trust-decision', { detail: { file, decision }, bubbles: true, composed: true }));
  }
}

/** One argument as a shell would need it quoted (to read it unambiguously; nothing runs this text). */
function shown(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

customElements.define('skein-trust-prompt', SkeinTrustPrompt);
