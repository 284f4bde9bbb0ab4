// The styles of <skein-timeline>: rows, notices, the working line, the empty
// state and the "jump to latest" button (the rows' own styles are shared).
import { css } from 'lit';
import { messageStyles } from './message-styles.js';
import { rowMenuStyles } from './row-menu.js';

/** Pixels of padding above the first row (the timeline's offsets count from there). */
export const PAD_TOP = 12;

export const timelineStyles = [
  messageStyles,
  rowMenuStyles,
  css`
    :host { display: block; position: relative; overflow-y: auto; overflow-anchor: none; outline: none; }
    :host(:focus-visible) { box-shadow: inset 0 0 0 2px var(--accent); }
    .inner { max-width: 860px; margin: 0 auto; padding: ${PAD_TOP}px 16px 8px; box-sizing: border-box; }
    .row { display: flow-root; }
    .row.flash { animation: flash 1.6s ease-out; border-radius: 10px; }
    .row[data-match] { border-radius: 10px; box-shadow: inset 3px 0 0 var(--accent); background: color-mix(in srgb, var(--accent) 8%, transparent); }
    @keyframes flash { from { background: color-mix(in srgb, var(--accent) 22%, transparent); } to { background: transparent; } }
    .working { color: var(--muted); font-size: 13px; margin: 6px 0 0; height: 22px; }
    .working.idle { visibility: hidden; }
    .working::before { content: ''; display: inline-block; width: 8px; height: 8px; margin-right: 6px; border-radius: 50%;
      background: var(--warn); animation: pulse 1s infinite alternate; }
    @keyframes pulse { from { opacity: 0.3; } to { opacity: 1; } }
    @media (prefers-reduced-motion: reduce) { .working::before, .row.flash { animation: none; } }
    .notice { font-size: 13px; color: var(--muted); margin: 6px 0; padding-left: 10px; border-left: 3px solid var(--border); }
    .notice.retry { border-color: var(--warn); }
    .notice.cut { border-color: var(--warn); color: var(--fg); background: var(--warn-bg); padding: 4px 8px 4px 10px; }
    .notice.status { font-size: 12px; margin: 2px 0; border-left-style: dotted; }
    .notice .icon { vertical-align: -0.15em; }
    .empty { color: var(--muted); text-align: center; margin: 18vh auto 0; max-width: 460px; }
    .empty h2 { color: var(--fg); font-size: 18px; margin: 0 0 6px; }
    .empty button { font: inherit; font-family: var(--mono); font-size: 13px; margin: 4px; padding: 4px 10px; border-radius: 8px;
      border: 1px solid var(--border); background: var(--panel); color: var(--fg); cursor: pointer; }
    .jump { position: sticky; bottom: 12px; display: block; margin: 0 auto; font: inherit; font-size: 13px; padding: 6px 14px; border-radius: 16px;
      border: 1px solid var(--border); background: var(--panel); color: var(--fg); cursor: pointer; box-shadow: 0 2px 8px rgb(0 0 0 / 0.18); z-index: 2; }
    .jump:focus-visible, .empty button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
  `,
];
