// Code highlighting: highlight.js core with the handful of languages a coding
// agent's answers mostly contain. Chosen because it is synchronous (a row can
// render in one pass, which the windowed timeline needs), has no WASM or
// grammar downloads (Shiki needs both), escapes its input itself, and the core
// plus these grammars is about 40 kB minified. Anything else is shown plain.
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const LANGUAGES = { bash, css, diff, go, javascript, json, python, rust, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);
hljs.registerAliases(['sh', 'shell', 'zsh', 'console'], { languageName: 'bash' });
hljs.registerAliases(['js', 'mjs', 'jsx'], { languageName: 'javascript' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });
hljs.registerAliases(['py'], { languageName: 'python' });
hljs.registerAliases(['yml'], { languageName: 'yaml' });
hljs.registerAliases(['patch'], { languageName: 'diff' });

/** Highlighted, HTML-escaped code; plain escaped text for an unknown or missing language. */
export function highlight(code: string, lang: string | undefined): string {
  const name = lang?.trim().split(/\s+/, 1)[0]?.toLowerCase();
  if (name && hljs.getLanguage(name) && code.length < 100_000) {
    return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
  }
  return escapeHtml(code);
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
