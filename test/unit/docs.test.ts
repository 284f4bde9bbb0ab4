// The documentation: README.md stays short, docs/ pages generated from the
// code match it, and every relative link and anchor resolves.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedParts, withGenerated } from '../../scripts/docs/generate.js';
import { SETTINGS } from '../../server/config.js';
import { EVENT_SCHEMAS } from '../../shared/wire/events.js';
import { ROUTES } from '../../shared/wire/rest.js';
import { anchors, brokenLinks, slug } from '../helpers/markdown-links.js';

const PAGES = ['README.md', ...fs.readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

describe('generated pages', () => {
  for (const { file, text } of generatedParts()) {
    it(`${file} is what \`npm run docs\` writes from the code`, () => {
      const page = fs.readFileSync(file, 'utf8');
      expect(withGenerated(page, text, file), `${file} is stale: run npm run docs`).toBe(page);
    });
  }

  it('the settings page has a row per setting, the wire page a section per event kind and a row per route', () => {
    const settings = fs.readFileSync('docs/settings.md', 'utf8');
    for (const s of SETTINGS) expect(settings).toContain(`| \`${s.env}\` | \`${s.flag}\` | ${s.defaultText.replaceAll('|', '\\|')} |`);
    const wire = fs.readFileSync('docs/wire-protocol.md', 'utf8');
    for (const e of EVENT_SCHEMAS) expect(wire).toContain(`#### \`${String(e.shape.kind.value)}\``);
    for (const route of Object.keys(ROUTES)) expect(wire).toContain(`| \`${route}\``);
  });

  it('a page whose markers were removed is refused, not silently rewritten', () => {
    expect(() => withGenerated('# Settings\n', 'x', 'docs/settings.md')).toThrow(/markers are missing/);
  });
});

describe('links', () => {
  for (const page of PAGES) {
    it(`every relative link and anchor in ${page} resolves`, () => {
      expect(brokenLinks(page)).toEqual([]);
    });
  }

  it('the checker finds a missing file, a missing anchor and an anchor into a non-markdown file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skein-links-'));
    fs.writeFileSync(path.join(dir, 'other.md'), '# Other page\n\n## The sandbox\'s threat model\n');
    fs.writeFileSync(path.join(dir, 'a.txt'), 'x');
    fs.writeFileSync(
      path.join(dir, 'page.md'),
      '# Page\n\n[ok](other.md#the-sandboxs-threat-model) [ok](#page) [gone](missing.md) [bad](other.md#nope) [txt](a.txt#x) `[code](not-a-link.md)` [web](https://example.com/x)\n',
    );
    const problems = brokenLinks(path.join(dir, 'page.md'));
    expect(problems.map((p) => p.split(': ').slice(1).join(': '))).toEqual([
      'missing.md: no such file',
      'other.md#nope: no heading with that anchor',
      'a.txt#x: an anchor into a file that is not markdown',
    ]);
    fs.rmSync(dir, { recursive: true });
  });

  it('slugs as GitHub does, with -1 for a repeated heading', () => {
    expect(slug("The sandbox's threat model")).toBe('the-sandboxs-threat-model');
    expect(slug('Project instructions, search tools, plan and diffs')).toBe('project-instructions-search-tools-plan-and-diffs');
    expect([...anchors('# A\n## A\n```\n# not a heading\n```\n')]).toEqual(['a', 'a-1']);
  });
});

describe('README', () => {
  const readme = fs.readFileSync('README.md', 'utf8');

  it('is short, and keeps the two quick-start commands', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm test ');
  });

  it('links every page of docs/', () => {
    for (const page of PAGES.filter((p) => p !== 'README.md')) expect(readme, page).toContain(`](${page})`);
  });

  it('shows a screenshot the e2e tests make', () => {
    const shot = /!\[[^\]]*\]\((test\/e2e\/screenshots\/[\w-]+\.png)\)/.exec(readme)?.[1];
    expect(shot).toBeDefined();
    const name = path.basename(shot!, '.png');
    const makers = fs.readdirSync('test/e2e').filter((f) => f.endsWith('.test.ts') && fs.readFileSync(`test/e2e/${f}`, 'utf8').includes(`'test/e2e/screenshots/${name}.png'`));
    expect(makers.length, `an e2e test writes ${shot}`).toBeGreaterThan(0);
  });
});
