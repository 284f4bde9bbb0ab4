// <skein-token-gauge>: how full the model's context is. Segments for cache
// read / cache write / uncached input, a tick at the compaction threshold,
// colours that turn amber then red as it nears the threshold, the distance to
// auto-compact in words, and exact numbers and cost in a card on hover or
// focus (a tap), in the label's title and in aria-valuetext for screen
// readers. The label's numbers are never cut: they wrap when narrow. The
// cost includes what the session's subtasks (child sessions) cost, and says so.
import { css, html, LitElement, nothing } from 'lit';
import type { Gauge, McpServerInfo } from '../shared/protocol.js';
import { WINDOW_SOURCE_WORDS } from '../shared/wire/constants.js';
import { exact, formatCost, formatTokens } from './format.js';
import { gaugeFill } from './gauge-fill.js';
import { gaugeLevel, thresholdPercent, tickLeft, untilWords } from './gauge-level.js';
import type { Rollup } from './session-directory.js';
import { styleProps } from './style-props.js';

/** The window of a model not in skein's table, before (or without) its server saying its own. */
const GUESS_WORDS = "a guess: the model is not in skein's table and its server has not said its window (set SKEIN_CONTEXT_WINDOW)";

export class SkeinTokenGauge extends LitElement {
  static override properties = { gauge: { attribute: false }, mcp: { attribute: false }, rollup: { attribute: false } };
  declare gauge: Gauge | undefined;
  /** The MCP servers: a failed one shows in the card (its tools are missing from the session). */
  declare mcp: McpServerInfo[] | undefined;
  /** What the session's children (its `task` calls) add to its cost and tokens. */
  declare rollup: Rollup | undefined;

  static override styles = css`
    :host { display: block; min-width: 0; position: relative; }
    .wrap { outline: none; border-radius: 6px; }
    .wrap:focus-visible { outline: 2px solid var(--accent); outline-offset: 3px; }
    .meter { position: relative; height: 12px; border-radius: 6px; background: var(--code-bg); border: 1px solid var(--border); }
    .bar { display: flex; height: 100%; border-radius: 6px; overflow: hidden; }
    .seg { height: 100%; transition: width 0.3s, background-color 0.3s; }
    .read { background: var(--seg-read); } .write { background: var(--seg-write); } .input { background: var(--seg-input); }
    .near .read { background: var(--seg-read-near); } .near .write { background: var(--seg-write-near); } .near .input { background: var(--seg-input-near); }
    .over .read { background: var(--seg-read-over); } .over .write { background: var(--seg-write-over); } .over .input { background: var(--seg-input-over); }
    .estimated .bar { opacity: 0.75; background-image: repeating-linear-gradient(45deg, transparent 0 4px, rgb(255 255 255 / 0.25) 4px 8px); }
    .tick { position: absolute; top: -4px; bottom: -4px; width: 2px; background: var(--fg); border-radius: 1px; }
    .label { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 0 10px; font-size: 12px; color: var(--muted); margin-top: 3px; white-space: nowrap; }
    .label strong { color: var(--fg); font-weight: 600; }
    .near .words { color: var(--warn); font-weight: 600; }
    .over .words { color: var(--danger); font-weight: 600; }
    .card { display: none; position: absolute; z-index: 20; top: calc(100% + 6px); right: 0; min-width: 260px; padding: 10px 12px; border-radius: 10px;
      background: var(--panel); border: 1px solid var(--border); box-shadow: var(--shadow); font-size: 13px; color: var(--fg); }
    .wrap:hover .card, .wrap:focus .card, .wrap:focus-within .card { display: block; }
    table { border-collapse: collapse; width: 100%; }
    td { padding: 1px 0; } td:last-child { text-align: right; font-variant-numeric: tabular-nums; }
    .sw { display: inline-block; width: 9px; height: 9px; border-radius: 2px; margin-right: 6px; }
    tr.source td { color: var(--muted); font-size: 12px; }
    tr.total td { border-top: 1px solid var(--border); padding-top: 3px; font-weight: 600; }
    .note { color: var(--muted); font-size: 12px; margin: 6px 0 0; white-space: normal; }
    tr.mcp td { border-top: 1px solid var(--border); padding-top: 3px; }
    .failed { color: var(--danger); }
  `;

  override render() {
    const g = this.gauge;
    if (!g) return html`<div class="label"><span>No requests yet: the gauge fills as the model reads the conversation.</span></div>`;
    const fill = gaugeFill(g);
    const pct = (n: number) => `${n}%`;
    const read = g.cacheRead ?? 0;
    const write = g.cacheWrite ?? 0;
    const input = g.input ?? Math.max(0, g.contextTokens - read - write);
    const level = gaugeLevel(g);
    const threshold = thresholdPercent(g.thresholdRatio);
    const words = untilWords(g);
    const text =
      `${exact(g.contextTokens)} of ${exact(g.contextWindow)} tokens in context (${fill.share})` +
      `${g.estimated ? ', estimated' : ''}: ${exact(read)} cache read, ${exact(write)} cache write, ${exact(input)} uncached input. ` +
      `${words[0]!.toUpperCase()}${words.slice(1)} (compacts at ${threshold}%). ` +
      `${g.windowGuess ? `Window ${GUESS_WORDS}. ` : g.windowSource ? `Window ${WINDOW_SOURCE_WORDS[g.windowSource]}. ` : ''}${costWords(g, this.rollup)}.`;
    // A window nobody said (a model not in skein's table, its server silent so far) reads as the guess it is.
    const windowText = g.windowGuess ? `~${formatTokens(g.contextWindow)} (guess)` : formatTokens(g.contextWindow);
    return html`
      <div class="wrap ${level} ${g.estimated ? 'estimated' : ''}" tabindex="0" data-level=${level}>
        <div class="meter" role="meter" aria-label="Context window" aria-valuemin="0"
          aria-valuenow=${fill.valueNow} aria-valuemax=${g.contextWindow} aria-valuetext=${text}>
          <div class="bar">
            <div class="seg read" style=${styleProps({ width: pct(fill.read) })}></div>
            <div class="seg write" style=${styleProps({ width: pct(fill.write) })}></div>
            <div class="seg input" style=${styleProps({ width: pct(fill.input) })}></div>
          </div>
          <div class="tick" style=${styleProps({ left: tickLeft(g.thresholdRatio) })} title="auto-compact at ${threshold}%"></div>
        </div>
        <div class="label" aria-hidden="true" title=${exactLine(g, words)}>
          <span><strong>${formatTokens(g.contextTokens)}</strong> / ${windowText}${g.estimated && g.contextTokens > 0 ? ' (est.)' : ''} · ${fill.share}</span>
          <span class="words">${words}</span>
          <span data-testid="gauge-cost">${formatCost(g.totalCostUsd + (this.rollup?.costUsd ?? 0))}${this.rollup ? ` incl. ${subtasks(this.rollup.count)}` : ''}</span>
        </div>
        <div class="card" aria-hidden="true">
          <table>
            <tr><td><span class="sw read"></span>Cache read</td><td>${exact(read)}</td></tr>
            <tr><td><span class="sw write"></span>Cache write</td><td>${exact(write)}</td></tr>
            <tr><td><span class="sw input"></span>Uncached input</td><td>${exact(input)}</td></tr>
            <tr class="total"><td>In context</td><td>${exact(g.contextTokens)}</td></tr>
            <tr><td>Window (${g.model})</td><td>${exact(g.contextWindow)}</td></tr>
            ${g.windowGuess ? html`<tr class="source guess"><td colspan="2">Window ${GUESS_WORDS}</td></tr>` : g.windowSource ? html`<tr class="source"><td colspan="2">Window ${WINDOW_SOURCE_WORDS[g.windowSource]}</td></tr>` : nothing}
            <tr><td>Auto-compact at ${threshold}%</td><td>${exact(Math.round(g.thresholdRatio * g.contextWindow))}</td></tr>
            ${g.reserve ? html`<tr class="reserve"><td>Kept free for the answer</td><td>${exact(g.reserve)}</td></tr>` : nothing}
            <tr><td>Session cost${this.rollup ? ' (its own)' : ''}</td><td>${formatCost(g.totalCostUsd)}</td></tr>
            ${this.rollup
              ? html`<tr data-testid="gauge-subtasks"><td>${subtasks(this.rollup.count)} (${exact(this.rollup.tokens)} tokens)</td><td>${formatCost(this.rollup.costUsd)}</td></tr>
                  <tr class="total"><td>Total cost</td><td>${formatCost(g.totalCostUsd + this.rollup.costUsd)}</td></tr>`
              : nothing}
            ${this.mcpRow()}
          </table>
          ${g.estimated ? html`<p class="note">Estimated by skein after a compaction; the next answer brings the provider's exact count.</p>` : nothing}
        </div>
      </div>
    `;
  }

  private mcpRow() {
    const servers = this.mcp ?? [];
    if (!servers.length) return nothing;
    const ready = servers.filter((s) => s.state === 'ready').length;
    const failed = servers.filter((s) => s.state === 'failed').map((s) => s.name);
    return html`<tr class="mcp" data-testid="gauge-mcp"><td>MCP servers ${failed.length ? html`<span class="failed">(${failed.join(', ')} failed)</span>` : nothing}</td><td>${ready} of ${servers.length} ready</td></tr>`;
  }
}
const subtasks = (n: number) => `${n} subtask${n === 1 ? '' : 's'}`;

function costWords(g: Gauge, rollup: Rollup | undefined): string {
  if (!rollup) return `Session cost ${formatCost(g.totalCostUsd)}`;
  return `Cost ${formatCost(g.totalCostUsd + rollup.costUsd)}, including ${formatCost(rollup.costUsd)} for ${subtasks(rollup.count)}`;
}

/** The label's numbers exactly, on one line: its title (what a pointer resting on it shows). */
function exactLine(g: Gauge, words: string): string {
  return `${exact(g.contextTokens)} / ${exact(g.contextWindow)} tokens${g.estimated ? ' (estimated)' : ''} (${gaugeFill(g).share}) · ${words} ` +
    `(at ${thresholdPercent(g.thresholdRatio)}%) · session cost ${formatCost(g.totalCostUsd)}`;
}

customElements.define('skein-token-gauge', SkeinTokenGauge);
