// Project instructions through the real server: predictable and the three
// provider fakes through their real SDKs. AGENTS.md / CLAUDE.md from the
// working folder up to the repository root are in the first request's system
// prompt, the prompt is the same bytes after two compactions and after a
// restart, and a change reaches the model as the last message of the next
// request (and survives a compaction after that).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { InstructionsEvent, ViewMessage } from '../../shared/protocol.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import { startGeminiFake } from '../fakes/gemini-fake.js';
import { startOpenAIFake } from '../fakes/openai-fake.js';
import { startSession, type Running } from '../fakes/scenario.js';
import { api, tempDir, type TestServer } from '../helpers/server.js';

interface Fake {
  requests: any[];
  close(): Promise<void>;
}

const servers: TestServer[] = [];
const fakes: Fake[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const f of fakes.splice(0)) await f.close();
});

const textOf = (content: any): string => (typeof content === 'string' ? content : (content ?? []).map((b: any) => b.text ?? '').join(''));

interface Provider {
  name: string;
  start(): Promise<{ fake?: Fake; env: Record<string, string> }>;
  isTurn(body: any): boolean;
  system(body: any): string;
  lastText(body: any): string;
}

const PROVIDERS: Provider[] = [
  {
    name: 'predictable',
    start: async () => ({ env: { SKEIN_MODEL: 'predictable' } }),
    isTurn: () => true,
    system: () => '',
    lastText: () => '',
  },
  {
    name: 'anthropic',
    async start() {
      const f = await startAnthropicFake();
      return { fake: f, env: { SKEIN_MODEL: 'claude-sonnet-5-5', ANTHROPIC_API_KEY: f.key, ANTHROPIC_BASE_URL: f.url } };
    },
    isTurn: (b) => (b.tools ?? []).length > 0,
    system: (b) => JSON.stringify(b.system),
    lastText: (b) => {
      const content = b.messages.at(-1).content;
      return typeof content === 'string' ? content : (content.filter((x: any) => x.type === 'text').at(-1)?.text ?? '');
    },
  },
  {
    name: 'openai',
    async start() {
      const f = await startOpenAIFake();
      return { fake: f, env: { SKEIN_MODEL: 'gpt-4.1', OPENAI_API_KEY: f.key!, OPENAI_BASE_URL: f.url } };
    },
    isTurn: (b) => (b.tools ?? []).length > 0,
    system: (b) => JSON.stringify(b.messages.filter((m: any) => m.role === 'system' || m.role === 'developer')),
    lastText: (b) => (b.messages.at(-1).role === 'user' ? textOf(b.messages.at(-1).content) : ''),
  },
  {
    name: 'gemini',
    async start() {
      const f = await startGeminiFake();
      return { fake: f, env: { SKEIN_MODEL: 'gemini-2.5-pro', GEMINI_API_KEY: f.key, GEMINI_BASE_URL: f.url } };
    },
    isTurn: (b) => (b.tools ?? []).length > 0,
    system: (b) => JSON.stringify(b.systemInstruction ?? b.generationConfig?.systemInstruction),
    lastText: (b) => b.contents.at(-1).parts.filter((p: any) => typeof p.text === 'string').at(-1)?.text ?? '',
  },
];

async function view(run: Running): Promise<ViewMessage[]> {
  const { status, body } = await api<{ messages: ViewMessage[] }>(run.server.url, `/api/sessions/${run.id}/view`);
  expect(status).toBe(200);
  return body.messages;
}

/** A repository with AGENTS.md at its root and CLAUDE.md in the package folder skein works in; above the repo, an AGENTS.md that must not be read. */
function project(): { workDir: string; dataDir: string } {
  const outer = tempDir('instr-outer');
  fs.writeFileSync(path.join(outer, 'AGENTS.md'), 'Outside the repository: marker-outside\n');
  const repo = path.join(outer, 'repo');
  fs.mkdirSync(path.join(repo, '.git'), { recursive: true });
  fs.writeFileSync(path.join(repo, 'AGENTS.md'), 'Root rule: run the tests. marker-root\n');
  const workDir = path.join(repo, 'pkg');
  fs.mkdirSync(workDir);
  // CLAUDE.md is read where there is no AGENTS.md.
  fs.writeFileSync(path.join(workDir, 'CLAUDE.md'), 'Package rule: tabs, not spaces. marker-pkg\n');
  return { workDir, dataDir: tempDir('instr-data') };
}

describe.each(PROVIDERS)('$name', (provider) => {
  it('instructions are in the first request, the same after two compactions and a restart; a change arrives as the last message', async () => {
    const { fake, env } = await provider.start();
    if (fake) fakes.push(fake);
    const dirs = project();
    const settings = { ...env, SKEIN_CONTEXT_WINDOW: '40000', SKEIN_COMPACT_THRESHOLD_RATIO: '0.95', SKEIN_COMPACT_PREFLIGHT: 'off' };
    const run = await startSession(settings, servers, dirs);
    await run.say('echo: hello');

    const start = run.client.events.find((e): e is InstructionsEvent => e.kind === 'instructions')!;
    expect(start.phase).toBe('start');
    expect(start.files.map((f) => f.path)).toEqual(['../AGENTS.md', 'CLAUDE.md']);
    const system = (await view(run))[0]!.content;
    expect(system).toContain(start.text);
    expect(system.indexOf('marker-root')).toBeLessThan(system.indexOf('marker-pkg'));
    expect(system).not.toContain('marker-outside');

    for (const round of [1, 2]) {
      for (let i = 0; i < 4; i++) await run.say(`bash: seq ${round} ${100 * (i + 2)}`);
      await run.say('/compact');
    }
    await run.say('echo: after two compactions');
    const folds = run.client.events.filter((e) => e.kind === 'compaction' && e.phase === 'finished' && e.coversSeq);
    expect(folds).toHaveLength(2);
    expect((await view(run))[0]!.content).toBe(system);

    fs.writeFileSync(path.join(dirs.workDir, 'CLAUDE.md'), 'Package rule changed: spaces now. marker-changed\n');
    const fresh = async (text: string) => {
      const before = run.client.events.length;
      return (await run.say(text)).slice(before);
    };
    const turn = await fresh('echo: next step');
    const changed = turn.find((e): e is InstructionsEvent => e.kind === 'instructions')!;
    expect(changed.phase).toBe('changed');
    expect(changed.text).toContain('marker-changed');
    expect(changed.text).toMatch(/^<skein-instructions>/);
    // The model answered the user, not the note.
    expect(turn.find((e) => e.kind === 'agent')).toMatchObject({ text: 'next step' });
    const afterChange = await view(run);
    expect(afterChange[0]!.content).toBe(system);
    expect(afterChange.map((m) => m.content)).toContain(changed.text);

    // No change, no note: the next request sends none.
    const quiet = await fresh('echo: quiet');
    expect(quiet.some((e) => e.kind === 'instructions')).toBe(false);

    // Folded, the changed instructions are carried whole in the summary.
    await run.say('/compact');
    const later = await view(run);
    expect(later.slice(1).some((m) => m.content.includes('### Project instructions as changed') && m.content.includes('marker-changed'))).toBe(true);

    if (fake) {
      const turns = fake.requests.filter(provider.isTurn);
      expect(turns.length).toBeGreaterThanOrEqual(6);
      expect(provider.system(turns[0])).toContain('marker-root');
      expect(provider.system(turns[0])).toContain('marker-pkg');
      // One system prompt, byte for byte, across compactions and the change.
      expect(new Set(turns.map(provider.system)).size).toBe(1);
      const noteRequest = turns.find((b) => provider.lastText(b).includes('marker-changed'));
      expect(provider.lastText(noteRequest)).toBe(changed.text);
    }

    // A restart rebuilds the same system prompt from the log, though the files changed since.
    await run.server.close();
    servers.splice(servers.indexOf(run.server), 1);
    const again = await startSession(settings, servers, dirs);
    const { body } = await api<{ messages: ViewMessage[] }>(again.server.url, `/api/sessions/${run.id}/view`);
    expect(body.messages[0]!.content).toBe(system);
  }, 180_000);
});
