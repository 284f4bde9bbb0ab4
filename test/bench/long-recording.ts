// A long recorded session built from all trajectories one after another
// (tool-call ids made unique per pass), for benchmarks that need thousands of
// messages or events.
import path from 'node:path';
import type { ViewMessage } from '../../shared/protocol.js';
import { loadTrajectory } from '../../server/llm/replay.js';
import { TRAJECTORIES, trajectoryFiles } from './survival.js';

/** System + first user message of the first trajectory, then every later message of all of them, `passes` times. */
export function longRecording(passes = 1): ViewMessage[] {
  const all = trajectoryFiles().map((f) => loadTrajectory(path.join(TRAJECTORIES, f)));
  const head = all[0]!.slice(0, 2);
  const body: ViewMessage[] = [];
  for (let pass = 0; pass < passes; pass++) {
    for (const t of all) {
      const suffix = `_p${pass}`;
      for (const m of t.slice(2)) {
        body.push({
          ...m,
          ...(m.toolCalls && { toolCalls: m.toolCalls.map((c) => ({ ...c, id: c.id + suffix })) }),
          ...(m.toolCallId && { toolCallId: m.toolCallId + suffix }),
        });
      }
    }
  }
  return [...head, ...body];
}
