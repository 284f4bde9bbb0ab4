// MCP tools through each provider's real SDK against its local fake (which
// refuses the tool names and schemas the real API refuses): the tools are
// declared on the wire with the server's schema (Gemini's converted to its
// dialect), called with arguments, their results and errors go back, and a
// change of tools mid-session arrives as a message at the end, the declared
// tools staying as they were.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SkeinEvent, ToolResultEvent, ToolsChangedEvent } from '../../shared/protocol.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import { startGeminiFake } from '../fakes/gemini-fake.js';
import { startOpenAIFake } from '../fakes/openai-fake.js';
import { mcpServers, startHttpMcpServer, stdioEntry, writeTrustedMcpJson, type HttpMcpServer } from '../helpers/mcp.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';

// Real servers and child processes (skein, MCP servers under tsx): slow on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

interface Fake {
  requests: any[];
  violations: string[];
  close(): Promise<void>;
}

interface Case {
  name: string;
  start(): Promise<{ fake: Fake; env: Record<string, string> }>;
  /** Tool declarations of one wire request: name -> input schema. */
  declared(body: any): Map<string, any>;
  /** The text of the wire request's last user content. */
  lastUserText(body: any): string;
  /** The role the tools note arrives in: Anthropic documents a `system` message at the end for mid-conversation changes. */
  noteRole: string;
  lastRole(body: any): string;
}

const CASES: Case[] = [
  {
    name: 'Anthropic',
    async start() {
      const fake = await startAnthropicFake();
      return { fake, env: { SKEIN_MODEL: 'claude-sonnet-5-5', ANTHROPIC_API_KEY: fake.key, ANTHROPIC_BASE_URL: fake.url } };
    },
    declared: (body) => new Map((body.tools ?? []).map((t: any) => [t.name, t.input_schema])),
    lastUserText: (body) => {
      const content = body.messages.at(-1).content;
      return typeof content === 'string' ? content : content.filter((b: any) => b.type === 'text').map((b: any) => b.text).join('\n');
    },
    noteRole: 'system',
    lastRole: (body) => body.messages.at(-1).role,
  },
  {
    name: 'OpenAI',
    async start() {
      const fake = await startOpenAIFake();
      return { fake, env: { SKEIN_MODEL: 'gpt-4.1', OPENAI_API_KEY: fake.key!, OPENAI_BASE_URL: fake.url } };
    },
    declared: (body) => new Map((body.tools ?? []).map((t: any) => [t.function.name, t.function.parameters])),
    lastUserText: (body) => String(body.messages.at(-1).content),
    noteRole: 'user',
    lastRole: (body) => body.messages.at(-1).role,
  },
  {
    name: 'Gemini',
    async start() {
      const fake = await startGeminiFake();
      return { fake, env: { SKEIN_MODEL: 'gemini-2.5-pro', GEMINI_API_KEY: fake.key, GEMINI_BASE_URL: fake.url } };
    },
    declared: (body) => new Map((body.tools ?? []).flatMap((t: any) => t.functionDeclarations ?? []).map((d: any) => [d.name, d.parametersJsonSchema])),
    lastUserText: (body) => body.contents.at(-1).parts.filter((p: any) => typeof p.text === 'string').map((p: any) => p.text).join('\n'),
    noteRole: 'user',
    lastRole: (body) => body.contents.at(-1).role,
  },
];

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const results = (events: SkeinEvent[]) => events.filter((e): e is ToolResultEvent => e.kind === 'tool_result');

describe.each(CASES)('MCP tools through $name', (c) => {
  it('declares them with their schema, calls them with arguments, returns results and errors, and announces a change at the end', async () => {
    const { fake, env } = await c.start();
    cleanups.push(() => fake.close());
    const remote: HttpMcpServer = await startHttpMcpServer();
    cleanups.push(() => remote.close());
    const workDir = tempDir('work');
    const dataDir = tempDir('data');
    writeTrustedMcpJson(dataDir, workDir, { local: stdioEntry(), remote: { type: 'http', url: remote.url } });
    const server: TestServer = await startTestServer({ SKEIN_RETRY_BASE_MS: '5', ...env }, { dataDir, workDir });
    cleanups.push(() => server.close());
    const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
    const client = await TestClient.connect(server.url, body.id);
    let turns = 0;
    const say = async (text: string) => {
      client.send({ type: 'user_message', text });
      await client.untilIdle(++turns, 60_000);
    };

    await say('mcp: local echo {"text":"hi"}');
    await say('mcp: remote add {"a":1,"b":2}');
    await say('mcp: remote fail {}');
    expect(results(client.events).map((r) => [r.name, r.output, r.isError])).toEqual([
      ['mcp__local__echo', 'echo: hi', false],
      ['mcp__remote__add', '3', false],
      ['mcp__remote__fail', 'mcp__remote__fail failed: the tool failed on purpose', true],
    ]);
    // The answer after each result read it back from the wire.
    const answers = client.events.filter((e) => e.kind === 'agent' && e.endOfTurn).map((e) => (e.kind === 'agent' ? e.text : ''));
    expect(answers[1]).toContain('returned 1 line');

    const first = c.declared(fake.requests[0]);
    expect([...first.keys()]).toEqual(expect.arrayContaining(['bash', 'mcp__local__echo', 'mcp__local__add', 'mcp__remote__add', 'mcp__remote__hang']));
    expect([...first.keys()].some((n) => n.endsWith('__broken') || n.endsWith('__dangling'))).toBe(false);
    expect(first.get('mcp__local__echo')).toEqual({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    const add = first.get('mcp__local__add');
    if (c.name === 'Gemini') {
      // Inlined and cleaned for Gemini's dialect (the fake refuses $schema, const, $ref with siblings, required of an undefined property).
      expect(add).toEqual({
        type: 'object',
        properties: { a: { type: 'number', description: 'a number' }, b: { type: 'number', description: 'the second number' }, op: { enum: ['add'] }, tags: { type: 'array', items: { type: 'string' } } },
        required: ['a', 'b'],
        additionalProperties: false,
      });
    } else {
      expect(add.$defs).toEqual({ num: { type: 'number', description: 'a number' } });
      expect(add.properties.a).toEqual({ $ref: '#/$defs/num' });
    }

    await say('mcp: local grow {}');
    await waitFor(async () => (await mcpServers(server.url))[0]!.tools.some((t) => t.name === 'mcp__local__late'), 'the new tool listed');
    await say('echo: next');
    const changed = client.events.find((e): e is ToolsChangedEvent => e.kind === 'tools_changed')!;
    expect(changed.added).toEqual(['mcp__local__late']);
    const withNote = fake.requests.find((r) => c.lastUserText(r).includes('<skein-tools>'));
    expect(withNote, 'a request ending with the note').toBeDefined();
    expect(c.lastRole(withNote)).toBe(c.noteRole);
    for (const r of fake.requests.filter((r) => c.declared(r).size)) expect([...c.declared(r).keys()]).toEqual([...first.keys()]);
    expect(fake.violations).toEqual([]);
    expect((await mcpServers(server.url)).map((s) => s.state)).toEqual(['ready', 'ready']);
  });
});
