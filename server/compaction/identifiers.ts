// The names a later step is likely to need from a tool output that leaves the
// model's view: paths (with a line number when the output gives one), dotted
// and snake_case or CamelCase symbols, error codes. A cleared result's
// placeholder and the ledger list them, so the model can name a file or a
// function it saw without reading the whole output back (search_history
// still can). Deterministic: the view is derived from the log again after a restart.

const PATTERNS: RegExp[] = [
  // path:line, then paths with a slash, then file names with an extension.
  /(?:[\w.-]*\/)*[\w-]+\.[A-Za-z]\w{0,5}:\d+/g,
  /(?:\.{0,2}\/)?(?:[\w.-]+\/)+[\w.-]+/g,
  /\b[\w-]+\.(?:py|pyi|pyx|js|mjs|ts|tsx|jsx|json|ya?ml|toml|cfg|ini|txt|rst|md|c|h|cc|cpp|hpp|go|rs|java|rb|html|css|sh|lock)\b/g,
  // module.attr, snake_case, CamelCase with two humps or more, lint and error codes.
  /\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b/g,
  /\b_*[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+_*\b/g,
  /\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b/g,
  /\b[A-Z]{1,2}\d{3,4}\b/g,
];

/** Shorter names say little and are cheap to type again. */
const MIN_CHARS = 4;
const MAX_CHARS = 120;

/**
 * The distinct identifiers of `text`, in order of first appearance, at most
 * `maxChars` characters of them in all (the rest counted in `more`).
 */
export function identifiersIn(text: string, maxChars: number): { ids: string[]; more: number } {
  const found: { id: string; at: number }[] = [];
  const seen = new Set<string>();
  for (const re of PATTERNS) {
    for (const m of text.matchAll(re)) {
      const id = m[0].replace(/[.:/-]+$/, '');
      if (id.length < MIN_CHARS || id.length > MAX_CHARS || /^[\d.]+$/.test(id) || seen.has(id)) continue;
      seen.add(id);
      found.push({ id, at: m.index });
    }
  }
  found.sort((a, b) => a.at - b.at);
  // A name inside a longer one already listed (the file of a path:line, a path's last part) adds nothing.
  const all = found.map((f) => f.id);
  const joined = `\u0000${all.join('\u0000')}\u0000`;
  const ids: string[] = [];
  let used = 0;
  let more = 0;
  for (const id of all) {
    // Found twice in the list: once as itself, once inside a longer name.
    const first = joined.indexOf(id);
    if (joined.indexOf(id, first + 1) >= 0) continue;
    if (used + id.length + 2 > maxChars) {
      more++;
      continue;
    }
    used += id.length + 2;
    ids.push(id);
  }
  return { ids, more };
}
