// <skein-chat-input>: the message box. Enter sends, Shift+Enter is a newline,
// typing `/` shows the commands (slash-commands.ts; Tab completes, and after
// a command with fixed choices, `/mode p`, its argument), the up
// arrow recalls earlier messages (kept per session across reloads), Escape or the Cancel button stops the agent
// while it works, and when the connection is down the box says why it is off.
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import type { Gauge, ImageInput } from '../shared/protocol.js';
import { draftSize } from './draft-size.js';
import { readImage, type DraftImage } from './draft-images.js';
import { MAX_FRAME_BYTES, MAX_IMAGES_PER_MESSAGE } from '../shared/wire/constants.js';
import { COMMANDS, parseSlash } from './slash-commands.js';
import './skein-mode-picker.js';
import { InputHistory } from './input-history.js';


export class SkeinChatInput extends LitElement {
  static override properties = {
    busy: { type: Boolean },
    asking: { type: Boolean },
    disabledReason: { attribute: false },
    gauge: { attribute: false },
    mode: { attribute: false },
    sessionId: { attribute: false },
    value: { state: true },
    images: { state: true },
    imageError: { state: true },
  };
  declare busy: boolean;
  /** A tool call waits for approval: a message now denies it. */
  declare asking: boolean;
  declare disabledReason: string;
  /** The window and how full it is: the draft's tokens are shown against the room left. */
  declare gauge: Gauge | undefined;
  /** The session's approval mode, switchable here (empty: not known yet). */
  declare mode: string;
  /** The open session: its ↑ history is loaded from this browser's storage. */
  declare sessionId: string;
  declare value: string;
  /** Images pasted or dropped in, sent with the message. */
  declare images: DraftImage[];
  /** Why the last image pasted or dropped was not taken. */
  declare imageError: string;
  private readonly history = new InputHistory();
  private historyIndex = -1;
  private draft = '';

  constructor() {
    super();
    this.busy = false;
    this.asking = false;
    this.disabledReason = '';
    this.mode = '';
    this.sessionId = '';
    this.value = '';
    this.images = [];
    this.imageError = '';
  }

  static override styles = css`
    :host { display: block; position: relative; }
    form { display: flex; gap: 8px; align-items: flex-end; }
    textarea { flex: 1; min-width: 0; resize: none; min-height: 44px; max-height: 40vh; box-sizing: border-box; padding: 10px 12px;
      font: inherit; color: var(--fg); background: var(--panel); border: 1px solid var(--border); border-radius: 12px; }
    textarea:focus { outline: 2px solid var(--accent); outline-offset: -1px; }
    textarea:disabled { background: var(--code-bg); cursor: not-allowed; }
    button { font: inherit; padding: 10px 16px; border-radius: 12px; border: 1px solid var(--border); cursor: pointer; background: var(--panel); color: var(--fg); }
    button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
    button.send { background: var(--accent); color: var(--accent-fg); border-color: var(--accent); font-weight: 600; }
    button.cancel { border-color: var(--danger); color: var(--danger); }
    button:disabled { opacity: 0.45; cursor: not-allowed; }
    .hint { font-size: 12px; color: var(--muted); margin: 4px 2px 0; min-height: 18px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .hint.off { color: var(--danger); }
    .hint.warn { color: var(--fg); white-space: normal; }
    .size { display: flex; gap: 8px; justify-content: space-between; align-items: baseline; }
    .size .count { flex: none; font-size: 12px; color: var(--muted); font-variant-numeric: tabular-nums; }
    .size .hint { flex: 1; min-width: 0; }
    .refused { color: var(--danger); white-space: normal; }
    kbd { font-family: var(--mono); font-size: 11px; padding: 0 4px; border: 1px solid var(--border); border-radius: 4px; background: var(--panel); }
    .commands { position: absolute; left: 0; bottom: calc(100% + 6px); margin: 0; padding: 4px; list-style: none; min-width: min(100%, 420px);
      background: var(--panel); border: 1px solid var(--border); border-radius: 10px; box-shadow: var(--shadow); z-index: 5; }
    .commands li { padding: 6px 10px; border-radius: 6px; font-size: 13px; cursor: pointer; }
    .commands li[aria-selected='true'] { background: var(--user-bg); }
    .commands code { font-family: var(--mono); font-weight: 600; }
    .commands .args { color: var(--muted); font-family: var(--mono); }
    .commands .help { display: block; color: var(--muted); font-size: 12px; }
    .images { display: flex; flex-wrap: wrap; gap: 8px; margin: 0 0 6px; padding: 0; list-style: none; }
    .images li { position: relative; }
    .images img { display: block; height: 64px; max-width: 120px; object-fit: cover; border-radius: 8px; border: 1px solid var(--border); }
    .images button { position: absolute; top: -6px; right: -6px; padding: 0 6px; line-height: 18px; font-size: 13px; border-radius: 10px; background: var(--panel); }
    form.dropping textarea { outline: 2px dashed var(--accent); }
  `;

  /** Puts text in the box (an example from the empty timeline) and focuses it. */
  fill(text: string) {
    this.value = text;
    void this.updateComplete.then(() => this.focus());
  }

  override focus() {
    this.renderRoot.querySelector('textarea')?.focus();
  }

  /** What Tab would complete: command names, or the choices of the command typed (`/mode p` → plan). */
  private get suggestions(): { label: string; args: string; help: string; value: string }[] {
    const v = this.value;
    if (!v.startsWith('/')) return [];
    const arg = /^(\/[a-z]+) (\S*)$/.exec(v);
    const choices = arg && COMMANDS.find((c) => c.name === arg[1])?.choices;
    if (arg && choices) {
      return choices.filter((c) => c.startsWith(arg[2]!) && c !== arg[2]).map((c) => ({ label: c, args: '', help: `${arg[1]} ${c}`, value: `${arg[1]} ${c}` }));
    }
    if (/\s/.test(v)) return [];
    return COMMANDS.filter((c) => c.name.startsWith(v) && c.name !== v).map((c) => ({ label: c.name, args: c.args, help: c.help, value: `${c.name} ` }));
  }

  override render() {
    const disabled = this.disabledReason !== '';
    const matches = this.suggestions;
    const command = parseSlash(this.value)?.command;
    const size = this.value || this.images.length ? this.sizeWithImages() : undefined;
    const hint = disabled
      ? html`${this.disabledReason}`
      : size?.refused
        ? html`<span class="refused" role="alert">${size.refused}</span>`
      : this.imageError
        ? html`<span class="refused" role="alert">${this.imageError}</span>`
      : size?.warning
        ? html`${size.warning}`
      : command
        ? html`<code>${command.name}${command.args ? ` ${command.args}` : ''}</code> — ${command.help}`
        : this.asking
          ? html`A tool call waits for your answer above; a message you send now denies it, with your text as the reason`
        : this.busy
          ? html`The agent is working: <kbd>Esc</kbd> or Cancel stops it; a message you send now joins at the next safe point`
          : html`<kbd>Enter</kbd> to send · <kbd>Shift</kbd>+<kbd>Enter</kbd> new line · <kbd>↑</kbd> history · <kbd>/</kbd> commands`;
    return html`
      ${matches.length
        ? html`<ul class="commands" role="listbox" aria-label="Commands">
            ${matches.map((c, i) => html`<li role="option" aria-selected=${i === 0} @mousedown=${(e: Event) => this.complete(e, c.value)}>
              <code>${c.label}</code> <span class="args">${c.args}</span><span class="help">${c.help} · <kbd>Tab</kbd> to complete</span></li>`)}
          </ul>`
        : nothing}
      ${this.images.length
        ? html`<ul class="images" aria-label="Images to send">
            ${this.images.map((image, i) => html`<li><img src="data:${image.mediaType};base64,${image.data}" alt=${`Image ${i + 1}: ${image.name}`} data-testid="draft-image" />
              <button type="button" aria-label=${`Remove image ${i + 1}`} title="Remove" @click=${() => this.removeImage(i)}>×</button></li>`)}
          </ul>`
        : nothing}
      <form @submit=${this.onSubmit} @dragover=${this.onDragOver} @dragleave=${() => this.renderRoot.querySelector('form')?.classList.remove('dropping')} @drop=${this.onDrop}>
        <textarea aria-label="Message" placeholder=${disabled ? (this.disabledReason.startsWith('Offline') ? 'Reconnecting…' : 'Not available here (see below)') : 'Message the agent, or / for commands'} rows="1"
          .value=${this.value} ?disabled=${disabled} aria-describedby="hint" @input=${this.onInput} @keydown=${this.onKeyDown} @paste=${this.onPaste}></textarea>
        ${this.busy ? html`<button class="cancel" type="button" @click=${this.onCancel} ?disabled=${disabled}>Cancel</button>` : nothing}
        <button class="send" type="submit" ?disabled=${disabled || (!this.value.trim() && !this.images.length) || !!size?.refused}>Send</button>
      </form>
      <div class="size">
        <skein-mode-picker .mode=${this.mode}></skein-mode-picker>
        <p class="hint ${disabled ? 'off' : size?.warning || size?.refused ? 'warn' : ''}" id="hint" aria-live="polite">${hint}</p>
        ${size && !disabled ? html`<span class="count" data-testid="draft-tokens">${size.count}</span>` : nothing}
      </div>
    `;
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    if (changed.has('sessionId')) {
      this.history.load(this.sessionId);
      this.historyIndex = -1;
    }
  }

  protected override updated() {
    const area = this.renderRoot.querySelector('textarea');
    if (!area) return;
    area.style.height = 'auto';
    area.style.height = `${area.scrollHeight + 2}px`;
  }

  private onInput(e: Event) {
    this.value = (e.target as HTMLTextAreaElement).value;
    this.historyIndex = -1;
  }

  private complete(e: Event, value: string) {
    e.preventDefault();
    this.value = value;
    this.focus();
  }

  private onKeyDown(e: KeyboardEvent) {
    const area = e.target as HTMLTextAreaElement;
    const matches = this.suggestions;
    const atStart = area.selectionStart === 0 && area.selectionEnd === 0;
    // A recalled message not edited: ↑ and ↓ keep walking the history, wherever the caret is.
    const browsing = this.historyIndex >= 0 && this.value === this.history.at(this.historyIndex);
    if (matches.length && (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey))) {
      this.complete(e, matches[0]!.value);
    } else if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      this.submit();
    } else if (e.key === 'Escape' && this.busy) {
      e.preventDefault();
      this.onCancel();
    } else if (e.key === 'ArrowUp' && (atStart || browsing) && this.history.length) {
      e.preventDefault();
      if (this.historyIndex === -1) this.draft = this.value;
      this.historyIndex = Math.min(this.history.length - 1, this.historyIndex + 1);
      this.value = this.history.at(this.historyIndex)!;
    } else if (e.key === 'ArrowDown' && this.historyIndex >= 0 && (area.selectionEnd === area.value.length || browsing)) {
      e.preventDefault();
      this.historyIndex--;
      this.value = this.historyIndex >= 0 ? this.history.at(this.historyIndex)! : this.draft;
    }
  }

  private onSubmit(e: Event) {
    e.preventDefault();
    this.submit();
  }

  private submit() {
    const text = this.value;
    const images = this.images;
    if ((!text.trim() && !images.length) || this.disabledReason || this.sizeWithImages().refused) return;
    const detail: { text: string; images?: ImageInput[]; notSent?: boolean } = { text, ...(images.length && { images: images.map(({ mediaType, data }) => ({ mediaType, data })) }) };
    this.dispatchEvent(new CustomEvent('send', { detail, bubbles: true, composed: true }));
    // The page could not send it (its socket closed at that moment): the text and images stay to send again.
    if (detail.notSent) return;
    this.images = [];
    this.imageError = '';
    this.history.push(text);
    this.historyIndex = -1;
    this.draft = '';
    this.value = '';
  }

  /** The draft's size with its images: one frame carries them all. */
  private sizeWithImages() {
    const size = draftSize(this.value, this.gauge);
    if (!this.images.length || size.refused) return size;
    const bytes = new TextEncoder().encode(JSON.stringify({ type: 'user_message', text: this.value })).length + this.images.reduce((n, i) => n + i.data.length + 40, 0);
    if (bytes <= MAX_FRAME_BYTES) return size;
    return { ...size, refused: `Too large to send: with its images this message is ${(bytes / 1024 / 1024).toFixed(2)} MB; one message may be at most ${(MAX_FRAME_BYTES / 1024 / 1024).toFixed(0)} MB. Remove an image; nothing was sent.` };
  }

  private onPaste(e: ClipboardEvent) {
    const files = [...(e.clipboardData?.files ?? [])];
    if (!files.length) return;
    e.preventDefault();
    void this.addImages(files);
  }

  private onDragOver(e: DragEvent) {
    if (!e.dataTransfer?.types.includes('Files')) return;
    e.preventDefault();
    this.renderRoot.querySelector('form')?.classList.add('dropping');
  }

  private onDrop(e: DragEvent) {
    this.renderRoot.querySelector('form')?.classList.remove('dropping');
    const files = [...(e.dataTransfer?.files ?? [])];
    if (!files.length) return;
    e.preventDefault();
    void this.addImages(files);
  }

  /** Adds the images among `files`; the first that cannot go is said, the others still come. */
  async addImages(files: File[]) {
    this.imageError = '';
    for (const file of files) {
      if (this.images.length >= MAX_IMAGES_PER_MESSAGE) {
        this.imageError = `A message may carry at most ${MAX_IMAGES_PER_MESSAGE} images.`;
        break;
      }
      const read = await readImage(file);
      if (typeof read === 'string') this.imageError ||= read;
      else this.images = [...this.images, read];
    }
    this.focus();
  }

  private removeImage(index: number) {
    this.images = this.images.filter((_, i) => i !== index);
    this.imageError = '';
    this.focus();
  }

  private onCancel() {
    this.dispatchEvent(new CustomEvent('cancel', { bubbles: true, composed: true }));
  }
}
customElements.define('skein-chat-input', SkeinChatInput);
