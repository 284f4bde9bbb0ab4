// How each timeline row is drawn, and how tall it probably is before it has
// been measured (the windowed timeline needs a guess for rows it has not drawn).
import { html, nothing, type TemplateResult } from 'lit';
import type { Row } from './timeline-model.js';
import { infoIcon } from './icons.js';
import { COLLAPSED_PX, isLong } from './long-text.js';
import './skein-agent-message.js';
import './skein-compaction-divider.js';
import './skein-error-message.js';
import './skein-tool-card.js';
import './skein-user-message.js';

// The status icon is drawn: the fonts Debian's Chromium has lack ⓘ (an empty box).
const NOTICE_ICON = { retry: '↻', cancel: '■', info: '⇄', status: infoIcon, cut: '✂' } as const;

/** `expanded`: a long message is shown whole (the reader opened it, or a jump landed on it); `retrySeq`: the error row that offers Retry (the latest failed turn: retry.ts). */
export function renderRow(row: Row, expanded = false, retrySeq?: number): TemplateResult | typeof nothing {
  switch (row.kind) {
    case 'user':
      return html`<skein-user-message .event=${row.event} ?folded=${row.folded} ?expanded=${expanded}></skein-user-message>`;
    case 'agent':
      return html`<skein-agent-message .event=${row.event} ?folded=${row.folded} ?expanded=${expanded}></skein-agent-message>`;
    case 'tool':
      return html`<skein-tool-card .call=${row.call} .result=${row.result} .approvalRequest=${row.approvalRequest} .approvalDecision=${row.approvalDecision}
        .subagent=${row.subagent} .childApproval=${row.childApproval} ?folded=${row.folded} ?cleared=${row.cleared}></skein-tool-card>`;
    case 'compaction':
      return html`<skein-compaction-divider id="compaction-${row.seq}" .event=${row.event} .startedAt=${row.startedAt}
        .ledger=${row.ledger}></skein-compaction-divider>`;
    case 'error':
      return html`<skein-error-message .event=${row.event} ?retryable=${row.seq === retrySeq}></skein-error-message>`;
    case 'notice':
      return html`<p class="notice ${row.tone}" role="note">${NOTICE_ICON[row.tone]} ${row.text}</p>`;
  }
}

const LINE = 22;

function lines(text: string, perLine: number): number {
  let n = 0;
  for (const line of text.split('\n', 200)) n += Math.max(1, Math.ceil(line.length / perLine));
  return n;
}

/** A guess of a row's height in pixels, good enough for the scrollbar until it is measured. */
export function estimateHeight(row: Row): number {
  switch (row.kind) {
    // A long message is drawn collapsed until opened (an open one has been drawn, so measured).
    case 'user':
      return isLong(row.event.text) ? 80 + COLLAPSED_PX : 48 + LINE * lines(row.event.text, 70);
    case 'agent':
      return isLong(row.event.text) ? 76 + COLLAPSED_PX : 44 + LINE * lines(row.event.text, 90);
    case 'tool': {
      const out = row.result ? Math.min(8, row.result.output.split('\n', 10).length - 1) : 0;
      // A pending approval shows its preview (up to 40vh) and the buttons.
      const asking = !row.result && row.approvalRequest && !row.approvalDecision ? 90 + 20 * Math.min(16, row.approvalRequest.preview.text.split('\n', 20).length) : 0;
      return 78 + asking + (row.approvalDecision ? 22 : 0) + 20 * out + (row.result && row.result.output.split('\n', 10).length > 9 ? 30 : 0);
    }
    case 'compaction':
      return row.event.phase === 'finished' ? 96 : 48;
    case 'error':
      return 60 + LINE * Math.min(10, lines(row.event.message.trim(), 90));
    case 'notice':
      return 34;
  }
}
