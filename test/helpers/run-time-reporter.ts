// A Vitest reporter for finding where a mutation run's time goes: with
// MUTATION_RUN_LOG set, each run (Stryker starts one per mutant) appends one
// JSON line: its wall time and each file's time and test count. Unset, it does nothing.
import fs from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

export default class RunTimeReporter implements Reporter {
  private startedAt = 0;

  onTestRunStart(): void {
    this.startedAt = Date.now();
  }

  onTestRunEnd(modules: readonly TestModule[]): void {
    const log = process.env.MUTATION_RUN_LOG;
    if (!log) return;
    const files = modules.map((m) => ({
      file: path.relative(process.cwd(), m.moduleId),
      ms: Math.round(m.diagnostic().duration),
      tests: [...m.children.allTests()].filter((t) => t.result().state !== 'skipped').length,
    }));
    fs.appendFileSync(log, `${JSON.stringify({ ms: Date.now() - this.startedAt, files })}\n`);
  }
}
