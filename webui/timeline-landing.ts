// A jump to one row of the windowed timeline (a search result, a compaction
// on the sparkline). The offsets of rows not yet drawn are guesses, and a row
// far taller than its guess (a 100 KB paste) moves everything below it once
// measured: so the position is taken from where the row really is, after each
// render and measurement, until it stays put.
import { PAD_TOP } from './timeline-styles.js';

/** Renders a jump may take to land (each measures what it drew). */
const MAX_STEPS = 12;

/** What a jump needs of <skein-timeline>. */
export interface LandingHost extends HTMLElement {
  /** The row's element, when it is drawn. */
  rowElement(seq: number): HTMLElement | null;
  /** Where the row starts, from measured heights or guesses (scrollTop units, without the padding). */
  guessedTop(seq: number): number;
  /** The reader is no longer following the bottom. */
  leaveBottom(): void;
  requestUpdate(): void;
  readonly updateComplete: Promise<boolean>;
}

/** Brings the row into view (a third down the screen, or its top at the top when it is taller than that) and flashes it. */
export async function landOn(host: LandingHost, seq: number): Promise<void> {
  for (let step = 0; step < MAX_STEPS; step++) {
    const row = host.rowElement(seq);
    if (row) {
      const off = row.getBoundingClientRect().top - host.getBoundingClientRect().top - landingTop(host, row);
      if (Math.abs(off) < 2) break;
      host.scrollTop += off;
    } else {
      host.scrollTop = PAD_TOP + host.guessedTop(seq) - host.clientHeight / 3;
    }
    host.leaveBottom();
    host.requestUpdate();
    await settled(host);
  }
  const row = host.rowElement(seq);
  if (!row) return;
  row.classList.remove('flash');
  void row.offsetWidth; // restart the animation
  row.classList.add('flash');
}

/** Where a row lands, from the top of the view: a third down, or at the top (a little padding) when taller than two thirds. */
function landingTop(host: HTMLElement, row: HTMLElement): number {
  return row.offsetHeight > (host.clientHeight * 2) / 3 ? PAD_TOP : host.clientHeight / 3;
}

/** The render asked for is done, its rows measured (the resize observer runs after layout) and the spacers redrawn. */
async function settled(host: LandingHost): Promise<void> {
  await host.updateComplete;
  for (let i = 0; i < 2; i++) await new Promise((resolve) => requestAnimationFrame(resolve));
  await host.updateComplete;
}

/** A long message just closed: when its top went above the view, it comes back (else the rows after it would be shown). */
export function showTopOf(host: LandingHost, seq: number): void {
  const row = host.rowElement(seq);
  if (!row) return;
  const above = row.getBoundingClientRect().top - host.getBoundingClientRect().top;
  if (above < 0) host.scrollTop += above - PAD_TOP;
}
