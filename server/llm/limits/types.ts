// The limits a server said (or a refusal taught), as the cache, the data
// folder's file and a session's window keep them: a `limits` event without
// its log fields.
import type { LimitsEvent } from '../../../shared/protocol.js';

export type KnownLimits = Omit<LimitsEvent, 'seq' | 'ts' | 'kind' | 'message' | 'unanswered'>;
