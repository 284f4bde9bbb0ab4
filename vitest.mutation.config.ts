// The tests Stryker runs (stryker.config.mjs): unit, property and integration
// tests of the code in its `mutate` scope, no browser. Every mutant runs only
// the tests that covered its line in the first run.
import { defineConfig } from 'vitest/config';
import base from './vite.config.js';

// Spread, not mergeConfig: that would add these to the base's include (every test) instead of replacing it.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      // Access, Host/Origin, headers (the integration headers test needs the built UI, which a fresh clone lacks).
      'test/unit/access*.test.ts',
      'test/integration/access*.test.ts',
      'test/unit/headers.test.ts',
      // Secrets and the tools' environment; path confinement.
      'test/unit/tool-env.test.ts',
      'test/unit/secret-mask*.test.ts',
      'test/unit/tools.test.ts',
      'test/unit/paths*.test.ts',
      'test/integration/tool-secrets.test.ts',
      'test/integration/token-masking.test.ts',
      'test/integration/secret-repeat*.test.ts',
      // Approvals.
      'test/unit/approvals*.test.ts',
      'test/integration/approvals.test.ts',
      // The event log.
      'test/unit/event-log*.test.ts',
      'test/unit/session-durability.test.ts',
      // The view, tool groups, overflow recovery.
      'test/unit/view*.test.ts',
      'test/unit/groups*.test.ts',
      'test/unit/overflow-recovery*.test.ts',
      'test/property/*.property.test.ts',
      'test/integration/message-order.test.ts',
      // Thinking and reasoning round trips.
      'test/unit/reasoning*.test.ts',
      'test/unit/anthropic-thinking*.test.ts',
      'test/integration/thinking-*.test.ts',
      'test/integration/round-trip*.test.ts',
      // Trust and sandbox (issue 21).
      'test/unit/trust*.test.ts',
      'test/unit/sandbox*.test.ts',
      'test/unit/git*.test.ts',
      'test/integration/sandbox*.test.ts',
      'test/integration/trust*.test.ts',
    ],
  },
});
