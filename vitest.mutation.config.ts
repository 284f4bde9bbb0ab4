// The tests Stryker runs (stryker.config.mjs): fast unit tests of the code in
// its `mutate` scope, no server, no browser, no agent loop. Every mutant runs
// the tests that covered it in the first run, each run importing their modules
// again, so a test that starts servers or sessions (thinking-*, access,
// approvals, round-trip, secret-repeat) would cost seconds for hundreds of
// mutants: those stay in `npm test`, and the code they guard has unit tests
// here. So do the property tests (a minute each).
import { defineConfig } from 'vitest/config';
import base from './vite.config.js';

// Spread, not mergeConfig: that would add these to the base's include (every test) instead of replacing it.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // Stryker runs the covering tests once per mutant: re-importing the server for every file of every run is most of the time.
    isolate: false,
    // No setup.ts. Stryker's runner runs each mutant in a new worker thread (it sets pool: 'threads'), which
    // imports every setup file again: test/helpers/setup.ts (the predictable model's request rules and the
    // fakes' refusals, with the modules they import) took a third of each mutant's run (0.2 to 0.3 s), and no
    // test here runs the predictable model or a fake (they keep that check in `npm test`). The hang watchdog
    // does not arm in a worker thread; here a spin is stopped by Stryker's hit limit and timeout.
    // Only the removal of the temporary folders each test file made (mutation-setup.ts, a few lines).
    setupFiles: ['test/helpers/mutation-setup.ts'],
    // A mutant that leaves a promise unsettled (a flush or an answer that never comes) fails its test here,
    // in seconds and in the same test process; Stryker's own timeout (stryker.config.mjs) would kill and
    // restart the process, several times the cost. Every test here takes well under a second alone.
    testTimeout: 4_000,
    hookTimeout: 6_000,
    // MUTATION_RUN_LOG=file: one line per run with each file's time (where a mutation run's time goes).
    ...(process.env.MUTATION_RUN_LOG ? { reporters: ['default', './test/helpers/run-time-reporter.ts'] } : {}),
    include: [
      // Access, Host/Origin, headers (the integration headers test needs the built UI, which a fresh clone lacks;
      // access-near-miss.test.ts starts a server and dozens of upgrades per run: the unit test tries the same
      // near-miss tokens and rebinding names in every place, and the server test runs in `npm test`).
      'test/unit/access*.test.ts',
      'test/unit/headers.test.ts',
      // Secrets and the tools' environment; path confinement. tools.test.ts (bash runs, seconds per mutant)
      // and secret-repeat.test.ts (an agent loop) stay in `npm test`: secret-mask, tool-env and paths kill
      // every mutant they killed, in milliseconds.
      'test/unit/tool-env.test.ts',
      'test/unit/secret-mask*.test.ts',
      'test/unit/paths*.test.ts',
      // Approvals: the rules and unansweredCalls; the gate on an in-memory session (approval-wait, approval-resume:
      // milliseconds). approval-gate, approval-modes and approvals-restart, the same on a session log on disk,
      // polling for the wait, stay in `npm test`: the fast two kill every mutant they killed.
      'test/unit/approvals.test.ts',
      'test/unit/approvals-case.test.ts',
      'test/unit/approval-wait.test.ts',
      'test/unit/approval-resume.test.ts',
      // The event log.
      'test/unit/event-log*.test.ts',
      'test/unit/session-durability.test.ts',
      // The view, tool groups, overflow recovery.
      'test/unit/view*.test.ts',
      'test/unit/groups*.test.ts',
      'test/unit/overflow-recovery*.test.ts',
      // Thinking and reasoning round trips.
      'test/unit/reasoning*.test.ts',
      'test/unit/anthropic-thinking*.test.ts',
      // (round-trip.test.ts, the turns sent back through each provider's fake, runs agents: it stays in `npm test`.)
      // Trust and sandbox (issue 21).
      'test/unit/trust*.test.ts',
      'test/unit/sandbox*.test.ts',
      'test/unit/git*.test.ts',
      // Checkpoints and rewind, images, the web UI's decisions (issue 40). checkpoints-journal.test.ts (git and the
      // journal on disk through Checkpoints) and the e2e rewind stay in `npm test`.
      'test/unit/checkpoint-entries.test.ts',
      'test/unit/plain-checkpoints.test.ts',
      'test/unit/image-info.test.ts',
      'test/unit/image-data.test.ts',
      'test/unit/image-lookup.test.ts',
      'test/unit/gauge-fill.test.ts',
      'test/unit/webui-decisions.test.ts',
      // Issue 40: the ACP permission answers, turn endings and call statuses; the CLI's answers on a terminal;
      // the trust description; the mask of live frames.
      'test/unit/acp-permission.test.ts',
      'test/unit/acp-call-status.test.ts',
      'test/unit/acp-commands.test.ts',
      'test/unit/acp-session-map.test.ts',
      'test/unit/cli-answers.test.ts',
      'test/unit/event-mask.test.ts',
      // The data-folder lock: in this process (the kernel lock), and with the machine's answers passed in (the file
      // lock, pids gone or another user's, the key-file race, the folder refusals). test/cli/data-dir-lock.test.ts
      // (real processes) stays in `npm test`.
      'test/unit/data-dir-lock.test.ts',
      'test/unit/data-dir-lock-system.test.ts',
    ],
  },
});
