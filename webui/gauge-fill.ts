// What the gauge's bar and numbers show for a context that may be over its
// window (an estimate during a compaction, or a server that took more than
// skein believed): the segments never add up past the bar's width, the
// meter's value never passes its maximum, and the words say "over the window"
// with the true share instead of a bar past 100%.
import type { Gauge } from '../shared/protocol.js';

export interface GaugeFill {
  /** Widths of the segments in percent of the bar; together at most 100. */
  read: number;
  write: number;
  input: number;
  /** The context is larger than the window. */
  over: boolean;
  /** "54%", or "over the window: 111%". */
  share: string;
  /** aria-valuenow: the tokens in context, at most the window (aria-valuemax). */
  valueNow: number;
}

export function gaugeFill(g: Pick<Gauge, 'contextTokens' | 'contextWindow' | 'ratio' | 'cacheRead' | 'cacheWrite' | 'input'>): GaugeFill {
  const read = Math.max(0, g.cacheRead ?? 0);
  const write = Math.max(0, g.cacheWrite ?? 0);
  const input = Math.max(0, g.input ?? g.contextTokens - read - write);
  const over = g.contextTokens > g.contextWindow || g.ratio > 1;
  // Over the window the bar is full and split as the context is; under it, each segment is its share of the window.
  const whole = Math.max(g.contextWindow, read + write + input, 1);
  const width = (n: number) => (n / whole) * 100;
  const percent = `${Math.round(g.ratio * 100)}%`;
  return {
    read: width(read),
    write: width(write),
    input: width(input),
    over,
    share: over ? `over the window: ${percent}` : percent,
    valueNow: Math.min(Math.max(0, g.contextTokens), g.contextWindow),
  };
}
