// A project's agent files are read through the door: a `.skein/agents` (or a
// `.skein`, or a file) that is a symbolic link is never followed, even where
// the content it points at was trusted; the real files of the same content are.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAgents } from '../../server/subagents/agent-files.js';
import { TrustStore } from '../../server/trust/store.js';
import { tempDir } from '../helpers/temp-dir.js';

const AGENT = '---\nname: reviewer\ndescription: reviews\ntools: [read_file]\n---\nYou review.\n';

function project(): { data: string; folder: string; outside: string } {
  const data = tempDir('agents-data');
  const folder = tempDir('agents-project');
  const outside = tempDir('agents-outside');
  fs.writeFileSync(path.join(outside, 'reviewer.md'), AGENT);
  new TrustStore(data).decide(folder, '.skein/agents/reviewer.md', AGENT, 'trusted');
  return { data, folder, outside };
}

describe("a project's agent files and symbolic links", () => {
  it('the real file, trusted, defines its agent (the control)', () => {
    const { data, folder } = project();
    fs.mkdirSync(path.join(folder, '.skein', 'agents'), { recursive: true });
    fs.writeFileSync(path.join(folder, '.skein', 'agents', 'reviewer.md'), AGENT);
    expect(loadAgents(data, folder).agents.has('reviewer')).toBe(true);
  });

  it('.skein/agents as a link to a folder outside: nothing read, said why', () => {
    const { data, folder, outside } = project();
    fs.mkdirSync(path.join(folder, '.skein'));
    fs.symlinkSync(outside, path.join(folder, '.skein', 'agents'));
    const catalog = loadAgents(data, folder);
    expect(catalog.agents.has('reviewer')).toBe(false);
    expect(catalog.skipped.map((s) => s.why).join('\n')).toMatch(/symbolic link/);
  });

  it('.skein as a link: nothing read', () => {
    const { data, folder, outside } = project();
    fs.mkdirSync(path.join(outside, 'agents'));
    fs.writeFileSync(path.join(outside, 'agents', 'reviewer.md'), AGENT);
    fs.symlinkSync(outside, path.join(folder, '.skein'));
    const catalog = loadAgents(data, folder);
    expect(catalog.agents.has('reviewer')).toBe(false);
    expect(catalog.skipped.map((s) => s.why).join('\n')).toMatch(/symbolic link/);
  });

  it('an agent file that is a link: not read', () => {
    const { data, folder, outside } = project();
    fs.mkdirSync(path.join(folder, '.skein', 'agents'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'reviewer.md'), path.join(folder, '.skein', 'agents', 'reviewer.md'));
    const catalog = loadAgents(data, folder);
    expect(catalog.agents.has('reviewer')).toBe(false);
    expect(catalog.skipped.map((s) => s.why).join('\n')).toMatch(/symbolic link/);
  });
});
