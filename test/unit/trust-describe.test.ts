// What `skein trust` (and the server log) shows about a project file before
// the user trusts it: each status in words, each server's command line or URL
// exactly as it will run, its environment and header names, a shadowed
// server, a file that cannot be trusted, one without servers, and the diff
// from what was last trusted. Control characters: terminal-text.test.ts.
import { describe, expect, it } from 'vitest';
import type { ProjectFileTrust, ProjectServerPreview } from '../../shared/protocol.js';
import { describeFile, describeServer } from '../../server/trust/describe.js';

const file = (fields: Partial<ProjectFileTrust>): ProjectFileTrust => ({ folder: '/w', file: '.mcp.json', path: '/w/.mcp.json', sha256: 'ab'.repeat(32), status: 'untrusted', content: '{}', servers: [], ...fields });
const stdio = (fields: Partial<ProjectServerPreview> = {}): ProjectServerPreview => ({ name: 'tools', transport: 'stdio', command: 'node', args: ['server.js', 'a b'], ...fields });

describe('trust description of a server', () => {
  it('a command: its line quoted as it will run, then each variable it sets', () => {
    expect(describeServer(stdio())).toEqual(["tools: runs node server.js 'a b'"]);
    expect(describeServer(stdio({ env: { TOKEN: '${SECRET}', MODE: 'x y' } }))).toEqual(["tools: runs node server.js 'a b'", "    with TOKEN='${SECRET}'", "    with MODE='x y'"]);
    expect(describeServer(stdio({ args: undefined }))).toEqual(['tools: runs node']);
    expect(describeServer(stdio({ command: undefined, args: ['x'] }))).toEqual(["tools: runs '' x"]);
    expect(describeServer(stdio({ env: {} }))).toEqual(["tools: runs node server.js 'a b'"]);
  });

  it('a URL: where it connects and the header names it sends (never their values)', () => {
    expect(describeServer({ name: 'remote', transport: 'http', url: 'https://mcp.example/x' })).toEqual(['remote: connects to https://mcp.example/x']);
    expect(describeServer({ name: 'remote', transport: 'http', url: 'https://mcp.example/x', headerNames: ['Authorization', 'X-Key'] })).toEqual(['remote: connects to https://mcp.example/x', '    sends headers: Authorization, X-Key']);
    expect(describeServer({ name: 'remote', transport: 'http', url: 'https://mcp.example/x', headerNames: [] })).toEqual(['remote: connects to https://mcp.example/x']);
    expect(describeServer({ name: 'remote', transport: 'http' })).toEqual(['remote: connects to ']);
    // Each is one line: a line break in a name or URL is shown, not followed.
    expect(describeServer({ name: 'a\nb', transport: 'http', url: 'u\nv', headerNames: ['H\nI'] })).toEqual(['a\\nb: connects to u\\nv', '    sends headers: H\\nI']);
  });

  it("a server the user's own configuration shadows says it does not run", () => {
    const shadow = ' (not run: your SKEIN_MCP_CONFIG has a server of this name)';
    expect(describeServer(stdio({ shadowed: true }))).toEqual([`tools: runs node server.js 'a b'${shadow}`]);
    expect(describeServer({ name: 'r', transport: 'http', url: 'u', shadowed: true })).toEqual([`r: connects to u${shadow}`]);
    expect(describeServer(stdio({ shadowed: false }))).toEqual(["tools: runs node server.js 'a b'"]);
  });
});

describe('trust description of a file', () => {
  it('says each status in words', () => {
    const words = (status: ProjectFileTrust['status']) => describeFile(file({ status })).split('\n')[2];
    expect(words('untrusted')).toBe('  not trusted (never decided)');
    expect(words('changed')).toBe('  not trusted: it changed since you decided on it');
    expect(words('trusted')).toBe('  trusted');
    expect(words('ignored')).toBe('  ignored (its servers do not run; you are not asked again for this content)');
  });

  it('lists what it would start, indented, and says no variable is filled in', () => {
    expect(describeFile(file({ servers: [stdio({ env: { K: 'v' } }), { name: 'r', transport: 'http', url: 'u', headerNames: ['H'] }] }))).toBe(
      [
        '/w/.mcp.json',
        `  sha256 ${'ab'.repeat(32)}`,
        '  not trusted (never decided)',
        '  It would start (as written: ${VAR} is never filled in from your environment in a project file):',
        "    tools: runs node server.js 'a b'",
        '        with K=v',
        '    r: connects to u',
        '        sends headers: H',
        '',
      ].join('\n'),
    );
  });

  it('a file without servers says so; one that cannot be trusted says why instead', () => {
    expect(describeFile(file({}))).toBe(`/w/.mcp.json\n  sha256 ${'ab'.repeat(32)}\n  not trusted (never decided)\n  It defines no server.\n`);
    expect(describeFile(file({ error: 'line 1: not JSON' }))).toBe(`/w/.mcp.json\n  sha256 ${'ab'.repeat(32)}\n  not trusted (never decided)\n  cannot be trusted as it is: line 1: not JSON\n`);
    expect(describeFile(file({ error: '' }))).toContain('  It defines no server.\n');
    expect(describeFile(file({ error: 'bad', servers: [stdio()] }))).toBe(
      `/w/.mcp.json\n  sha256 ${'ab'.repeat(32)}\n  not trusted (never decided)\n  cannot be trusted as it is: bad\n  It would start (as written: \${VAR} is never filled in from your environment in a project file):\n    tools: runs node server.js 'a b'\n`,
    );
  });

  it('shows the changes since it was trusted, line by line', () => {
    const text = describeFile(file({ status: 'changed', diff: '@@ -1 +1 @@\n-"a"\n+"b"' }));
    expect(text.endsWith('  It defines no server.\n  Changes since you trusted it:\n    @@ -1 +1 @@\n    -"a"\n    +"b"\n')).toBe(true);
    expect(describeFile(file({ diff: '' }))).not.toContain('Changes since');
  });
});

describe('trust description of an agent file', () => {
  const agentFile = (agent: ProjectFileTrust['agent'], fields: Partial<ProjectFileTrust> = {}) =>
    file({ file: '.skein/agents/rev.md', path: '/w/.skein/agents/rev.md', agent, ...fields });
  const head = `/w/.skein/agents/rev.md\n  sha256 ${'ab'.repeat(32)}\n  not trusted (never decided)\n`;

  it('the agent it defines: name, description, tools, model, mode, depth, then its instructions whole', () => {
    const text = describeFile(agentFile({ name: 'rev', description: 'Reviews', tools: ['read', 'grep'], model: 'm1', mode: 'plan', depth: 2, prompt: 'Be strict.\nCite lines.' }));
    expect(text).toBe(
      head +
        [
          '  It defines the agent rev: Reviews',
          '    tools: read, grep',
          '    model: m1; mode: plan; may start children: 2 level(s)',
          '    instructions:',
          '      Be strict.',
          '      Cite lines.',
          '',
        ].join('\n'),
    );
  });

  it("what it leaves unset is the parent's; no tools is said as such; no depth: no children; no prompt: no instructions", () => {
    const text = describeFile(agentFile({ name: 'rev', description: 'Reviews', depth: 0 }));
    expect(text).toBe(
      head + ['  It defines the agent rev: Reviews', "    tools: the parent's", "    model: the parent's; mode: the parent's; may start children: no", ''].join('\n'),
    );
    expect(describeFile(agentFile({ name: 'rev', description: 'd', tools: [], depth: 0, prompt: '' }))).toContain('\n    tools: (none)\n');
    expect(describeFile(agentFile({ name: 'rev', description: 'd', tools: [], depth: 0, prompt: '' }))).not.toContain('instructions');
    expect(describeFile(agentFile({ name: 'rev', description: 'd', model: '', depth: 0 }))).toContain("\n    model: the parent's;");
  });

  it('the repository wrote every field: each is one line, a control character shown, not run', () => {
    const text = describeFile(agentFile({ name: 'r\nx', description: 'd\x1b[2K', tools: ['a\nb'], model: 'm\rn', depth: 1, prompt: 'one\x1b]0;t\x07\ntwo' }));
    expect(text).toContain('  It defines the agent r\\nx: d\\x1b[2K\n');
    expect(text).toContain('    tools: a\\nb\n');
    expect(text).toContain('    model: m\\rn; mode: ');
    expect(text).toContain('    instructions:\n      one\\x1b]0;t\\x07\n      two\n');
  });

  it('an ignored agent file says the agent is not defined; an agent file that does not parse shows only why', () => {
    expect(describeFile(agentFile({ name: 'rev', description: 'd', depth: 0 }, { status: 'ignored' })).split('\n')[2]).toBe(
      '  ignored (the agent is not defined; you are not asked again for this content)',
    );
    expect(describeFile(agentFile(undefined, { error: 'line 2: no name' }))).toBe(`${head}  cannot be trusted as it is: line 2: no name\n`);
  });
});
