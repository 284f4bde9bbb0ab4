// A zod schema as a short type for a docs table: `string`, `"a" | "b"`,
// `Usage?`. A schema with a registered id is named by it, not expanded, so
// each table row stays one line.
import { z } from 'zod';

type Def = { type: string; [key: string]: unknown };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

export function typeText(schema: z.ZodType, top = true): string {
  const id = z.globalRegistry.get(schema)?.id;
  if (id && !top) return id;
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
      return `${typeText(def.innerType as z.ZodType, false)}?`;
    case 'nullable':
      return `${typeText(def.innerType as z.ZodType, false)} \\| null`;
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
      return typeText(def.innerType as z.ZodType, false);
    case 'pipe':
      return typeText(def.in as z.ZodType, false);
    case 'literal':
      return (def.values as unknown[]).map((v) => JSON.stringify(v)).join(' \\| ');
    case 'enum':
      return Object.values(def.entries as Record<string, string>).map((v) => JSON.stringify(v)).join(' \\| ');
    case 'array':
      return `${typeText(def.element as z.ZodType, false)}[]`;
    case 'union':
      return (def.options as z.ZodType[]).map((o) => typeText(o, false)).join(' \\| ');
    case 'record':
      return `{[${typeText(def.keyType as z.ZodType, false)}]: ${typeText(def.valueType as z.ZodType, false)}}`;
    case 'object': {
      const shape = (schema as z.ZodObject).shape;
      return `{${Object.entries(shape).map(([k, v]) => `${k}: ${typeText(v as z.ZodType, false)}`).join(', ')}}`;
    }
    case 'lazy':
      return typeText((def.getter as () => z.ZodType)(), false);
    default:
      return def.type; // string, number, boolean, unknown, any, ...
  }
}

/** The fields of an object schema as a table (a meaning column only when a field has a description); empty without fields. */
export function fieldTable(schema: z.ZodObject, skip: string[] = []): string[] {
  const fields = Object.entries(schema.shape).filter(([name]) => !skip.includes(name)) as [string, z.ZodType][];
  if (!fields.length) return [];
  const described = fields.some(([, f]) => z.globalRegistry.get(f)?.description);
  const row = ([name, f]: [string, z.ZodType]) =>
    `| \`${name}\` | \`${typeText(f, false)}\` |${described ? ` ${z.globalRegistry.get(f)?.description ?? ''} |` : ''}`;
  return [described ? '| field | type | meaning |' : '| field | type |', described ? '|---|---|---|' : '|---|---|', ...fields.map(row)];
}
