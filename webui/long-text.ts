// Long messages in the timeline (a 100 KB paste, a very long answer) are
// drawn collapsed to a bounded height, with "Show all" and "Show less": a
// paste must not be a 32,000 px bubble to scroll past. Which rows are open is
// kept by the timeline (rows leave the DOM as the reader scrolls, and a jump
// to a row opens it), so the messages only show it and ask to change it.
import { css, html, type TemplateResult } from 'lit';

/** The height a long message is cut to, in pixels. */
export const COLLAPSED_PX = 360;
/** More than this many characters or lines is long: surely taller than COLLAPSED_PX at any width. */
const LONG_CHARS = 2_000;
const LONG_LINES = 20;

export function isLong(text: string): boolean {
  if (text.length > LONG_CHARS) return true;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1 && lines <= LONG_LINES; i = text.indexOf('\n', i + 1)) lines++;
  return lines > LONG_LINES;
}

function lineCount(text: string): number {
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return lines;
}

/** The event a message sends when its reader opens or closes it (the timeline keeps the answer). */
export interface ExpandDetail {
  seq: number;
  expanded: boolean;
}

/** The "Show all" / "Show less" button under a long message's text. */
export function expandButton(host: HTMLElement, seq: number, text: string, expanded: boolean): TemplateResult {
  const toggle = () => host.dispatchEvent(new CustomEvent<ExpandDetail>('expand-row', { detail: { seq, expanded: !expanded }, bubbles: true, composed: true }));
  const size = `${lineCount(text).toLocaleString('en-US')} lines, ${Math.ceil(text.length / 1024).toLocaleString('en-US')} KB`;
  return html`<button class="icon-btn more" aria-expanded=${expanded} @click=${toggle}>${expanded ? 'Show less' : `Show all (${size})`}</button>`;
}

export const collapseStyles = css`
  .clipped { max-height: ${COLLAPSED_PX}px; overflow: hidden; mask-image: linear-gradient(to bottom, #000 75%, transparent); }
  .more { display: block; margin-top: 2px; }
`;
