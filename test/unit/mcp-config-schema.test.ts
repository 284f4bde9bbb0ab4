// MCP configuration (.mcp.json, SKEIN_MCP_CONFIG), tool names, schema checks
// and Gemini's schema dialect.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidSettingError, loadConfig } from '../../server/config.js';
import { geminiSchema } from '../../server/llm/gemini-schema.js';
import { loadUserMcpServers, parseMcpConfig } from '../../server/mcp/config.js';
import { checkInputSchema, mcpToolName, parseMcpToolName } from '../../server/mcp/schema.js';
import { startServer } from '../../server/server.js';
import { TEST_TOOLS } from '../fixtures/mcp/tools.js';
import { checkGeminiTools } from '../fakes/rules/tools.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('MCP config', () => {
  it('reads stdio and http servers, expanding ${VAR} and ${VAR:-default}', () => {
    const servers = parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          files: { command: 'npx', args: ['-y', 'server-${WHICH}'], env: { TOKEN: '${SECRET}' } },
          web: { type: 'http', url: 'https://example.test/mcp', headers: { Authorization: 'Bearer ${MISSING:-none}' } },
          implied: { url: 'http://127.0.0.1:1/mcp' },
        },
      }),
      { WHICH: 'files', SECRET: 's3' },
    );
    expect(Object.fromEntries(servers)).toEqual({
      files: { type: 'stdio', command: 'npx', args: ['-y', 'server-files'], env: { TOKEN: 's3' } },
      web: { type: 'http', url: 'https://example.test/mcp', headers: { Authorization: 'Bearer none' } },
      implied: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: {} },
    });
  });

  it('refuses a bad file with what is wrong and where', () => {
    const bad = (text: string) => () => parseMcpConfig(text, {});
    expect(bad('{')).toThrow(/not valid JSON/);
    expect(bad('{"servers": {}}')).toThrow(/expected \{"mcpServers"/);
    expect(bad('{"mcpServers": {"a b": {"command": "x"}}}')).toThrow(/server name "a b"/);
    // Names that would make mcp__<server>__<tool> ambiguous.
    for (const name of ['a__b', 'srv_', '_srv']) expect(bad(`{"mcpServers": {"${name}": {"command": "x"}}}`)).toThrow(/no "__", no _ at either end/);
    expect(bad('{"mcpServers": {"my_srv-2": {"command": "x"}}}')).not.toThrow();
    expect(bad('{"mcpServers": {"a": {"args": []}}}')).toThrow(/mcpServers\.a\.command: expected a string/);
    expect(bad('{"mcpServers": {"a": {"command": "x", "args": "y"}}}')).toThrow(/mcpServers\.a\.args: expected an array of strings/);
    expect(bad('{"mcpServers": {"a": {"type": "sse", "url": "http://x"}}}')).toThrow(/expected "stdio" or "http"/);
    expect(bad('{"mcpServers": {"a": {"type": "http", "url": "ftp://x"}}}')).toThrow(/expected an http\(s\) URL/);
    expect(bad('{"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}')).toThrow(/mcpServers\.a\.env: expected an object of strings/);
  });

  it("a project's file is taken as written (no ${VAR} expansion); a bad SKEIN_MCP_CONFIG is refused at start naming the setting", () => {
    const literal = parseMcpConfig(JSON.stringify({ mcpServers: { a: { command: '${SHELL}', args: ['${HOME}'], env: { K: '${SECRET:-x}' } }, w: { url: 'https://h.test/${SECRET}', headers: { A: '${SECRET}' } } } }), null);
    expect(Object.fromEntries(literal)).toEqual({
      a: { type: 'stdio', command: '${SHELL}', args: ['${HOME}'], env: { K: '${SECRET:-x}' } },
      w: { type: 'http', url: 'https://h.test/${SECRET}', headers: { A: '${SECRET}' } },
    });
    const extra = path.join(tempDir('cfg'), 'mcp.json');
    fs.writeFileSync(extra, JSON.stringify({ mcpServers: { a: { command: '${MINE}' } } }));
    expect([...loadUserMcpServers(extra, { MINE: 'mine' })].map(([k, v]) => [k, v.type === 'stdio' && v.command])).toEqual([['a', 'mine']]);

    fs.writeFileSync(extra, '{"mcpServers": []}');
    const refused = (() => {
      try {
        loadConfig([], { SKEIN_MCP_CONFIG: extra });
      } catch (err) {
        return err;
      }
    })();
    expect(refused).toBeInstanceOf(InvalidSettingError);
    expect((refused as Error).message).toMatch(/^SKEIN_MCP_CONFIG=".*" is invalid: expected a readable file .*expected \{"mcpServers"/);
    expect(() => loadConfig([], { SKEIN_MCP_CONFIG: path.join(tempDir('work'), 'nope.json') })).toThrow(/SKEIN_MCP_CONFIG=.*cannot read it \(ENOENT\)/);
  });

  it("a bad .mcp.json in the working folder no longer stops the server: it is untrusted, shown with what is wrong", async () => {
    const workDir = tempDir('work');
    fs.writeFileSync(path.join(workDir, '.mcp.json'), '{"mcpServers": {"x": {}}}');
    const config = loadConfig([], { SKEIN_PORT: '0', SKEIN_DATA_DIR: tempDir('data'), SKEIN_WORKDIR: workDir });
    const server = await startServer(config);
    try {
      const res = await fetch(`${server.url}/api/trust`, { headers: { authorization: `Bearer ${server.token}` } });
      const { files } = (await res.json()) as { files: { status: string; error?: string }[] };
      expect(files).toMatchObject([{ status: 'untrusted', error: expect.stringMatching(/mcpServers\.x\.command: expected a string/) }]);
    } finally {
      await server.close();
    }
  });
});

describe('MCP tool names and schemas', () => {
  it('names tools mcp__server__tool with characters every provider accepts', () => {
    expect(mcpToolName('files', 'read.file/v2')).toBe('mcp__files__read_file_v2');
    expect(parseMcpToolName('mcp__files__read_file')).toEqual({ server: 'files', tool: 'read_file' });
    expect(parseMcpToolName('bash')).toBeUndefined();
  });

  it('skips a schema that is not an object schema or refers to nothing, fills in a missing type', () => {
    expect(checkInputSchema({ type: 'string' })).toMatchObject({ ok: false, reason: expect.stringMatching(/type "string"/) });
    expect(checkInputSchema(null)).toMatchObject({ ok: false });
    expect(checkInputSchema({ type: 'object', required: 'a' })).toMatchObject({ ok: false });
    expect(checkInputSchema({ properties: { x: { $ref: '#/definitions/y' } } })).toMatchObject({ ok: false, reason: expect.stringMatching(/#\/definitions\/y/) });
    expect(checkInputSchema({ properties: {} })).toEqual({ ok: true, schema: { type: 'object', properties: {} } });
  });

  it("Gemini refuses MCP servers' usual schemas as they are, and takes them converted", () => {
    const add = TEST_TOOLS.find((t) => t.name === 'add')!.inputSchema as Record<string, unknown>;
    const declare = (schema: unknown) => [{ functionDeclarations: [{ name: 'mcp__s__add', description: '', parametersJsonSchema: schema }] }];
    expect(checkGeminiTools(declare(add))?.message).toMatch(/Unknown name "\$schema"/);
    const { $schema: _schema, ...withoutSchema } = add;
    expect(checkGeminiTools(declare(withoutSchema))?.message).toMatch(/parameters_json_schema\.required\[2\]: property is not defined/);
    expect(checkGeminiTools(declare(geminiSchema(add)))).toBeUndefined();
    // A recursive reference becomes a plain object instead of looping.
    const tree = { type: 'object', properties: { node: { $ref: '#/$defs/node' } }, $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } } } };
    expect(geminiSchema(tree)).toEqual({ type: 'object', properties: { node: { type: 'object', properties: { child: { type: 'object' } } } } });
    expect(checkGeminiTools(declare(geminiSchema(tree)))).toBeUndefined();
    // Built-in schemas pass unchanged.
    const plain = { type: 'object', properties: { command: { type: 'string', description: 'x' } }, required: ['command'] };
    expect(geminiSchema(plain)).toEqual(plain);
  });
});

describe('MCP calls in the ledger', () => {
  it('records an MCP call as a command line with its status, and its error', async () => {
    const { buildLedger } = await import('../../server/compaction/ledger.js');
    const { deriveView } = await import('../../server/compaction/view.js');
    const { LogBuilder } = await import('../helpers/events.js');
    const log = new LogBuilder();
    log.user('look it up');
    log.agent('', false);
    log.add({ kind: 'tool_call', callId: 'c1', name: 'mcp__docs__search', input: { query: 'retry policy' } });
    log.add({ kind: 'tool_result', callId: 'c1', name: 'mcp__docs__search', output: 'found 3 pages', isError: false, durationMs: 5 });
    log.agent('', false);
    log.add({ kind: 'tool_call', callId: 'c2', name: 'mcp__docs__fetch', input: { id: 7 } });
    log.add({ kind: 'tool_result', callId: 'c2', name: 'mcp__docs__fetch', output: 'mcp__docs__fetch failed: page 7 not found', isError: true, durationMs: 5 });
    log.add({ kind: 'tools_changed', text: '<skein-tools>note</skein-tools>', added: ['mcp__docs__new'], removed: [] });
    const ledger = buildLedger(deriveView(log.events));
    expect(ledger.commands.map((c) => [c.command, c.status])).toEqual([
      ['mcp__docs__search {"query":"retry policy"}', 'ok'],
      ['mcp__docs__fetch {"id":7}', 'mcp__docs__fetch failed: page 7 not found'],
    ]);
    expect(ledger.errorLines?.map((e) => e.text)).toEqual(['mcp__docs__fetch failed: page 7 not found']);
    expect(ledger.userMessages.map((u) => u.text)).toEqual(['look it up']);
  });
});
