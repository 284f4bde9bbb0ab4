// Mutation testing of the code that guards users (issue 28): `npm run test:mutation`.
// Each mutant runs only the tests that cover it (perTest coverage), so a full
// run stays within minutes; the incremental file lets a later run re-test only
// mutants whose code or tests changed. Reports (and the incremental file) live
// in reports/, which is kept out of git.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  // No TypeScript checker. It type-checks once per group of mutants (one mutant per file in a group, so at
  // least as many groups as approvals.ts has mutants, 343), and TypeScript's solution builder, which it uses,
  // releases the program after each build: every check parses and binds the whole program again. Even with a
  // tsconfig of only the scope's files and what they import (111 of ours, 911 with the SDKs' types): 5 to 10 s
  // a check at load 7, and the checker takes one of the two processes until it is done. server/http/access.ts
  // alone, concurrency 1: 14 min 24 s with it (53 of 168 mutants a compile error, not run) against 2 min 16 s
  // without. vitest runs a mutant that would not compile as the JavaScript it is; such a mutant is killed or
  // survives on its behaviour.
  checkers: [],
  coverageAnalysis: 'perTest',
  // A static mutant (a module-level constant: a Set of names, a pattern, a limit) is live from import, so
  // Stryker runs every test for it: 12% of the mutants took 72% of the time. They are left out of the run;
  // those that guard users (the secret-name pattern, the masking floor, the loopback names) are each checked
  // by a test that fails on them (README, Tests: "Mutation testing").
  ignoreStatic: true,
  mutate: [
    // Who may talk to skein: token, Host and Origin; the response headers.
    'server/http/access.ts',
    'server/http/headers.ts',
    // Secret masking and the tools' environment; path confinement.
    'server/tools/env.ts',
    'server/tools/paths.ts',
    // Approvals and their rules.
    'server/agent/approvals.ts',
    'server/agent/approval-rules.ts',
    // The event log: seq assignment and durability.
    'server/store/event-log.ts',
    'server/store/session-log.ts',
    // What the model sees: the view's order and whole tool groups; overflow recovery.
    'server/compaction/view.ts',
    'server/compaction/groups.ts',
    'server/agent/overflow-recovery.ts',
    // Thinking and reasoning round trips.
    'server/llm/anthropic-thinking.ts',
    'server/llm/reasoning.ts',
    // Trust and sandbox (issue 21): the decisions on a project's files and what a gated file may start;
    // which paths the sandbox protects and what it mounts; git run with no program of the repository's.
    'server/trust/store.ts',
    'server/trust/project-files.ts',
    'server/tools/sandbox/protected-paths.ts',
    'server/tools/sandbox/mounts.ts',
    'server/tools/sandbox/git-metadata.ts',
    'server/workspace/git-hardening.ts',
    // Checkpoints and rewind (issue 40): which calls take one, the journal, the rewind point, what a rewind does
    // to each file in a git folder (its name-status) and in a plain one (the copies, links, folders, refusals).
    'server/workspace/checkpoint-entries.ts',
    'server/workspace/plain-checkpoints.ts',
    // Images: what the header says (every type and WebP variant), the size limit, the image route's folder check.
    'server/images/image-info.ts',
    'shared/wire/image-data.ts',
    'server/images/image-lookup.ts',
    // The web UI's decisions, as plain functions its components call: the gauge's fill, level, tick and words;
    // a diff line's colour; how an approval and its decision read; the mode picker's title.
    'webui/gauge-fill.ts',
    'webui/gauge-level.ts',
    'webui/diff-line-class.ts',
    'webui/approval-words.ts',
    'webui/mode-words.ts',
    // Issue 40. ACP: what each answer to a permission question decides; each call's status; how a turn ended.
    'server/acp/permission.ts',
    'server/acp/call-status.ts',
    'server/acp/turn.ts',
    // The approval mode an ACP mode id stands for, the command a prompt invokes, /rewind's argument, the command
    // list; the editor's session ids and the skein sessions open for them.
    'server/acp/commands.ts',
    'server/acp/session-map.ts',
    // The CLI's questions on a terminal (approvals, skein trust): what each typed answer decides.
    'server/cli/answers.ts',
    // What the user is shown about a project file before trusting it.
    'server/trust/describe.ts',
    // Secrets masked in what is logged and in the frames sent live (streamed text, error notes).
    'server/agent/event-mask.ts',
    // One server per data folder: the kernel lock and the file lock, the holder's liveness, the folder's checks.
    'server/lock/data-dir-lock.ts',
    'server/lock/data-dir-check.ts',
  ],
  // One test process per core of the 2-core machines the project is measured on (--concurrency 1 on a busy one).
  concurrency: 2,
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  thresholds: { high: 95, low: 90, break: 90 },
  // A mutant that leaves a promise unsettled fails its test at the mutation config's testTimeout (4 s), in the
  // same test process. This timeout is for a synchronous spin the hit limit does not stop: it costs a restart of
  // the test process, so it fires only well after any test's own timeout could have.
  timeoutMS: 10_000,
  timeoutFactor: 1.5,
  ignorePatterns: ['dist', 'test-output', 'reports', '.skein-data', 'test/bench/results', '.stryker-tmp*'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
