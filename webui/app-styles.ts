// Layout of <skein-app>: header, session list (a column on wide screens, a
// drawer on narrow ones), context bar, timeline and chat box.
import { css } from 'lit';

export const appStyles = css`
  :host { display: flex; flex-direction: column; height: 100%; }
  /* Nothing in the header is cut (issue 39): the title and the folder wrap, and a part that does not fit goes to a row of its own. */
  header { display: flex; align-items: center; flex-wrap: wrap; gap: 6px 14px; padding: 8px 14px; border-bottom: 1px solid var(--border); background: var(--panel);
    min-width: 0; }
  .brand { font-weight: 700; letter-spacing: 0.02em; font-size: 16px; }
  .heading { flex: 1 1 320px; min-width: 0; }
  .title { font-size: 14px; font-weight: 500; margin: 0; line-height: 1.3; overflow-wrap: anywhere; color: var(--fg); }
  .workspace { margin: 1px 0 0; font-size: 12px; line-height: 1.35; color: var(--muted); font-family: var(--mono); overflow-wrap: anywhere; }
  .workspace .branch { margin-left: 6px; }
  .workspace .icon { vertical-align: -0.15em; margin-right: 2px; }
  .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
  .menu { display: none; font: inherit; font-size: 18px; line-height: 1; padding: 4px 8px; border-radius: 8px; border: 1px solid var(--border);
    background: var(--panel); color: var(--fg); cursor: pointer; }
  button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
  .state { position: relative; font-size: 13px; white-space: nowrap; display: inline-flex; align-items: center; gap: 6px; padding: 2px 10px;
    border-radius: 12px; background: var(--code-bg); }
  .state .pulse { width: 8px; height: 8px; border-radius: 50%; background: var(--ok); }
  .state.busy .pulse { background: var(--warn); animation: pulse 1s infinite alternate; }
  @keyframes pulse { from { opacity: 0.35; } to { opacity: 1; } }
  @media (prefers-reduced-motion: reduce) { .state.busy .pulse { animation: none; } }
  /* The raw state name, for scripts and tests; people read the words beside it. */
  .raw { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
  .conn { font-size: 12px; color: var(--muted); white-space: nowrap; display: inline-flex; align-items: center; gap: 5px; }
  .conn .dot { width: 8px; height: 8px; border-radius: 50%; background: var(--ok); }
  .conn.connecting .dot { background: var(--warn); } .conn.closed .dot { background: var(--danger); }
  .conn.closed { color: var(--danger); }
  .body { flex: 1; min-height: 0; display: flex; position: relative; }
  .drawer { width: 270px; flex: none; border-right: 1px solid var(--border); background: var(--panel); display: flex; flex-direction: column; min-height: 0; }
  .drawer skein-session-list { flex: 1; }
  .scrim { display: none; }
  main { flex: 1; min-width: 0; display: flex; flex-direction: column; }
  /* One row from 1024 px up whatever the view: the gauge keeps the width of its numbers and the sparkline gives way; narrower, what
     does not fit goes to a second row rather than being cut. */
  .context { display: flex; align-items: center; gap: 8px 14px; padding: 8px 16px; border-bottom: 1px solid var(--border); background: var(--panel);
    flex-wrap: wrap; min-height: 52px; box-sizing: border-box; }
  skein-token-gauge { flex: 1 0 auto; max-width: 560px; }
  skein-sparkline { flex: 1 1 48px; min-width: 48px; max-width: 320px; }
  .toggle { font: inherit; font-size: 13px; padding: 5px 10px; border-radius: 8px; border: 1px solid var(--border); background: var(--panel); color: var(--fg);
    cursor: pointer; margin-left: auto; white-space: nowrap; }
  .toggle[aria-pressed='true'] { background: var(--accent); color: var(--accent-fg); border-color: var(--accent); }
  skein-timeline, skein-model-view, skein-changes-panel { flex: 1; min-height: 0; }
  .toggle.changes { margin-left: 0; }
  .toggle .short { display: none; }
  skein-timeline[hidden] { display: none; }
  .missing { max-width: 860px; margin: 16px auto; padding: 0 16px; color: var(--danger); }
  footer { padding: 8px 16px 10px; border-top: 1px solid var(--border); background: var(--bg); padding-bottom: max(10px, env(safe-area-inset-bottom)); }
  footer > * { max-width: 860px; margin: 0 auto; }
  .notice { font-size: 13px; color: var(--danger); margin-bottom: 6px; display: flex; justify-content: space-between; gap: 8px; }
  .notice button { font: inherit; background: none; border: none; color: inherit; cursor: pointer; }
  .undo { font-size: 13px; margin-bottom: 6px; display: flex; align-items: center; gap: 8px; padding: 6px 10px; border: 1px solid var(--border); border-radius: 8px; background: var(--panel); }
  .undo button { font: inherit; padding: 2px 10px; border-radius: 6px; border: 1px solid var(--accent); background: var(--panel); color: var(--fg); cursor: pointer; font-weight: 600; }
  .undo button.close { margin-left: auto; border: none; font-weight: 400; }
  .info { font-size: 13px; margin-bottom: 6px; display: flex; align-items: flex-start; gap: 8px; padding: 6px 10px; border: 1px solid var(--border);
    border-radius: 8px; background: var(--panel); white-space: pre-wrap; }
  .info button.close { margin-left: auto; font: inherit; background: none; border: none; color: var(--fg); cursor: pointer; }
  @media (max-width: 900px) {
    .menu { display: inline-block; }
    /* The state, model and connection in a row, the title and the folder beneath across the whole width. */
    .heading { order: 1; flex-basis: 100%; }
    .conn { margin-left: auto; }
    .drawer { position: absolute; z-index: 30; top: 0; bottom: 0; left: 0; transform: translateX(-100%); transition: transform 0.2s; box-shadow: var(--shadow);
      visibility: hidden; }
    .drawer.open { transform: none; visibility: visible; }
    @media (prefers-reduced-motion: reduce) { .drawer { transition: none; } }
    .scrim.open { display: block; position: absolute; inset: 0; z-index: 29; background: rgb(0 0 0 / 0.35); }
  }
  @media (max-width: 600px) {
    /* A phone: the branch without the folder under the title; the gauge's numbers across the width, the sparkline and the
       toggles beneath. */
    header { padding: 4px 8px; gap: 4px 6px; }
    .brand { display: none; }
    .title { font-size: 13px; line-height: 1.25; }
    .workspace { font-size: 12px; font-family: inherit; }
    .workspace .folder, .workspace .own { display: none; }
    .workspace .branch { margin-left: 0; }
    .conn { font-size: 0; gap: 0; }
    .state { padding: 2px 8px; font-size: 12px; }
    .context { padding: 4px 8px; gap: 4px 6px; min-height: 0; }
    skein-token-gauge { flex: 1 1 100%; max-width: none; }
    skein-sparkline { flex: 1 1 64px; min-width: 40px; max-width: none; }
    .toggle { padding: 4px 8px; font-size: 12px; }
    .toggle .long { display: none; }
    .toggle .short { display: inline; }
    footer { padding: 6px 10px 8px; }
  }
`;
