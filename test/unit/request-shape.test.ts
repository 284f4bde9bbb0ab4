// The fixed part of every request (system prompt and tools): full in a window
// with room, lean (short prompt, core tools, terse schemas) when the full one
// would take over a quarter of the window, and a `toolset` event only when the
// shape the log last said changes.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import type { SkeinEvent } from '../../shared/protocol.js';
import { LEAN_SHARE, RequestShape } from '../../server/agent/request-shape.js';
import { requestTokens } from '../../server/llm/tokens.js';
import { LEAN_TOOL_NAMES, leanSpecs } from '../../server/tools/lean.js';
import { TOOLS } from '../../server/tools/registry.js';

const SYSTEM = fs.readFileSync(new URL('../../server/agent/system-prompt.md', import.meta.url), 'utf8');
const LEAN = fs.readFileSync(new URL('../../server/agent/system-prompt-lean.md', import.meta.url), 'utf8');
const FULL = { system: SYSTEM, tools: TOOLS.map((t) => t.spec) };
const fullTokens = requestTokens({ ...FULL, messages: [] });

function logOf(events: Extract<SkeinEvent, { kind: 'toolset' }>[]) {
  return { last: () => events.at(-1) };
}

describe('request shape', () => {
  const shape = new RequestShape(FULL, LEAN);

  it('sends everything in a window with room, the lean part once the full one would take over a quarter of it', () => {
    expect(shape.current(200_000)).toBe(FULL);
    expect(shape.current(8_192)).toBe(FULL);
    const lean = shape.current(4_096);
    expect(lean.system).toBe(LEAN);
    expect(lean.tools.map((t) => t.name)).toEqual(['bash', 'read_file', 'write_file', 'edit_file', 'search_history']);
    // The threshold is the share, not a fixed size.
    expect(shape.isLean(Math.ceil(fullTokens / LEAN_SHARE) + 1)).toBe(false);
    expect(shape.isLean(Math.floor(fullTokens / LEAN_SHARE) - 1)).toBe(true);
    // A third of the full part or less.
    expect(requestTokens({ ...lean, messages: [] })).toBeLessThan(fullTokens / 3);
  });

  it('keeps each lean tool callable exactly as before: same name, types and required fields, no descriptions', () => {
    const lean = leanSpecs(FULL.tools);
    expect(lean.map((t) => t.name)).toEqual([...LEAN_TOOL_NAMES]);
    for (const spec of lean) {
      const full = FULL.tools.find((t) => t.name === spec.name)!;
      expect(spec.description.length).toBeGreaterThan(10);
      expect(spec.description.length).toBeLessThan(full.description.length);
      expect(JSON.stringify(spec.inputSchema)).not.toContain('"description"');
      expect(spec.inputSchema.required).toEqual(full.inputSchema.required);
      expect(Object.keys(spec.inputSchema.properties as object)).toEqual(Object.keys(full.inputSchema.properties as object));
    }
    // The rest of the built-ins are left out; MCP tools (the user's own) stay exactly as their server gave them.
    const mcp = { name: 'mcp__x__y', description: 'a long description of y, '.repeat(5), inputSchema: { type: 'object', properties: { a: { type: 'string', description: 'kept' } } } };
    expect(leanSpecs([...FULL.tools, mcp]).map((t) => t.name)).toEqual([...LEAN_TOOL_NAMES, 'mcp__x__y']);
    expect(leanSpecs([...FULL.tools, mcp]).at(-1)).toEqual(mcp);
  });

  it('decides on skein\'s own part: MCP tools neither make a window lean nor go when it is', () => {
    const many = Array.from({ length: 20 }, (_, i) => ({ name: `mcp__srv__tool${i}`, description: 'does a thing with the project, at length. '.repeat(8), inputSchema: { type: 'object' } }));
    const withMcp = new RequestShape({ system: SYSTEM, tools: [...FULL.tools, ...many] }, LEAN);
    // The default 8,000-token window of the offline model: the full set, MCP tools and all.
    expect(withMcp.isLean(8_000)).toBe(false);
    expect(withMcp.current(8_000).tools).toHaveLength(TOOLS.length + 20);
    const lean = withMcp.current(4_096);
    expect(lean.tools.map((t) => t.name)).toEqual([...LEAN_TOOL_NAMES, ...many.map((t) => t.name)]);
    expect(withMcp.change(4_096, logOf([]))!.message).toContain('and the MCP tools');
  });

  it('says a change once: lean when the window shrinks, full when it has room again, nothing when the log already says it', () => {
    const said: Extract<SkeinEvent, { kind: 'toolset' }>[] = [];
    expect(shape.change(200_000, logOf(said))).toBeUndefined();
    const lean = shape.change(4_096, logOf(said))!;
    expect(lean).toMatchObject({ kind: 'toolset', lean: true, contextWindow: 4096, tools: ['bash', 'read_file', 'write_file', 'edit_file', 'search_history'] });
    expect(lean.message).toContain('4,096-token window is small');
    said.push({ ...lean, seq: 1, ts: '' });
    expect(shape.change(4_096, logOf(said))).toBeUndefined();
    const full = shape.change(200_000, logOf(said))!;
    expect(full).toMatchObject({ lean: false, tokens: fullTokens });
    expect(full.tools).toHaveLength(TOOLS.length);
  });
});
