// Checks a tool call's input against its tool's JSON Schema before anything
// else looks at it (approval, the tool itself). A call the user is asked about
// must be a call the tool will read as shown: `{"command":["ls"]}` is not a
// bash command, and a rule recorded from it would mean nothing.
//
// The subset tools use is checked: type, properties, required, items, enum,
// const, additionalProperties, anyOf / oneOf / allOf and local `$ref`s
// (`#/$defs/...`, as zod and pydantic write them). Other keywords (minimum,
// pattern, ...) are left to the tool, which checks its input again: an
// unknown keyword never refuses a call. Nor does a required name that the
// schema's own `properties` does not describe: such a schema is its server's
// quirk, and the server decides.

/** Most problems listed in one error result. */
const MAX_PROBLEMS = 5;
/** `$ref`s followed on one path (a recursive schema stops being checked; it never loops). */
const MAX_REFS = 32;

type Schema = Record<string, unknown>;

interface Walk {
  root: Schema;
  depth: number;
  problems: string[];
}

/** What is wrong with `input` for `schema`, or undefined when it fits. */
export function inputProblem(schema: unknown, input: unknown): string | undefined {
  const problems: string[] = [];
  check({ root: isObject(schema) ? schema : {}, depth: 0, problems }, schema, input, '');
  if (!problems.length) return undefined;
  const shown = problems.slice(0, MAX_PROBLEMS);
  const more = problems.length > shown.length ? ` (and ${problems.length - shown.length} more)` : '';
  return shown.join('; ') + more;
}

function check(walk: Walk, schema: unknown, value: unknown, at: string): void {
  const { problems } = walk;
  if (schema === false) return void problems.push(`${name(at)} is not allowed`);
  if (!isObject(schema)) return;
  if (typeof schema.$ref === 'string' && walk.depth < MAX_REFS) {
    const target = resolvePointer(walk.root, schema.$ref);
    if (target !== undefined) check({ ...walk, depth: walk.depth + 1 }, target, value, at);
  }
  const types = typesOf(schema.type);
  if (types && !types.some((t) => hasType(value, t))) {
    return void problems.push(`${name(at)} must be ${types.map(article).join(' or ')}, got ${describe(value)}`);
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => sameJson(option, value))) {
    return void problems.push(`${name(at)} must be one of ${schema.enum.map((o) => JSON.stringify(o)).join(', ')}, got ${short(value)}`);
  }
  if ('const' in schema && !sameJson(schema.const, value)) return void problems.push(`${name(at)} must be ${short(schema.const)}, got ${short(value)}`);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length && !options.some((option) => fits(walk, option, value, at))) {
      // oneOf is checked as anyOf: refusing a call that fits two options is the tool's business.
      const first: string[] = [];
      check({ ...walk, problems: first }, options[0], value, at);
      return void problems.push(`${name(at)} fits none of its ${options.length} allowed forms (the first: ${first[0] ?? 'refused'})`);
    }
  }
  if (Array.isArray(schema.allOf)) for (const part of schema.allOf) check(walk, part, value, at);
  if (isObject(value)) checkObject(walk, schema, value, at);
  if (Array.isArray(value) && isObject(schema.items)) value.forEach((item, i) => check(walk, schema.items, item, `${at}[${i}]`));
}

function checkObject(walk: Walk, schema: Schema, value: Record<string, unknown>, at: string): void {
  const { problems } = walk;
  const described = isObject(schema.properties);
  const properties = isObject(schema.properties) ? schema.properties : {};
  if (Array.isArray(schema.required)) {
    for (const key of schema.required) {
      if (typeof key !== 'string' || value[key] !== undefined || (described && !Object.hasOwn(properties, key))) continue;
      problems.push(`${name(join(at, key))} is required`);
    }
  }
  for (const [key, item] of Object.entries(value)) {
    if (Object.hasOwn(properties, key)) check(walk, properties[key], item, join(at, key));
    else if (schema.additionalProperties === false) problems.push(`${name(join(at, key))} is not a known field${knownFields(properties)}`);
    else if (isObject(schema.additionalProperties)) check(walk, schema.additionalProperties, item, join(at, key));
  }
}

function fits(walk: Walk, schema: unknown, value: unknown, at: string): boolean {
  const problems: string[] = [];
  check({ ...walk, problems }, schema, value, at);
  return problems.length === 0;
}

/** A local JSON pointer (`#`, `#/$defs/Name`) inside `root`, or undefined (a remote or dangling one refuses nothing). */
function resolvePointer(root: Schema, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

function typesOf(type: unknown): string[] | undefined {
  if (typeof type === 'string') return [type];
  if (Array.isArray(type) && type.every((t) => typeof t === 'string')) return type as string[];
  return undefined;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    default:
      return true; // an unknown type name refuses nothing
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array (${short(value)})`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' && Number.isInteger(value)) return `the integer ${value}`;
  return `${article(typeof value)} (${short(value)})`;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function knownFields(properties: Schema): string {
  const keys = Object.keys(properties);
  return keys.length ? ` (known: ${keys.join(', ')})` : '';
}

function join(at: string, key: string): string {
  return at ? `${at}.${key}` : key;
}

function name(at: string): string {
  return at ? JSON.stringify(at) : 'the input';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Same JSON value, whatever the order of object keys. */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** JSON with object keys sorted: one spelling for one value. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sorted(value)) ?? 'undefined';
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sorted(value[k])]),
  );
}
