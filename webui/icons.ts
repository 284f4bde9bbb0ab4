// Small icons drawn as inline SVG, not font glyphs: a glyph the installed
// fonts lack renders as an empty box (ⓘ did on Debian's Chromium). They take
// the colour of the text around them and are hidden from screen readers.
import { html } from 'lit';

/** A circled "i": an informational note. */
export const infoIcon = html`<svg class="icon" viewBox="0 0 16 16" width="1em" height="1em" aria-hidden="true" focusable="false">
  <circle cx="8" cy="8" r="6.5" fill="none" stroke="currentColor" stroke-width="1.4"></circle>
  <circle cx="8" cy="4.9" r="1" fill="currentColor"></circle>
  <rect x="7.3" y="6.9" width="1.4" height="4.6" rx="0.5" fill="currentColor"></rect>
</svg>`;

/** A git branch: two commits on a line, one forking off. */
export const branchIcon = html`<svg class="icon" viewBox="0 0 16 16" width="1em" height="1em" aria-hidden="true" focusable="false">
  <g fill="none" stroke="currentColor" stroke-width="1.4">
    <circle cx="4.5" cy="3.5" r="1.6"></circle><circle cx="4.5" cy="12.5" r="1.6"></circle><circle cx="11.5" cy="5" r="1.6"></circle>
    <path d="M4.5 5.1v5.8M11.5 6.6c0 3-7 2.2-7 4.3"></path>
  </g>
</svg>`;
