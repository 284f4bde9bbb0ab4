// The output budget, as the real APIs keep it: an answer longer than the
// request's max_tokens (max_output_tokens, maxOutputTokens) stops there, its
// text cut, the whole budget reported as output, and the stop named in each
// API's own words (finish_reason "length", stop_reason "max_tokens",
// finishReason "MAX_TOKENS", Responses status "incomplete" with
// incomplete_details.reason "max_output_tokens"). Answers with tool calls are
// never cut here.

/** `text` within `limit` output tokens by `count` (plus the one token the fakes add for the end of the answer). */
export function withinMaxTokens(text: string, calls: readonly unknown[], limit: number | undefined, count: (text: string) => number): { text: string; cut: boolean } {
  if (!limit || calls.length || count(text) + 1 <= limit) return { text, cut: false };
  // The longest prefix that fits (a model writes token by token: it stops mid-word as readily as between words).
  let fits = 0;
  let over = text.length;
  while (over - fits > 1) {
    const mid = (fits + over) >> 1;
    if (count(text.slice(0, mid)) + 1 <= limit) fits = mid;
    else over = mid;
  }
  return { text: text.slice(0, fits), cut: true };
}
