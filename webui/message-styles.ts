// Styles shared by the timeline's message components.
import { css } from 'lit';

export const messageStyles = css`
  :host { display: block; margin: 10px 0; }
  :host([folded]) .body { opacity: var(--folded); }
  .folded-tag { font-size: 11px; color: var(--muted); margin-left: 6px; }
  .who { font-size: 12px; color: var(--muted); margin-bottom: 2px; }
  pre, code { font-family: var(--mono); font-size: 13px; }
  pre { background: var(--code-bg); padding: 8px 10px; border-radius: 8px; overflow-x: auto; margin: 6px 0; }
  p { margin: 4px 0; }
  .markdown :first-child { margin-top: 0; }
  .markdown :last-child { margin-bottom: 0; }
  .markdown code { background: var(--code-bg); padding: 1px 4px; border-radius: 4px; }
  .markdown pre code { background: none; padding: 0; }
  .markdown table { border-collapse: collapse; }
  .markdown td, .markdown th { border: 1px solid var(--border); padding: 2px 6px; }
  a { color: var(--accent); }
`;
