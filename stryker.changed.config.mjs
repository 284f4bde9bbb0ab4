// `npm run test:mutation:changed`: the routine run of only the files a change
// touched (scripts/mutation/run-changed.ts passes --mutate and --testFiles).
// The same run as stryker.config.mjs, with a folder, incremental file and
// report of its own, so it never mixes with (or shrinks) the full run's
// incremental file. The script judges each file's score itself, so Stryker's
// own break on the whole run is off: a non-zero exit from Stryker is an error.
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  thresholds: { ...base.thresholds, break: null },
  incrementalFile: 'reports/stryker-incremental-changed.json',
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation-changed/mutation.json' },
  tempDirName: '.stryker-tmp-changed',
};
