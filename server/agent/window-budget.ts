// The room a request leaves for its answer in a window, one rule in one
// place: the output floor, the margin for the estimate's error, the reserve
// kept free before a request goes out, and the window a refusal that names no
// number implies. Pure functions (window.ts holds the session's state).

/** No request asks for less output than this: an answer needs room. */
export const OUTPUT_FLOOR = 1024;
/** In a tiny window (a local server's 4k) the floor is an eighth of it, at least this: a tool call or a short answer. */
export const MIN_OUTPUT_FLOOR = 256;

/** The output floor in a window: 1,024 from 8,192 tokens up, an eighth of the window below (at least 256), so a small window keeps room for the conversation. */
export function outputFloor(contextWindow: number): number {
  return Math.min(OUTPUT_FLOOR, Math.max(MIN_OUTPUT_FLOOR, Math.floor(contextWindow / 8)));
}

/** Room kept free beside the input estimate and the answer: the estimate's error. */
export function windowMargin(contextWindow: number): number {
  return Math.ceil(0.01 * contextWindow) + 16;
}
/** OpenCode budgets the next request against the window minus 20k: skein keeps at most that much free for the answer. */
export const OUTPUT_RESERVE_CAP = 20_000;

/** The room kept free for the answer before a request goes out: the request's output budget, at most 20k, at least the floor. */
export function outputReserve(contextWindow: number, maxOutputTokens: number): number {
  return Math.max(outputFloor(contextWindow), Math.min(maxOutputTokens, OUTPUT_RESERVE_CAP));
}

/** Assumed window after a refusal that names no number, when nothing was answered yet: the refused request (input + output budget) minus 10%. */
export const UNNAMED_SHRINK = 0.9;

/**
 * The window to assume after a refusal that names no number, of a request of
 * `asked` tokens (input and output budget) when the server already read a
 * prompt of `proven` tokens in full: the window lies between the two. Before
 * anything was answered, the refused request minus 10% (the first refusal is
 * often the output budget alone). After, the largest prompt read in full when
 * it is at least half of the refused request (a session grows a little at a
 * time: the window is then certainly not passed again, at the cost of a few
 * tokens), else halfway between them.
 */
export function unnamedWindow(asked: number, proven: number): number {
  if (proven <= 0) return Math.floor(UNNAMED_SHRINK * asked);
  if (proven >= asked / 2) return Math.min(proven, Math.floor(UNNAMED_SHRINK * asked));
  return Math.floor((proven + asked) / 2);
}
