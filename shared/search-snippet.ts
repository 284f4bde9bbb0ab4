// The words around a search match that a result shows: the server cuts them
// from the message that matched (GET /api/sessions?q=, `match.snippet`), the
// session list marks the words searched for in them. Words are matched as the
// search index matches them: case-insensitive, the last letters of a word may
// be missing ("zanz" finds "zanzibar").

/** Characters kept before and after the first word found. */
const BEFORE = 60;
const AFTER = 120;
const WORD = /[\p{L}\p{N}_]+/gu;

/** The lower-cased words of a query. */
export function queryWords(query: string): string[] {
  return [...new Set(query.toLowerCase().match(WORD) ?? [])];
}

function found(word: string, wanted: readonly string[]): boolean {
  const lower = word.toLowerCase();
  return wanted.some((w) => lower.startsWith(w));
}

/** About 180 characters of `text` around its first word that the query finds (its start when none), on one line, "…" where cut. */
export function snippetAround(text: string, query: string): string {
  const wanted = queryWords(query);
  let at = 0;
  for (const m of text.matchAll(WORD)) {
    if (found(m[0], wanted)) {
      at = m.index;
      break;
    }
  }
  let start = Math.max(0, at - BEFORE);
  // Not in the middle of a word.
  if (start > 0) start = Math.min(at, text.indexOf(' ', start) + 1 || at);
  const end = Math.min(text.length, at + AFTER);
  const cut = text.slice(start, end).replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${cut}${end < text.length ? '…' : ''}`;
}

/** The snippet in pieces, the words the query finds marked. */
export function markedParts(snippet: string, query: string): { text: string; mark: boolean }[] {
  const wanted = queryWords(query);
  const parts: { text: string; mark: boolean }[] = [];
  let last = 0;
  for (const m of snippet.matchAll(WORD)) {
    if (!found(m[0], wanted)) continue;
    if (m.index > last) parts.push({ text: snippet.slice(last, m.index), mark: false });
    parts.push({ text: m[0], mark: true });
    last = m.index + m[0].length;
  }
  if (last < snippet.length) parts.push({ text: snippet.slice(last), mark: false });
  return parts;
}
