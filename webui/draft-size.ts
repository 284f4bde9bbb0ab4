// What the composer says about a draft before it is sent: its tokens against
// the room left in the window, and what will happen to a draft that does not
// fit (compaction first, saved whole as a file, or refused as too large for
// one message). The estimate is rough (about 4 bytes a token); the server
// counts exactly when the message arrives.
import type { Gauge } from '../shared/protocol.js';
import { LARGE_MESSAGE_SHARE, MAX_FRAME_BYTES, MAX_MESSAGE_CHARS } from '../shared/wire/constants.js';
import { exact } from './format.js';

export interface DraftSize {
  tokens: number;
  /** What the count line says. */
  count: string;
  /** What happens when it is sent, when that is not simply "it is sent". */
  warning?: string;
  /** Too large for one message: it cannot be sent. */
  refused?: string;
}

const encoder = new TextEncoder();

export function draftSize(text: string, gauge: Gauge | undefined): DraftSize {
  const bytes = encoder.encode(JSON.stringify({ type: 'user_message', text })).length;
  const tokens = Math.ceil(encoder.encode(text).length / 4);
  if (bytes > MAX_FRAME_BYTES || text.length > MAX_MESSAGE_CHARS) {
    return {
      tokens,
      count: `${megabytes(bytes)} · ${exact(text.length)} characters`,
      refused:
        `Too large to send: this message is ${megabytes(bytes)} (${exact(text.length)} characters); one message may be at most ` +
        `${megabytes(MAX_FRAME_BYTES)} and ${exact(MAX_MESSAGE_CHARS)} characters. Nothing was sent and your text stays here: ` +
        'put it in a file in the working folder and ask the agent to read it.',
    };
  }
  if (!gauge) return { tokens, count: `≈${exact(tokens)} tokens` };
  const left = Math.max(0, gauge.contextWindow - gauge.contextTokens);
  const count = `≈${exact(tokens)} tokens · ${exact(left)} of ${exact(gauge.contextWindow)} left`;
  if (tokens > gauge.contextWindow * LARGE_MESSAGE_SHARE) {
    return {
      tokens,
      count,
      warning:
        `Larger than this ${exact(gauge.contextWindow)}-token window holds at once: it will be kept whole as a file of the session; ` +
        'the model sees its start, its size and where it is, and reads the rest as it needs.',
    };
  }
  if (tokens > left) return { tokens, count, warning: 'More than the room left: older history will be compacted first; your message stays whole.' };
  return { tokens, count };
}

function megabytes(bytes: number): string {
  return bytes === MAX_FRAME_BYTES ? '1 MiB' : `${(bytes / (1024 * 1024)).toFixed(2)} MiB`;
}
