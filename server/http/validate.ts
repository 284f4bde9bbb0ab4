// Request validation with the wire's schemas (shared/wire/requests.ts, the
// bodies of shared/wire/rest.ts): a refusal is a 400 with the schema's sentence.
import type { Response } from 'express';
import type { z } from 'zod';
import { parseWith } from '../../shared/wire/validate.js';

/** The parsed value, or undefined once a 400 `{error}` is sent. */
export function valid<S extends z.ZodType>(schema: S, value: unknown, res: Response): z.output<S> | undefined {
  const parsed = parseWith(schema, value);
  if (parsed.ok) return parsed.value;
  res.status(400).json({ error: parsed.error });
  return undefined;
}
