// The agent's Markdown made readable on a terminal (`skein run` in text mode,
// stdout a TTY): headings and **bold** in bold, `code` and fenced blocks in
// colour, list bullets as •, quotes with a bar, links as "text (url)". Line by
// line, no parser and no dependency: what it does not know stays as written.
//
// The text must already be safe (forTerminal): the model's own escape
// characters are visible escapes by then, so the only sequences a terminal
// obeys are the ones added here. Off a TTY the text is printed as it is.

const BOLD = ['\x1b[1m', '\x1b[22m'] as const;
const ITALIC = ['\x1b[3m', '\x1b[23m'] as const;
const DIM = ['\x1b[2m', '\x1b[22m'] as const;
const CODE = ['\x1b[36m', '\x1b[39m'] as const;
const HEADING = ['\x1b[1;4m', '\x1b[22;24m'] as const;

const wrap = ([on, off]: readonly [string, string], text: string) => `${on}${text}${off}`;

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w+#.-]*)\s*$/;

/** Inline marks of one line of prose: `code` first (nothing inside it is a mark), then links, **bold**, *italic*. */
function inline(line: string): string {
  return line
    .split(/(`[^`]+`)/)
    .map((part, i) => {
      if (i % 2 === 1) return wrap(CODE, part.slice(1, -1));
      return part
        .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, text: string, url: string) => (text === url ? url : `${text} (${url})`))
        .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__/g, (_, a: string | undefined, b: string | undefined) => wrap(BOLD, a ?? b ?? ''))
        .replace(/(?<![\w*])\*(?=[^\s*])([^*]+?)(?<=\S)\*(?![\w*])/g, (_, text: string) => wrap(ITALIC, text));
    })
    .join('');
}

/** One block of prose or structure (not inside a fence). */
function proseLine(line: string): string {
  const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
  if (heading) return heading[1]!.length <= 2 ? wrap(HEADING, heading[2]!) : wrap(BOLD, heading[2]!);
  if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) return wrap(DIM, '─'.repeat(40));
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
  if (bullet) return `${bullet[1]}• ${inline(bullet[2]!)}`;
  const quote = /^\s{0,3}>\s?(.*)$/.exec(line);
  if (quote) return `${wrap(DIM, '│')} ${inline(quote[1]!)}`;
  return inline(line);
}

/** `text` (already safe for a terminal) with its Markdown shown as terminal styles. */
export function styleMarkdown(text: string): string {
  const out: string[] = [];
  let fence: { marker: string } | undefined;
  for (const line of text.split('\n')) {
    const isFence = FENCE.exec(line);
    if (fence) {
      if (isFence && isFence[2]!.startsWith(fence.marker) && !isFence[3]) {
        fence = undefined;
        continue;
      }
      out.push(line ? `  ${wrap(CODE, line)}` : '');
    } else if (isFence) {
      fence = { marker: isFence[2]! };
      if (isFence[3]) out.push(wrap(DIM, `  ${isFence[3]}`));
    } else {
      out.push(proseLine(line));
    }
  }
  return out.join('\n');
}
