// Runs before every test file (vite.config.ts setupFiles).
import { afterAll, afterEach } from 'vitest';
import { refusals } from '../fakes/rules/rejection.js';
import { checkPredictableRequests, takeRequestViolations } from './request-rules.js';
import { killChildren } from './run-registry.js';
import { stopSharedPostgres } from './shared-postgres.js';
import { removeTempDirs } from './temp-dir.js';

checkPredictableRequests();

afterEach(() => {
  const broken = takeRequestViolations();
  if (broken.length) throw new Error(`the predictable model got ${broken.length} request(s) a provider would refuse:\n${broken.join('\n')}`);
  const refused = refusals.splice(0);
  if (refused.length) throw new Error(`a provider fake refused ${refused.length} request(s) for breaking its rules:\n${refused.join('\n')}`);
});

// What the file started goes with it (after hooks run last-registered first: these after the file's own):
// child processes still running, its shared PostgreSQL cluster, its temporary folders.
afterAll(async () => {
  await killChildren();
  await stopSharedPostgres();
  removeTempDirs();
});
