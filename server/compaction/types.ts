// Types the compaction room shares across its files, below all of them so
// every import points one way (view.ts and ledger.ts both use these).
import type { Ledger, ViewMessage } from '../../shared/protocol.js';

/** A view message with the seq of the event it came from (a summary: the first seq it covers). */
export interface SourcedMessage extends ViewMessage {
  seq: number;
  /** Set on a summary message: what it says and the seq range it stands for, for the next (incremental) compaction. */
  summaryOf?: { summary: string; ledger?: Ledger; covers: [number, number] };
  /** Set on a message the user typed (not a status note, not a summary): the last one is the message being answered. */
  fromUser?: true;
  /** Set on an answer that did not end its turn (a cut answer the model goes on from): the turn is still being answered. */
  goesOn?: true;
  /** Set on a message the user typed while a turn ran (it joined the view after that step's results). */
  midTurn?: true;
  /** Set on a cleared tool result: the size of the output the placeholder stands for. */
  clearedChars?: number;
}
