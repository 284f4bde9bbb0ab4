// A user's message inside a summary or ledger list, byte for byte: a one-line
// message is the list item itself; a longer one follows it between fences
// (longer than any run of tildes in it), so line breaks, blank lines and
// leading spaces survive and nothing in the text can end the block early.

/** `- <label><text>` for one line; else `- <label>(N lines, verbatim between the fences):` and the fenced text. */
export function verbatimItem(label: string, text: string): string {
  if (!text.includes('\n')) return `- ${label}${text}`;
  const longestRun = Math.max(0, ...(text.match(/~+/g) ?? []).map((run) => run.length));
  const fence = '~'.repeat(Math.max(3, longestRun + 1));
  return `- ${label}(${text.split('\n').length} lines, verbatim between the fences):\n${fence}\n${text}\n${fence}`;
}
