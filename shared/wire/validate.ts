// Validation with the wire's schemas: one clear sentence per refusal (the
// first problem found, in the order of the schema's fields), as clients and
// tests have always been told, e.g. `"text" must not be empty`.
import { z } from 'zod';
import { MAX_IMAGES_PER_MESSAGE, MAX_MESSAGE_CHARS } from './constants.js';
import { ImageInputSchema } from './parts.js';

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** A text field: a string, not blank (unless allowed), at most MAX_MESSAGE_CHARS long. */
export function text(field: string, allowEmpty = false) {
  const string = z.string({ error: `"${field}" must be a string` });
  return (allowEmpty ? string : string.regex(/\S/, { error: `"${field}" must not be empty` })).max(MAX_MESSAGE_CHARS, {
    error: `"${field}" is longer than ${MAX_MESSAGE_CHARS} characters`,
  });
}

/** Parses `value` with `schema`; never throws. A field without a message of its own is named in zod's. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown): Parsed<z.output<S>> {
  const result = schema.safeParse(value, { error: fieldNamed });
  return result.success ? { ok: true, value: result.data } : { ok: false, error: result.error.issues[0]!.message };
}

/** zod's own message with the field's name first (the schemas' own messages, which win over this, name theirs). */
function fieldNamed(issue: z.core.$ZodRawIssue): string | undefined {
  const message = z.config().localeError?.(issue);
  const text = typeof message === 'string' ? message : message?.message;
  return issue.path?.length && text ? `"${issue.path.join('.')}": ${text}` : text;
}

/** Checks a text field: a string, not blank (unless allowed), not too long. */
export function checkText(value: unknown, field: string, allowEmpty = false): string | { ok: false; error: string } {
  const parsed = parseWith(text(field, allowEmpty), value);
  return parsed.ok ? parsed.value : parsed;
}

/** A message's text and its optional images: the text may be empty when images come with it. */
export function messageFields() {
  return {
    text: text('text', true),
    images: z.array(ImageInputSchema, { error: '"images" must be a list of {mediaType, data}' }).max(MAX_IMAGES_PER_MESSAGE, { error: `a message may carry at most ${MAX_IMAGES_PER_MESSAGE} images` }).optional(),
  };
}

/** The rule of messageFields: a message says something, in words or in pictures. */
export const saysSomething = [(m: { text: string; images?: unknown[] | undefined }) => /\S/.test(m.text) || Boolean(m.images?.length), { error: '"text" must not be empty' }] as const;
