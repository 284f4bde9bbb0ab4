import { replayMismatch } from '/work/wt-dial/test/bench/mismatch.js';
import { trajectoryFiles } from '/work/wt-dial/test/helpers/trajectories.js';
const [flavour, real, told, ratio, filter] = process.argv.slice(2);
const files = trajectoryFiles().filter((f) => !filter || f.includes(filter));
for (const file of files) {
  const r = await replayMismatch(file, Number(real), Number(told), flavour as any, ratio && ratio !== '-' ? Number(ratio) : undefined);
  const { file: _f, ...rest } = r;
  console.log('RUN', file.slice(0, 40), JSON.stringify(rest));
}
process.exit(0);
