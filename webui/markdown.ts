// Markdown from the model, rendered safely: marked turns it into HTML (code
// blocks highlighted), then DOMPurify removes anything that could run
// (scripts, event handlers, javascript: URLs, forms, frames, styles). Output
// of tools is never rendered as markdown; it is shown as text.
import DOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';
import { escapeHtml, highlight } from './highlight.js';

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    code({ text, lang }: Tokens.Code) {
      const language = lang?.trim().split(/\s+/, 1)[0] ?? '';
      const label = language ? `<span class="lang">${escapeHtml(language)}</span>` : '';
      return `<pre class="code">${label}<code class="hljs">${highlight(text, language)}</code></pre>\n`;
    },
  },
});

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

const PURIFY = {
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed', 'svg', 'math', 'base', 'meta', 'link'],
  FORBID_ATTR: ['style', 'srcset', 'formaction', 'xlink:href'],
};

// Rows leave and re-enter the DOM as the timeline scrolls: keep recent results.
const cache = new Map<string, string>();
const CACHE_ENTRIES = 400;

export function renderMarkdown(text: string): string {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const html = DOMPurify.sanitize(marked.parse(text) as string, PURIFY);
  if (text.length < 50_000) {
    if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(text, html);
  }
  return html;
}

/** Markdown without the cache, for text that changes on every frame (a streamed answer). */
export function renderMarkdownOnce(text: string): string {
  return DOMPurify.sanitize(marked.parse(text) as string, PURIFY);
}
