// The mutation run's two configurations agree: the checked run
// (stryker.checked.config.mjs) type-checks exactly the files the default run
// mutates (tsconfig.mutation.json lists them by hand), so a file added to the
// scope and not to the tsconfig fails here, not silently in the checker.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PartialStrykerOptions } from '@stryker-mutator/api/core';
import { describe, expect, it } from 'vitest';

// Plain JavaScript config files: loaded by URL (no type declarations for them).
const load = async (file: string) => ((await import(pathToFileURL(path.resolve(file)).href)) as { default: PartialStrykerOptions }).default;
const base = await load('stryker.config.mjs');
const checked = await load('stryker.checked.config.mjs');
const changed = await load('stryker.changed.config.mjs');

describe('the mutation configurations', () => {
  it('the checked run type-checks exactly the mutated files, with the TypeScript checker, apart from the default run', () => {
    const tsconfig = JSON.parse(fs.readFileSync('tsconfig.mutation.json', 'utf8')) as { files: string[] };
    expect([...tsconfig.files].sort()).toEqual([...(base.mutate as string[])].sort());
    expect(checked.checkers).toEqual(['typescript']);
    expect(checked.tsconfigFile).toBe('tsconfig.mutation.json');
    expect(checked.mutate).toEqual(base.mutate);
    for (const key of ['incrementalFile', 'tempDirName'] as const) expect(checked[key]).not.toBe(base[key]);
    expect(checked.jsonReporter?.fileName).not.toBe(base.jsonReporter?.fileName);
  });

  it('the default run has no checker, and every mutated file exists', () => {
    expect(base.checkers).toEqual([]);
    for (const file of base.mutate as string[]) expect(fs.existsSync(file), file).toBe(true);
  });

  it('the routine run of changed files (npm run test:mutation:changed) mutates the same scope in a folder, incremental file and report of its own', () => {
    expect(changed.mutate).toEqual(base.mutate);
    for (const other of [base, checked]) {
      for (const key of ['incrementalFile', 'tempDirName'] as const) expect(changed[key]).not.toBe(other[key]);
      expect(changed.jsonReporter?.fileName).not.toBe(other.jsonReporter?.fileName);
    }
  });
});
