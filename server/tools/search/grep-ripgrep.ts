// grep with ripgrep, when `rg` is on PATH: its JSON output parsed into the
// same structure as the Node engine's. Flags chosen so both read the same
// files: hidden files in, .git out, .gitignore inside the working folder only
// (also outside a git repository; no global, parent, .ignore or exclude
// files), results sorted by path, the same size limit.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { ToolContext } from '../tool.js';
import { GrepPatternError, MAX_GREP_FILE_BYTES, type GrepFile, type GrepOutcome, type GrepQuery } from './grep-engine.js';
import type { SearchRoot } from './walk.js';

const MAX_COLLECTED_LINES = 100_000;

/** The `rg` executable on this PATH, if any (absolute folders only: '.' or '' would find one in the folder searched). */
export function findRipgrep(searchPath = process.env.PATH ?? ''): string | undefined {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, process.platform === 'win32' ? 'rg.exe' : 'rg');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export function ripgrepArgs(query: GrepQuery, from: SearchRoot): string[] {
  return [
    '--json',
    '--no-config',
    '--hidden',
    '--no-require-git',
    '--no-ignore-parent',
    '--no-ignore-global',
    '--no-ignore-exclude',
    '--no-ignore-dot',
    '--sort',
    'path',
    '--max-filesize',
    String(MAX_GREP_FILE_BYTES),
    '--glob',
    '!.git',
    ...(query.ignoreCase ? ['--ignore-case'] : ['--case-sensitive']),
    ...(query.mode === 'lines' && query.context > 0 ? ['--context', String(query.context)] : []),
    ...(query.mode === 'files' ? ['--max-count', '1'] : []),
    ...(query.glob ? ['--glob', query.glob] : []),
    '--regexp',
    query.pattern,
    '--',
    from.rel ? `./${from.rel}` : './',
  ];
}

interface RgText {
  text?: string;
  bytes?: string;
}

function textOf(t: RgText | undefined): string {
  if (!t) return '';
  return t.text ?? Buffer.from(t.bytes ?? '', 'base64').toString('utf8');
}

export function grepWithRipgrep(rg: string, query: GrepQuery, from: SearchRoot, ctx: ToolContext): Promise<GrepOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(rg, ripgrepArgs(query, from), { cwd: from.root, stdio: ['ignore', 'pipe', 'pipe'] });
    const files: GrepFile[] = [];
    let current: GrepFile | undefined;
    let collected = 0;
    let stoppedEarly: string | undefined;
    let stderr = '';
    const stop = () => child.kill('SIGKILL');
    ctx.signal.addEventListener('abort', stop, { once: true });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString('utf8');
    });
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      if (stoppedEarly) return;
      let message: { type: string; data: { path?: RgText; lines?: RgText; line_number?: number; stats?: { matched_lines?: number } } };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        return;
      }
      const { type, data } = message;
      if (type === 'begin') current = { path: textOf(data.path).replace(/^\.\//, ''), count: 0, lines: [] };
      else if ((type === 'match' || type === 'context') && current && data.line_number !== undefined) {
        if (type === 'match') current.count++;
        if (query.mode !== 'lines') return;
        current.lines.push({ n: data.line_number, text: textOf(data.lines).replace(/\n$/, ''), match: type === 'match' });
        if (++collected >= MAX_COLLECTED_LINES) {
          stoppedEarly = 'the search stopped early: too many matching lines';
          files.push(current);
          current = undefined;
          stop();
        }
      } else if (type === 'end' && current) {
        if (current.count > 0) files.push(current);
        current = undefined;
      }
    });
    child.on('error', (err) => reject(err));
    // Both: the process has exited and every line of its output has been read.
    const exited = new Promise<number | null>((done) => child.on('close', done));
    const read = new Promise<void>((done) => lines.on('close', done));
    void Promise.all([exited, read]).then(([code]) => {
      ctx.signal.removeEventListener('abort', stop);
      if (ctx.signal.aborted) return reject(new GrepPatternError('cancelled'));
      // 0: matches, 1: none, 2: an error (a bad pattern; or an unreadable file, with results still valid).
      if (code === 2 && !files.length && stderr.trim()) return reject(new GrepPatternError(`ripgrep: ${stderr.trim()}`));
      resolve({ files, ...(stoppedEarly && { stoppedEarly }) });
    });
  });
}
