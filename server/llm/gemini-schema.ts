// Tool input schemas in the dialect Gemini's function declarations accept
// (sent as parametersJsonSchema). Gemini refuses a request whose declarations
// carry `$schema` or `const` ("Unknown name ... Cannot find field"), a `$ref`
// with sibling keywords, or a `required` name with no property; MCP servers
// (zod, pydantic) emit all of these. So references are inlined (a recursive
// one becomes a plain object), `$defs` / `$schema` / `$id` / `$comment` are
// dropped, `const` becomes a one-value enum, a type list becomes anyOf, and
// `required` keeps only defined properties. Built-in tools pass unchanged.
import { resolvePointer } from '../mcp/schema.js';

const DROPPED = new Set(['$schema', '$id', '$comment', '$defs', 'definitions', '$anchor', '$dynamicAnchor']);

export function geminiSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const converted = convert(schema, schema, new Set());
  return typeof converted === 'object' && converted !== null && !Array.isArray(converted) ? (converted as Record<string, unknown>) : { type: 'object', properties: {} };
}

function convert(node: unknown, root: Record<string, unknown>, expanding: Set<string>): unknown {
  if (Array.isArray(node)) return node.map((n) => convert(n, root, expanding));
  if (typeof node !== 'object' || node === null) return node;
  const obj = node as Record<string, unknown>;
  if (typeof obj.$ref === 'string') {
    const ref = obj.$ref;
    const description = typeof obj.description === 'string' ? { description: obj.description } : {};
    const target = resolvePointer(root, ref);
    if (expanding.has(ref) || target === undefined) {
      // Recursive (or, after checkInputSchema, impossible: dangling): an object the model fills freely.
      return { type: 'object', ...description };
    }
    const inner = convert(target, root, new Set([...expanding, ref])) as Record<string, unknown>;
    return { ...inner, ...description };
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) {
    if (DROPPED.has(key)) continue;
    if (key === 'const') {
      out.enum = [value];
      continue;
    }
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convert(v, root, expanding)]));
      continue;
    }
    out[key] = convert(value, root, expanding);
  }
  if (Array.isArray(out.type)) {
    const types = out.type.filter((t) => t !== 'null');
    if (types.length <= 1) out.type = types[0] ?? 'string';
    else {
      delete out.type;
      out.anyOf = types.map((t) => ({ type: t }));
    }
  }
  if (Array.isArray(out.required)) {
    const props = (out.properties ?? {}) as Record<string, unknown>;
    out.required = out.required.filter((r) => typeof r === 'string' && r in props);
    if (!(out.required as unknown[]).length) delete out.required;
  }
  return out;
}
