// Build step: the server reads a few files beside its modules
// (new URL('./system-prompt.md', import.meta.url)); copy them next to the
// compiled JavaScript in dist/server, same relative paths.
import fs from 'node:fs';
import path from 'node:path';

const from = 'server';
const to = path.join('dist', 'server');
let copied = 0;
for (const entry of fs.readdirSync(from, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.md')) continue;
  const source = path.join(entry.parentPath ?? entry.path, entry.name);
  const target = path.join(to, path.relative(from, source));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(source, target);
  copied++;
}
if (copied === 0) throw new Error('copy-assets: no .md assets found under server/');
