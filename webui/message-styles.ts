// Styles shared by the timeline's message components (each has its own shadow
// root, so the code theme lives here rather than in the page).
import { css } from 'lit';

export const messageStyles = css`
  :host { display: block; margin: 10px 0; }
  /* Folded: still readable (full contrast), visibly no longer in the model's context: muted text, a dashed bar, a tag. */
  :host([folded]) .body { color: var(--folded-fg); border-left: 3px dashed var(--folded-bar); padding-left: 10px; }
  .folded-tag { font-size: 11px; color: var(--muted); margin-left: 6px; padding: 0 6px; border-radius: 8px; border: 1px dashed var(--border); }
  .who { font-size: 12px; color: var(--muted); margin-bottom: 2px; display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
  pre, code { font-family: var(--mono); font-size: 13px; }
  pre { background: var(--code-bg); padding: 8px 10px; border-radius: 8px; overflow-x: auto; margin: 6px 0; }
  p { margin: 4px 0; }
  .markdown { overflow-wrap: anywhere; }
  .markdown > :first-child { margin-top: 0; }
  .markdown > :last-child { margin-bottom: 0; }
  .markdown code { background: var(--code-bg); padding: 1px 4px; border-radius: 4px; }
  .markdown pre code { background: none; padding: 0; }
  .markdown pre.code { position: relative; }
  .markdown pre .lang { position: absolute; top: 2px; right: 8px; font-size: 11px; color: var(--muted); user-select: none; }
  .markdown table { border-collapse: collapse; display: block; overflow-x: auto; }
  .markdown td, .markdown th { border: 1px solid var(--border); padding: 2px 6px; }
  .markdown img { max-width: 100%; }
  .markdown h1, .markdown h2 { font-size: 1.12em; margin: 10px 0 4px; }
  .markdown h3, .markdown h4, .markdown h5, .markdown h6 { font-size: 1em; margin: 8px 0 2px; }
  .markdown ul, .markdown ol { margin: 4px 0; padding-left: 22px; }
  .markdown blockquote { margin: 6px 0; padding-left: 10px; border-left: 3px solid var(--border); color: var(--muted); }
  a { color: var(--accent); }
  button:focus-visible, summary:focus-visible, a:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
  .icon-btn { font: inherit; font-size: 12px; background: none; border: 1px solid transparent; color: var(--accent); cursor: pointer; padding: 2px 8px; border-radius: 6px; }
  .icon-btn:hover { border-color: var(--border); }
  /* Code theme: the same token classes in light and dark, colours from the page's variables. */
  .hljs-keyword, .hljs-selector-tag, .hljs-built_in, .hljs-meta .hljs-keyword { color: var(--hl-keyword); }
  .hljs-string, .hljs-regexp, .hljs-addition, .hljs-attr-value, .hljs-template-string { color: var(--hl-string); }
  .hljs-number, .hljs-literal, .hljs-symbol, .hljs-bullet { color: var(--hl-number); }
  .hljs-comment, .hljs-quote, .hljs-meta { color: var(--hl-comment); font-style: italic; }
  .hljs-title, .hljs-title.function_, .hljs-section, .hljs-name { color: var(--hl-title); }
  .hljs-attr, .hljs-attribute, .hljs-variable, .hljs-template-variable, .hljs-property, .hljs-params { color: var(--hl-attr); }
  .hljs-type, .hljs-title.class_ { color: var(--hl-type); }
  .hljs-deletion { color: var(--danger); }
  .hljs-emphasis { font-style: italic; }
  .hljs-strong { font-weight: 600; }
`;
