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

export function integer(min: number, max: number) {
  return (raw: string): number | ConfigError => {
    const n = Number(raw.trim());
    return raw.trim() !== '' && Number.isInteger(n) && n >= min && n <= max
      ? n
      : new ConfigError(`an integer from ${min} to ${max}`);
  };
}

/** A ratio r with 0 < r <= 1. */
export function ratio(raw: string): number | ConfigError {
  const n = Number(raw.trim());
  return raw.trim() !== '' && Number.isFinite(n) && n > 0 && n <= 1
    ? n
    : new ConfigError('a number r with 0 < r <= 1');
}

/** A number of dollars, 0 (off) or more. */
export function dollars(raw: string): number | ConfigError {
  const n = Number(raw.trim());
  return raw.trim() !== '' && Number.isFinite(n) && n >= 0 && n <= 1_000_000
    ? n
    : new ConfigError('a number of dollars from 0 to 1000000 (0 turns it off)');
}

export function onOff(raw: string): boolean | ConfigError {
  const v = raw.trim().toLowerCase();
  return v === 'on' || v === 'true' || v === '1' ? true : v === 'off' || v === 'false' || v === '0' ? false : new ConfigError('on or off');
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
  return (raw: string): T | ConfigError => ((values as readonly string[]).includes(raw.trim()) ? (raw.trim() as T) : new ConfigError(values.join(' | ')));
}

/** A comma-separated list of variable names. */
export function envNames(raw: string): string[] | ConfigError {
  const names = raw.split(',').map((n) => n.trim());
  return names.length && names.every((n) => ENV_NAME.test(n)) ? names : new ConfigError('comma-separated variable names (letters, digits, _)');
}
