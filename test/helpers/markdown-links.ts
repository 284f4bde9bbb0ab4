// The relative links of markdown pages and whether they resolve: the file
// exists, and an anchor names a heading of it (GitHub's slugs). Links to
// other sites are not fetched.
import fs from 'node:fs';
import path from 'node:path';

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The text outside fenced code blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of markdown.replace(/^```[\s\S]*?^```/gm, '').split('\n')) {
    const m = /^#{1,6} (.+)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

export function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

/** Every link of `file` that does not resolve, with the reason. */
export function brokenLinks(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const problems: string[] = [];
  for (const target of links(text)) {
    if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto:
    const [rel, anchor] = target.split('#', 2) as [string, string | undefined];
    const dest = rel ? path.resolve(path.dirname(file), decodeURIComponent(rel)) : path.resolve(file);
    if (!fs.existsSync(dest)) {
      problems.push(`${file}: ${target}: no such file`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!dest.endsWith('.md')) problems.push(`${file}: ${target}: an anchor into a file that is not markdown`);
    else if (!anchors(fs.readFileSync(dest, 'utf8')).has(anchor)) problems.push(`${file}: ${target}: no heading with that anchor`);
  }
  return problems;
}
