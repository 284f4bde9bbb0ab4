// The neutral identifier measure: one normalisation for every policy's view
// and for the original content, and one extractor of identifiers (paths,
// dotted and snake_case or CamelCase symbols, error codes, path:line, hashes,
// numbers with units). Nothing here knows how any policy renders a summary.

/**
 * JSON escapes undone (a peer's summary lists calls JSON-escaped), newline
 * renderings (skein's ⏎, an escaped \n) and every run of whitespace collapsed
 * to one space. Applied the same way to the original and to every view.
 */
export function normalise(text: string): string {
  return text
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/\\[nrt]/g, ' ')
    .replace(/\\(["'\\/])/g, '$1')
    .replace(/⏎/g, ' ')
    .replace(/\s+/g, ' ');
}

const PATTERNS: RegExp[] = [
  // path:line (an error's location), before the bare path so both are taken.
  /(?:[\w.-]*\/)*[\w-]+\.[A-Za-z]\w{0,5}:\d+/g,
  // Paths with at least one slash.
  /(?:\.{0,2}\/)?(?:[\w.-]+\/)+[\w.-]+/g,
  // File names with an extension.
  /\b[\w-]+\.(?:py|pyi|pyx|js|ts|tsx|json|ya?ml|toml|cfg|ini|txt|rst|md|c|h|cpp|go|rs|html|css|sh|lock)\b/g,
  // Dotted symbols (module.attr.attr).
  /\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b/g,
  // snake_case and dunder names.
  /\b_*[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+_*\b/g,
  // CamelCase with at least two humps (TypeError, DataFrame).
  /\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b/g,
  // Error and lint codes (E501, C0301, W605).
  /\b[A-Z]{1,2}\d{3,4}\b/g,
  // Commit hashes and hex ids (a letter and a digit in 7 to 40 hex characters).
  /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b/g,
  // Numbers with units.
  /\b\d+(?:\.\d+)? ?(?:ms|s|sec|seconds|KB|MB|GB|kB|KiB|MiB|bytes|px|pt)\b/g,
];

const MIN_LENGTH = 4;

/** The identifiers of a text, normalised first unless `normalised` says it already is. */
export function identifiersOf(text: string, normalised = false): Set<string> {
  const t = normalised ? text : normalise(text);
  const out = new Set<string>();
  for (const re of PATTERNS) {
    for (const m of t.matchAll(re)) {
      const id = m[0].replace(/[.:/-]+$/, '');
      if (id.length >= MIN_LENGTH && !/^\d+$/.test(id)) out.add(id);
    }
  }
  return out;
}

/** Whether a (normalised) view holds an identifier: a plain substring test, the same for every policy. */
export function viewHas(normalisedView: string, id: string): boolean {
  return normalisedView.includes(id);
}
