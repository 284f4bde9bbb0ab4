// Small files: no source file of server/, shared/, webui/ or scripts/ is over
// MAX_LINES lines (one concern per file; a file that grows past it is split
// by concern, as server/sessions/ was). No file is exempt.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const MAX_LINES = 400;
const FOLDERS = ['server', 'shared', 'webui', 'scripts'];

/** Lines as `wc -l` counts them (a last line without its newline counts too). */
function lineCount(text: string): number {
  if (!text) return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** Every .ts and .mjs file under the folders of `root`, with its line count. */
function sourceFiles(root: string, folders: string[]): { file: string; lines: number }[] {
  const found: { file: string; lines: number }[] = [];
  for (const folder of folders) {
    const dir = path.join(root, folder);
    if (!fs.existsSync(dir)) continue;
    for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.(ts|mjs)$/.test(entry.name)) continue;
      const full = path.join(entry.parentPath, entry.name);
      found.push({ file: path.relative(root, full).split(path.sep).join('/'), lines: lineCount(fs.readFileSync(full, 'utf8')) });
    }
  }
  return found.sort((a, b) => a.file.localeCompare(b.file));
}

/** The files over the limit, as "path: N lines". */
function oversized(root: string, folders: string[]): string[] {
  return sourceFiles(root, folders)
    .filter((f) => f.lines > MAX_LINES)
    .map((f) => `${f.file}: ${f.lines} lines (the limit is ${MAX_LINES}: split it by concern)`);
}

describe('file sizes', () => {
  it('reads the whole project', () => {
    const files = sourceFiles(process.cwd(), FOLDERS).map((f) => f.file);
    expect(files.length).toBeGreaterThan(200);
    for (const folder of FOLDERS) expect(files.some((f) => f.startsWith(`${folder}/`))).toBe(true);
    expect(files).toContain('server/sessions/sessions.ts');
    expect(files).toContain('webui/skein-app.ts');
  });

  it(`has no source file over ${MAX_LINES} lines`, () => {
    expect(oversized(process.cwd(), FOLDERS)).toEqual([]);
  });

  it('names a file one line over the limit, nested or not, and passes one at the limit', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skein-file-size-'));
    const line = 'export const x = 1;\n';
    fs.mkdirSync(path.join(root, 'server/deep/er'), { recursive: true });
    fs.mkdirSync(path.join(root, 'webui'));
    fs.writeFileSync(path.join(root, 'server/deep/er/big.ts'), line.repeat(MAX_LINES + 1));
    fs.writeFileSync(path.join(root, 'server/at-limit.ts'), line.repeat(MAX_LINES));
    // No newline at the end: the last line counts all the same.
    fs.writeFileSync(path.join(root, 'webui/no-newline.ts'), line.repeat(MAX_LINES) + 'export const y = 2;');
    fs.writeFileSync(path.join(root, 'server/notes.md'), line.repeat(MAX_LINES + 50));
    try {
      expect(oversized(root, FOLDERS)).toEqual([
        `server/deep/er/big.ts: ${MAX_LINES + 1} lines (the limit is ${MAX_LINES}: split it by concern)`,
        `webui/no-newline.ts: ${MAX_LINES + 1} lines (the limit is ${MAX_LINES}: split it by concern)`,
      ]);
    } finally {
      fs.rmSync(root, { recursive: true });
    }
  });
});
