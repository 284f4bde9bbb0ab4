// "Retry" on a failed turn: the message of that turn is sent again (text and
// images), as the user would by typing it. The server has no operation that
// re-runs a turn without a new message, so the log gets the message a second
// time, exactly as a resend by hand would. Offered on the latest failed turn
// only: once something was sent after it, the button goes.
import type { ImageInput, UserEvent } from '../shared/protocol.js';
import type { ImageMediaType } from '../shared/wire/constants.js';
import type { Row } from './timeline-model.js';
import { imageUrl } from './skein-user-message.js';

/** Errors a resend cannot help with: a damaged log line (no turn failed), a turn limit (say "continue" instead). */
const NOT_RETRIED = new Set(['damaged_log_line', 'turn_limit']);

export interface RetryTarget {
  /** The error row that offers Retry. */
  errorSeq: number;
  /** The user message of the failed turn. */
  message: UserEvent;
}

/** The latest failed turn, when nothing was sent since: its error and its message (undefined: no Retry). */
export function retryTarget(rows: readonly Row[]): RetryTarget | undefined {
  let errorSeq: number | undefined;
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i]!;
    if (row.kind === 'user') return errorSeq === undefined ? undefined : { errorSeq, message: row.event };
    if (row.kind === 'error' && errorSeq === undefined) {
      if (row.event.code && NOT_RETRIED.has(row.event.code)) return undefined;
      errorSeq = row.seq;
    }
  }
  return undefined;
}

/** The message's images as a client sends them (read back from the session's files). */
export async function imagesOf(message: UserEvent): Promise<ImageInput[]> {
  const images: ImageInput[] = [];
  for (const ref of message.images ?? []) {
    const res = await fetch(imageUrl(ref.file));
    if (!res.ok) throw new Error(`image ${ref.file.split(/[\\/]/).at(-1)} could not be read (${res.status})`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    images.push({ mediaType: ref.mediaType as ImageMediaType, data: btoa(binary) });
  }
  return images;
}
