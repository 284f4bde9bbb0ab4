import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: 'webui',
  build: {
    outDir: '../dist/webui',
    emptyOutDir: true,
    target: 'es2022',
  },
  test: {
    root: '.',
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // Every request the predictable model gets is checked by the provider rules.
    // A hang is a failure: the watchdog kills a test process whose event loop a spin blocks (no timeout below can fire then).
    setupFiles: ['test/helpers/setup.ts', 'test/helpers/hang-watchdog-setup.ts'],
    // Every cluster, child process and folder a test starts is recorded; one left when the run ends fails it.
    globalSetup: ['test/helpers/global-setup.ts'],
    // Each file runs in a process of its own, so the watchdog can end it alone.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    // Two cores: browser tests and servers compete; keep parallelism modest.
    maxWorkers: 2,
  },
});
