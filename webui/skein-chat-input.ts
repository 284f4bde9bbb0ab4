// <skein-chat-input>: the message box. Enter sends, Shift+Enter is a newline,
// `/compact [focus]` asks for a compaction, the up arrow recalls history.
import { css, html, LitElement } from 'lit';

export class SkeinChatInput extends LitElement {
  static override properties = {
    busy: { type: Boolean },
    disabledReason: { attribute: false },
    value: { state: true },
  };
  declare busy: boolean;
  declare disabledReason: string;
  declare value: string;
  private history: string[] = [];
  private historyIndex = -1;

  constructor() {
    super();
    this.busy = false;
    this.disabledReason = '';
    this.value = '';
  }

  static override styles = css`
    :host { display: block; }
    form { display: flex; gap: 8px; align-items: flex-end; }
    textarea { flex: 1; resize: none; min-height: 44px; max-height: 40vh; box-sizing: border-box; padding: 10px 12px;
      font: inherit; color: var(--fg); background: var(--panel); border: 1px solid var(--border); border-radius: 10px; }
    textarea:focus { outline: 2px solid var(--accent); outline-offset: -1px; }
    button { font: inherit; padding: 10px 16px; border-radius: 10px; border: 1px solid var(--border); cursor: pointer; background: var(--panel); color: var(--fg); }
    button.send { background: var(--accent); color: white; border-color: var(--accent); }
    button:disabled { opacity: 0.5; cursor: not-allowed; }
    .hint { font-size: 12px; color: var(--muted); margin: 4px 2px 0; min-height: 18px; }
  `;

  override render() {
    const disabled = this.disabledReason !== '';
    const hint = disabled
      ? this.disabledReason
      : this.value.startsWith('/')
        ? '/compact [focus] — fold older history into a summary now, optionally focused on something'
        : 'Enter to send · Shift+Enter for a new line · /compact to compact';
    return html`
      <form @submit=${this.onSubmit}>
        <textarea aria-label="Message" placeholder="Message the agent" rows="1" .value=${this.value}
          ?disabled=${disabled} @input=${this.onInput} @keydown=${this.onKeyDown}></textarea>
        ${this.busy ? html`<button type="button" @click=${this.onCancel}>Cancel</button>` : ''}
        <button class="send" type="submit" ?disabled=${disabled || !this.value.trim()}>Send</button>
      </form>
      <p class="hint" aria-live="polite">${hint}</p>
    `;
  }

  private onInput(e: Event) {
    const area = e.target as HTMLTextAreaElement;
    this.value = area.value;
    area.style.height = 'auto';
    area.style.height = `${area.scrollHeight}px`;
  }

  private onKeyDown(e: KeyboardEvent) {
    const area = e.target as HTMLTextAreaElement;
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      this.submit();
    } else if (e.key === 'ArrowUp' && area.selectionStart === 0 && this.history.length) {
      e.preventDefault();
      this.historyIndex = Math.min(this.history.length - 1, this.historyIndex + 1);
      this.value = this.history[this.history.length - 1 - this.historyIndex]!;
    } else if (e.key === 'ArrowDown' && this.historyIndex >= 0) {
      e.preventDefault();
      this.historyIndex--;
      this.value = this.historyIndex >= 0 ? this.history[this.history.length - 1 - this.historyIndex]! : '';
    }
  }

  private onSubmit(e: Event) {
    e.preventDefault();
    this.submit();
  }

  private submit() {
    const text = this.value;
    if (!text.trim() || this.disabledReason) return;
    this.dispatchEvent(new CustomEvent('send', { detail: { text }, bubbles: true, composed: true }));
    this.history.push(text);
    this.historyIndex = -1;
    this.value = '';
    const area = this.renderRoot.querySelector('textarea');
    if (area) area.style.height = 'auto';
  }

  private onCancel() {
    this.dispatchEvent(new CustomEvent('cancel', { bubbles: true, composed: true }));
  }
}
customElements.define('skein-chat-input', SkeinChatInput);
