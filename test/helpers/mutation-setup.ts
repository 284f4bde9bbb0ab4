// The mutation run's only setup file (vitest.mutation.config.ts): the folders
// a test file made with `tempDir` go when the file ends. Stryker runs the
// covering tests once per mutant, so without it every mutant's run left its
// folders behind (141 from one run over server/tools/paths.ts). Small on
// purpose: Stryker imports each setup file again for every mutant.
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-dir.js';

afterAll(() => removeTempDirs());
