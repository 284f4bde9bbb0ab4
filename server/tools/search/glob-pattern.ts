// Glob patterns as regular expressions (Node 20 has no fs.glob nor
// path.matchesGlob). `*` and `?` stay within one path segment, `**` spans
// folders, `[abc]` / `[!abc]` are classes, `{a,b}` alternatives (may nest).
// A pattern without a slash matches the file's name in any folder, the way
// .gitignore and ripgrep's --glob read it, so `*.ts` finds every .ts file.
import { ToolInputError } from '../tool.js';

const SPECIAL = /[.+^$()|\\/]/;

export interface GlobMatcher {
  /** Tests a path relative to the searched folder, `/`-separated. */
  matches(relativePath: string): boolean;
  pattern: string;
}

export function globMatcher(pattern: string): GlobMatcher {
  if (pattern.trim() === '') throw new ToolInputError('"pattern" must not be empty');
  const trimmed = pattern.replace(/^\.\//, '');
  const anywhere = !trimmed.includes('/');
  const re = new RegExp(`^${translate(trimmed)}$`);
  return {
    pattern,
    matches: (rel) => re.test(anywhere ? rel.slice(rel.lastIndexOf('/') + 1) : rel),
  };
}

/** A character that stands for itself. */
function literal(c: string): string {
  return SPECIAL.test(c) || '*?[]{}'.includes(c) ? `\\${c}` : c;
}

function translate(glob: string): string {
  let out = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        // `**/` is zero or more folders; a trailing `**` is anything below.
        const slash = glob[i + 2] === '/';
        out += slash ? '(?:[^/]*/)*' : '.*';
        i += slash ? 2 : 1;
      } else out += '[^/]*';
    } else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) {
        out += '\\[';
        continue;
      }
      let body = glob.slice(i + 1, end);
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      out += `[${body.replace(/\\/g, '\\\\')}]`;
      i = end;
    } else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) out += '|';
    else if (c === '\\' && i + 1 < glob.length) out += literal(glob[++i]!);
    else out += literal(c);
  }
  if (braces > 0) throw new ToolInputError(`"${glob}" has an unclosed "{"`);
  return out;
}
