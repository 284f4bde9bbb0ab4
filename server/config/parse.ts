// Parsers for setting values: each returns the value or the allowed range as
// a ConfigError, so loadConfig can name the variable and what it accepts.
import fs from 'node:fs';
import path from 'node:path';
import { ENV_NAME } from '../tools/env.js';

export class ConfigError {
  constructor(readonly allowed: string) {}
}

export class InvalidSettingError extends Error {
  constructor(
    readonly variable: string,
    readonly value: string,
    readonly allowed: string,
  ) {
    super(`${variable}=${JSON.stringify(value)} is invalid: expected ${allowed}`);
  }
}

/** The shape a numeric or on/off setting takes; the table of tests and the docs walk it. */
export type ValueForm = 'integer' | 'decimal' | 'on-off';

/** A parser that says which form it takes. */
type FormParser<T> = ((raw: string) => T | ConfigError) & { form: ValueForm };

function withForm<T>(form: ValueForm, parse: (raw: string) => T | ConfigError): FormParser<T> {
  return Object.assign(parse, { form });
}

// Plain ASCII digits, nothing around them: no sign, exponent, hex, separator
// or space (Number() would take `1e3`, `0x10`, ` 12 ` and `` as 0).
const DIGITS = /^[0-9]{1,16}$/;
const DECIMAL = /^[0-9]{1,16}(\.[0-9]{1,16})?$/;

/** Digits only (`8420`), from `min` to `max`. */
export function integer(min: number, max: number) {
  return withForm('integer', (raw: string): number | ConfigError => {
    const n = DIGITS.test(raw) ? Number(raw) : NaN;
    return n >= min && n <= max ? n : new ConfigError(`an integer from ${min} to ${max}, in plain digits`);
  });
}

/** A number written as digits with an optional decimal point (`0.85`, `2`), checked by `inRange`. */
function decimal(allowed: string, inRange: (n: number) => boolean) {
  return withForm('decimal', (raw: string): number | ConfigError => {
    const n = DECIMAL.test(raw) ? Number(raw) : NaN;
    return Number.isFinite(n) && inRange(n) ? n : new ConfigError(`${allowed}, written as digits with an optional decimal point (like 0.85)`);
  });
}

/** A ratio r with 0 < r <= 1. */
export const ratio = decimal('a number r with 0 < r <= 1', (n) => n > 0 && n <= 1);

/** A number of dollars, 0 (off) or more. */
export const dollars = decimal('a number of dollars from 0 to 1000000 (0 turns it off)', (n) => n >= 0 && n <= 1_000_000);

/** Exactly `on` or `off`, lower case. */
export const onOff = withForm('on-off', (raw: string): boolean | ConfigError => (raw === 'on' ? true : raw === 'off' ? false : new ConfigError('on or off (lower case)')));

/** The form of a setting's parser, if it is numeric or on/off. */
export function formOf(parse: unknown): ValueForm | undefined {
  return (parse as Partial<FormParser<unknown>>).form;
}

export function nonEmpty(what: string) {
  return (raw: string): string | ConfigError => (raw.trim() ? raw.trim() : new ConfigError(what));
}

/** One or more existing folders, separated by commas or the path delimiter. */
export function workRoots(raw: string): string[] | ConfigError {
  const roots = raw.split(new RegExp(`[,${path.delimiter === ';' ? ';' : ':'}]`)).map((r) => r.trim()).filter(Boolean).map((r) => path.resolve(r));
  const allowed = `existing folders, separated by commas or "${path.delimiter}"`;
  if (!roots.length) return new ConfigError(allowed);
  const missing = roots.find((r) => !fs.existsSync(r) || !fs.statSync(r).isDirectory());
  return missing ? new ConfigError(`${allowed} (${missing} is not a folder)`) : [...new Set(roots)];
}

/** One of a fixed list of words. */
export function oneOf<T extends string>(values: readonly T[]) {
  return (raw: string): T | ConfigError => ((values as readonly string[]).includes(raw) ? (raw as T) : new ConfigError(values.join(' | ')));
}

/** A comma-separated list of variable names. */
export function envNames(raw: string): string[] | ConfigError {
  const names = raw.split(',').map((n) => n.trim());
  return names.length && names.every((n) => ENV_NAME.test(n)) ? names : new ConfigError('comma-separated variable names (letters, digits, _)');
}
