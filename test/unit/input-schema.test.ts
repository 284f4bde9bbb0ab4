// Tool input checked against the tool's JSON Schema before approval: the
// subset tools use, with errors that name the field and what was expected.
import { describe, expect, it } from 'vitest';
import { canonicalJson, inputProblem } from '../../server/tools/input-schema.js';
import { TOOLS } from '../../server/tools/registry.js';

const schemaOf = (name: string) => TOOLS.find((t) => t.spec.name === name)!.spec.inputSchema;

describe('inputProblem', () => {
  it('accepts the input each built-in tool documents', () => {
    expect(inputProblem(schemaOf('bash'), { command: 'ls' })).toBeUndefined();
    expect(inputProblem(schemaOf('write_file'), { path: 'a', content: '' })).toBeUndefined();
    expect(inputProblem(schemaOf('edit_file'), { path: 'a', old: 'x', new: 'y', replace_all: true })).toBeUndefined();
    expect(inputProblem(schemaOf('update_plan'), { steps: [{ step: 'a', status: 'pending' }] })).toBeUndefined();
    expect(inputProblem(schemaOf('read_file'), { path: 'a', offset: 3 })).toBeUndefined();
  });

  it('names the field and what was expected', () => {
    expect(inputProblem(schemaOf('bash'), { command: ['ls'] })).toBe('"command" must be a string, got an array (["ls"])');
    expect(inputProblem(schemaOf('bash'), {})).toBe('"command" is required');
    expect(inputProblem(schemaOf('write_file'), { path: 'a', content: { x: 1 } })).toBe('"content" must be a string, got an object');
    expect(inputProblem(schemaOf('read_file'), { path: 'a', offset: 1.5 })).toBe('"offset" must be an integer, got a number (1.5)');
    expect(inputProblem(schemaOf('update_plan'), { steps: [{ step: 'a', status: 'later' }] })).toBe('"steps[0].status" must be one of "pending", "in_progress", "done", got "later"');
    expect(inputProblem(schemaOf('update_plan'), { steps: [{ status: 'pending' }] })).toBe('"steps[0].step" is required');
    expect(inputProblem(schemaOf('edit_file'), { path: 1, old: null })).toBe('"new" is required; "path" must be a string, got the integer 1; "old" must be a string, got null');
  });

  it('MCP schemas: additionalProperties, nested objects, type lists, anyOf; unknown keywords refuse nothing', () => {
    const schema = {
      type: 'object',
      properties: {
        repo: { type: 'string', pattern: '^[a-z]+/[a-z]+$' },
        labels: { type: 'array', items: { type: 'string' } },
        meta: { type: 'object', properties: { n: { type: ['integer', 'null'] } }, additionalProperties: false },
        id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      },
      required: ['repo'],
      additionalProperties: false,
    };
    expect(inputProblem(schema, { repo: 'NOT A MATCH', labels: ['a'], meta: { n: null }, id: 3 })).toBeUndefined();
    expect(inputProblem(schema, { repo: 'a/b', extra: 1 })).toBe('"extra" is not a known field (known: repo, labels, meta, id)');
    expect(inputProblem(schema, { repo: 'a/b', labels: ['a', 2] })).toBe('"labels[1]" must be a string, got the integer 2');
    expect(inputProblem(schema, { repo: 'a/b', meta: { n: 'x', m: 1 } })).toContain('"meta.n" must be an integer or a null');
    expect(inputProblem(schema, { repo: 'a/b', id: true })).toContain('"id" fits none of its 2 allowed forms');
    expect(inputProblem({ type: 'object' }, { anything: [1, { a: 2 }] })).toBeUndefined();
    // zod/pydantic style: local $refs are followed; a required name the schema does not describe is its server's business.
    const refs = { type: 'object', properties: { a: { $ref: '#/$defs/num' }, self: { $ref: '#' } }, required: ['a', 'ghost'], $defs: { num: { type: 'number' } } };
    expect(inputProblem(refs, { a: 2 })).toBeUndefined();
    expect(inputProblem(refs, { a: 'two' })).toBe('"a" must be a number, got a string ("two")');
    expect(inputProblem(refs, { a: 1, self: { a: 'x' } })).toBe('"self.a" must be a number, got a string ("x")');
    expect(inputProblem(refs, {})).toBe('"a" is required');
    expect(inputProblem({}, { anything: 1 })).toBeUndefined();
  });

  it('canonical JSON: one spelling for one value', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 0 }], c: null } })).toBe(canonicalJson({ a: { c: null, d: [2, { y: 0, z: 1 }] }, b: 1 }));
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
  });
});
