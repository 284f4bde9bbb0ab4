// What the gauge draws and says about the compaction threshold: its colour
// level (amber within NEAR of the threshold, red at or past it), where the
// threshold's tick stands on the bar, and the distance to auto-compact in words.
import type { Gauge } from '../shared/protocol.js';

/** How close to the threshold (as a share of the window) the gauge turns amber. */
export const NEAR = 0.15;

export type GaugeLevel = 'ok' | 'near' | 'over';

export function gaugeLevel(g: Pick<Gauge, 'ratio' | 'thresholdRatio'>): GaugeLevel {
  if (g.ratio >= g.thresholdRatio) return 'over';
  return g.ratio >= g.thresholdRatio - NEAR ? 'near' : 'ok';
}

/** The tick's CSS `left`: centred (2 px wide) on the threshold's share of the bar. */
export function tickLeft(thresholdRatio: number): string {
  return `calc(${thresholdRatio * 100}% - 1px)`;
}

/** The threshold in whole percent: "compacts at 80%". */
export function thresholdPercent(thresholdRatio: number): number {
  return Math.round(thresholdRatio * 100);
}

/** "12% until auto-compact", or "auto-compact at the next step" once within half a percent. */
export function untilWords(g: Pick<Gauge, 'ratio' | 'thresholdRatio'>): string {
  const until = Math.max(0, Math.round((g.thresholdRatio - g.ratio) * 100));
  return until > 0 ? `${until}% until auto-compact` : 'auto-compact at the next step';
}
