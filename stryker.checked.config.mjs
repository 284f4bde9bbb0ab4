// `npm run test:mutation:checked`: the same run as stryker.config.mjs with the
// TypeScript checker, which sets each mutant that would not compile aside as a
// compile error instead of running it. Several times slower (stryker.config.mjs
// says why), so it is not the default: run it to see which survivors are
// mutants TypeScript would refuse anyway. Its own folder, incremental file and
// report, so it never mixes with the default run's.
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  checkers: ['typescript'],
  // Only the mutated files and what they import (a test checks that its list is the `mutate` list).
  tsconfigFile: 'tsconfig.mutation.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  incrementalFile: 'reports/stryker-incremental-checked.json',
  jsonReporter: { fileName: 'reports/mutation-checked/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation-checked/mutation.html' },
  tempDirName: '.stryker-tmp-checked',
};
