// Where the 18 recorded sessions are: SKEIN_TRAJECTORIES if set, else the
// copy kept in test/fixtures/trajectories (the corpus of ../shared/trajectories,
// MIT, see its README), so a fresh clone anywhere has them.
import fs from 'node:fs';
import path from 'node:path';

export const TRAJECTORIES = path.resolve(process.env.SKEIN_TRAJECTORIES ?? 'test/fixtures/trajectories');

export function trajectoryFiles(): string[] {
  const files = fs.existsSync(TRAJECTORIES) ? fs.readdirSync(TRAJECTORIES).filter((f) => f.endsWith('.jsonl')).sort() : [];
  if (files.length === 0) throw new Error(`no trajectories found in ${TRAJECTORIES} (set SKEIN_TRAJECTORIES to the folder)`);
  return files;
}
