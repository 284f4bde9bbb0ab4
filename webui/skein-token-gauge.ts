// <skein-token-gauge>: how full the model's context is. Segments for cache
// read / cache write / uncached input, a tick at the compaction threshold,
// exact numbers on hover and for screen readers.
import { css, html, LitElement } from 'lit';
import type { Gauge } from '../shared/protocol.js';
import { formatCost, formatTokens } from './format.js';

export class SkeinTokenGauge extends LitElement {
  static override properties = { gauge: { attribute: false } };
  declare gauge: Gauge | undefined;

  static override styles = css`
    :host { display: block; min-width: 180px; }
    .meter { position: relative; height: 10px; border-radius: 5px; background: var(--code-bg); overflow: visible; border: 1px solid var(--border); }
    .bar { display: flex; height: 100%; border-radius: 5px; overflow: hidden; transition: width 0.3s; }
    .seg { height: 100%; transition: width 0.3s; }
    .read { background: var(--seg-read); }
    .write { background: var(--seg-write); }
    .input { background: var(--seg-input); }
    .near .input, .near .read, .near .write { filter: saturate(1.4); }
    .over .seg { background: var(--danger); }
    .tick { position: absolute; top: -3px; bottom: -3px; width: 2px; background: var(--fg); opacity: 0.7; }
    .label { display: flex; justify-content: space-between; gap: 8px; font-size: 12px; color: var(--muted); margin-top: 3px; white-space: nowrap; }
    .label strong { color: var(--fg); font-weight: 600; }
    .near .label-ratio { color: var(--warn); }
  `;

  override render() {
    const g = this.gauge;
    if (!g) return html``;
    const pct = (n: number) => `${Math.min(100, (n / g.contextWindow) * 100)}%`;
    const read = g.cacheRead ?? 0;
    const write = g.cacheWrite ?? 0;
    const input = g.input ?? g.contextTokens - read - write;
    const state = g.ratio >= g.thresholdRatio ? 'over' : g.ratio >= g.thresholdRatio - 0.15 ? 'near' : '';
    const untilCompact = Math.max(0, Math.round((g.thresholdRatio - g.ratio) * 100));
    const text =
      `${g.contextTokens.toLocaleString('en-US')} of ${g.contextWindow.toLocaleString('en-US')} tokens in context` +
      `${g.estimated ? ' (estimated)' : ''}: ${read.toLocaleString('en-US')} cache read, ${write.toLocaleString('en-US')} cache write, ` +
      `${input.toLocaleString('en-US')} uncached. Compacts at ${Math.round(g.thresholdRatio * 100)}%. Session cost ${formatCost(g.totalCostUsd)}.`;
    return html`
      <div class=${state} title=${text}>
        <div class="meter" role="meter" aria-label="Context window" aria-valuemin="0"
          aria-valuenow=${g.contextTokens} aria-valuemax=${g.contextWindow} aria-valuetext=${text}>
          <div class="bar">
            <div class="seg read" style="width:${pct(read)}"></div>
            <div class="seg write" style="width:${pct(write)}"></div>
            <div class="seg input" style="width:${pct(input)}"></div>
          </div>
          <div class="tick" style="left:calc(${g.thresholdRatio * 100}% - 1px)"></div>
        </div>
        <div class="label">
          <span><strong>${formatTokens(g.contextTokens)}</strong> / ${formatTokens(g.contextWindow)}${g.estimated ? ' ~' : ''}
            · <span class="label-ratio">${Math.round(g.ratio * 100)}%</span></span>
          <span>${untilCompact > 0 ? `${untilCompact}% until auto-compact` : 'compacting at next step'} · ${formatCost(g.totalCostUsd)}</span>
        </div>
      </div>
    `;
  }
}
customElements.define('skein-token-gauge', SkeinTokenGauge);
