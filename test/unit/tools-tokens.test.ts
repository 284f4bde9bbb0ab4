// A request's tools are counted once per spec (tokens.ts): the count is the
// same as counting the spec's text, and a spec whose name, description or
// schema was replaced is counted again, not read from the memo.
import { describe, expect, it } from 'vitest';
import { tokensOf, toolsTokens } from '../../server/llm/tokens.js';
import type { ToolSpec } from '../../server/llm/types.js';

const text = (t: ToolSpec) => t.name + t.description + JSON.stringify(t.inputSchema);

describe("a request's tool tokens", () => {
  it('are the tokens of each spec, counted again when a field is replaced', () => {
    const a: ToolSpec = { name: 'read_file', description: 'Read a file in the working folder.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } };
    const b: ToolSpec = { name: 'bash', description: 'Run a command.', inputSchema: { type: 'object' } };
    const expected = tokensOf(text(a)) + tokensOf(text(b));
    expect(toolsTokens([a, b])).toBe(expected);
    expect(toolsTokens([a, b])).toBe(expected);
    expect(toolsTokens([])).toBe(0);
    a.description = `${a.description} ${'Many more words that change the count. '.repeat(20)}`;
    expect(toolsTokens([a, b])).toBe(tokensOf(text(a)) + tokensOf(text(b)));
    expect(toolsTokens([a, b])).toBeGreaterThan(expected + 100);
    b.inputSchema = { type: 'object', properties: { command: { type: 'string', description: 'the command line to run in bash' } } };
    expect(toolsTokens([b])).toBe(tokensOf(text(b)));
    b.name = 'bash_with_a_much_longer_name_than_before';
    expect(toolsTokens([b])).toBe(tokensOf(text(b)));
  });
});
