// A Vitest reporter for finding where a mutation run's time goes: with
// MUTATION_RUN_LOG set, each run (Stryker starts one per mutant) appends one
// JSON line: the mutant, its wall time, and each file's test time, test count and the time of its setup
// files and imports (a run starts a new worker: importing is most of it). Unset, it does nothing.
import fs from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

export default class RunTimeReporter implements Reporter {
  private startedAt = 0;
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunStart(): void {
    this.startedAt = Date.now();
  }

  onTestRunEnd(modules: readonly TestModule[]): void {
    const log = process.env.MUTATION_RUN_LOG;
    if (!log) return;
    const files = modules.map((m) => {
      const d = m.diagnostic();
      return {
        file: path.relative(process.cwd(), m.moduleId),
        ms: Math.round(d.duration),
        // Where the rest of a run goes: the environment, the setup files, importing the test file and what it imports.
        envMs: Math.round(d.environmentSetupDuration),
        prepareMs: Math.round(d.prepareDuration),
        setupMs: Math.round(d.setupDuration),
        collectMs: Math.round(d.collectDuration),
        tests: [...m.children.allTests()].filter((t) => t.result().state !== 'skipped').length,
      };
    });
    // Stryker provides the mutant under test to the tests (its vitest runner's `provide`): the run's time, per mutant and so per source file.
    const mutant = (this.vitest?.getProvidedContext() as { activeMutant?: string } | undefined)?.activeMutant;
    fs.appendFileSync(log, `${JSON.stringify({ mutant, ms: Date.now() - this.startedAt, files })}\n`);
  }
}
