// Fetching a session's history in pages: the tail first (the first screen
// needs only the last page), then earlier pages that double each time (few
// requests to reach the start of a long session), or all of them (Home).
import type { SkeinEvent } from '../shared/protocol.js';
import * as api from './api.js';
import type { TimelineModel } from './timeline-model.js';

/** Events fetched for the first screen (the tail); earlier pages double from here. */
export const FIRST_PAGE = 400;
/** The server's largest page. */
const MAX_PAGE = 5000;

/**
 * The events before the first one `model` holds, oldest first: one page, or
 * every earlier page with `all`. Undefined when the page went stale (another
 * session opened) or the server made no progress.
 */
export async function earlierEvents(id: string, model: TimelineModel, all: boolean, isCurrent: (model: TimelineModel) => boolean): Promise<SkeinEvent[] | undefined> {
  // Home: every earlier page, then one rebuild (not one per page).
  const pages: SkeinEvent[][] = [];
  let before = model.base + 1;
  do {
    const want = all ? before - 1 : Math.max(FIRST_PAGE, model.events.length);
    const page = await api.getEventsBefore(id, before, Math.min(want, MAX_PAGE));
    // A page that does not reach further back (a server answering the same page again) would loop for ever on Home.
    if (!isCurrent(model) || !page.events.length || page.events[0]!.seq >= before) return undefined;
    pages.unshift(page.events);
    before = page.events[0]!.seq;
  } while (all && before > 1);
  return pages.flat();
}
