// The layout of the code with its size: for each folder of server/, shared/
// and webui/, how many TypeScript files it holds (its own, not its
// subfolders') and their lines, and its largest file. `npm run layout`.
import fs from 'node:fs';
import path from 'node:path';

const ROOTS = process.argv.slice(2).length ? process.argv.slice(2) : ['server', 'shared', 'webui'];

/** Lines as `wc -l` counts them (a last line without its newline counts too). */
function lineCount(text) {
  if (!text) return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

const folders = new Map();
for (const root of ROOTS) {
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    const dir = path.relative('.', entry.parentPath).split(path.sep).join('/');
    if (!folders.has(dir)) folders.set(dir, { files: 0, lines: 0, largest: undefined });
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const lines = lineCount(fs.readFileSync(path.join(entry.parentPath, entry.name), 'utf8'));
    const f = folders.get(dir);
    f.files++;
    f.lines += lines;
    if (!f.largest || lines > f.largest.lines) f.largest = { name: entry.name, lines };
  }
  if (!folders.has(root)) folders.set(root, { files: 0, lines: 0, largest: undefined });
}

const rows = [...folders].filter(([, f]) => f.files).sort(([a], [b]) => a.localeCompare(b));
const width = Math.max(...rows.map(([dir]) => dir.length)) + 2;
console.log(`${'folder'.padEnd(width)}${'files'.padStart(6)}${'lines'.padStart(8)}  largest`);
let files = 0;
let lines = 0;
for (const [dir, f] of rows) {
  files += f.files;
  lines += f.lines;
  console.log(`${(dir + '/').padEnd(width)}${String(f.files).padStart(6)}${String(f.lines).padStart(8)}  ${f.largest.name} (${f.largest.lines})`);
}
console.log(`${'total'.padEnd(width)}${String(files).padStart(6)}${String(lines).padStart(8)}`);
