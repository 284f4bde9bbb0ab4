// Untrusted text (a repository's .mcp.json, a model's answer, a tool's
// output, a session title) made safe to print on a terminal. A terminal
// obeys what it is sent: ESC starts a sequence that can clear the line,
// hide text (`\x1b[8m`), set the window title or write the clipboard (OSC);
// CR and backspace overwrite what was printed; bidi overrides reorder it
// (`\u202e`: what you read is not what runs); zero-width characters hide in a
// command line. Each such character is shown as a visible escape instead:
// `\x1b`, `\r`, `\u202e`.
//
// Kept as they are: `\t` (it only moves right, it cannot hide or overwrite
// text) and, unless `multiline: false`, `\n` (callers that render several
// lines want them; a one-line context, a table row, shows `\n`). A `\r`
// right before a `\n` goes (a CRLF line ending overwrites nothing). ZWJ and
// ZWNJ (U+200D, U+200C) are kept: emoji sequences and several scripts need
// them, and they reorder or hide nothing. A backslash is not escaped: a
// literal `\x1b` in the text stays four harmless characters (`shellQuoted`
// is the exact form, for what will run).

/** C0 and C1 controls, DEL, bidi controls, and other invisible format characters (Unicode Cf, separators) but ZWNJ/ZWJ. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|\p{Cf}/gu;

/** Characters with a short escape of their own. */
const NAMED: Record<string, string> = { '\r': '\\r', '\b': '\\b', '\f': '\\f', '\v': '\\v', '\0': '\\0', '\n': '\\n', '\t': '\\t' };

/** One character as a visible escape: `\r`, `\x1b`, `\u202e`, `\u{e0041}`. */
export function escapeChar(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.codePointAt(0)!;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code < 0x10000) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

function unsafe(c: string): boolean {
  return c !== '\u200c' && c !== '\u200d';
}

/** `s` with every control, bidi and invisible format character shown as an escape (see above). */
export function forTerminal(s: string, options: { multiline?: boolean } = {}): string {
  const multiline = options.multiline ?? true;
  const text = multiline ? s.replace(/\r\n/g, '\n') : s;
  return text.replace(UNSAFE, (c) => (unsafe(c) ? escapeChar(c) : c)).replace(/\n/g, (c) => (multiline ? c : escapeChar(c)));
}

/** True when `s` has a character forTerminal would escape (a newline counts). */
export function hasUnsafeCharacters(s: string): boolean {
  return forTerminal(s, { multiline: false }) !== s;
}

/**
 * One argument exactly as a shell would need it, for showing what will run:
 * bare when it is plain, in single quotes otherwise, and in bash's `$'…'`
 * (every control, bidi and invisible character escaped, backslashes and
 * quotes too) when a character in it could not be shown as itself. Pasted
 * into bash it is the same argument.
 */
export function shellQuoted(arg: string): string {
  if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
  // A tab is shown as an escape here too: what will run must be read exactly.
  if (!hasUnsafeCharacters(arg) && !arg.includes('\t')) return `'${arg.replace(/'/g, `'\\''`)}'`;
  // Inside $'…' bash reads \xHH, \uHHHH and \UHHHHHHHH; so \u{…} is written as \U.
  const body = [...arg]
    .map((c) => {
      if (c === '\\') return '\\\\';
      if (c === "'") return "\\'";
      if (!hasUnsafeCharacters(c) && c !== '\t') return c;
      const code = c.codePointAt(0)!;
      return code >= 0x10000 ? `\\U${code.toString(16).padStart(8, '0')}` : escapeChar(c);
    })
    .join('');
  return `$'${body}'`;
}

/**
 * `JSON.stringify(value)` safe for a terminal: JSON already escapes C0
 * controls in strings, not DEL, C1 or bidi and format characters; those
 * become `\uXXXX` too. The same JSON to a parser (they only occur inside strings).
 */
export function jsonForTerminal(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE, (c) => (unsafe(c) ? utf16Escapes(c) : c));
}

/** A character as JSON's `\uXXXX` escapes, one per UTF-16 unit (a surrogate pair for U+10000 and above). */
function utf16Escapes(c: string): string {
  let out = '';
  for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}
