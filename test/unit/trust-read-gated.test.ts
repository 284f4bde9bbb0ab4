// How a project file the user is asked about is read (readGated in
// server/trust/project-files.ts): each refusal with its exact words, the size
// limit to the byte, a missing file or folder as "no file", and the file
// swapped between the check and the read (a link, a FIFO, a file grown past
// the limit, a file removed): the check is made to pass on the first entry,
// so the read itself must refuse what the check would have.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Door } from '../../server/host/door.js';
import { readGated } from '../../server/trust/project-files.js';

const LIMIT = 256 * 1024;
const made: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
function temp(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'skein-gated-')));
  made.push(dir);
  return dir;
}
/** The check before the read sees a small regular file, whatever is there now. */
const checkSeesAFile = () => vi.spyOn(Door.prototype, 'entry').mockReturnValue({ kind: 'file', size: 2, mode: 0o644, links: 1 });

describe('readGated', () => {
  it('a folder or a FIFO in its place: not a regular file, in those words', () => {
    const folder = temp();
    const at = path.join(folder, '.mcp.json');
    fs.mkdirSync(at);
    expect(readGated(at)).toEqual({ content: '', error: `${at} is not a regular file` });
    const fifo = path.join(temp(), '.mcp.json');
    execFileSync('mkfifo', [fifo]);
    expect(readGated(fifo)).toEqual({ content: '', error: `${fifo} is not a regular file` });
  });

  it('a file of exactly the limit is read whole; one byte more is refused unread', () => {
    const at = path.join(temp(), '.mcp.json');
    fs.writeFileSync(at, 'x'.repeat(LIMIT));
    expect(readGated(at)?.content.length).toBe(LIMIT);
    fs.writeFileSync(at, 'x'.repeat(LIMIT + 1));
    expect(readGated(at)).toEqual({ content: '', error: `${at} is ${LIMIT + 1} bytes (more than ${LIMIT}): not read` });
  });

  it('no file, no folder, or a file where the folder should be: there is no file to ask about', () => {
    const folder = temp();
    expect(readGated(path.join(folder, '.mcp.json'))).toBeUndefined();
    expect(readGated(path.join(folder, 'missing', '.mcp.json'))).toBeUndefined();
    fs.writeFileSync(path.join(folder, 'plain'), 'x');
    expect(readGated(path.join(folder, 'plain', '.mcp.json'))).toBeUndefined();
  });

  it('a symlink swapped in after the check is not followed: the link refusal', () => {
    const folder = temp();
    const target = path.join(temp(), 'real.json');
    fs.writeFileSync(target, '{"mcpServers": {}}');
    const at = path.join(folder, '.mcp.json');
    fs.symlinkSync(target, at);
    checkSeesAFile();
    expect(readGated(at)).toEqual({ content: '', error: `${at} is a symbolic link: skein does not follow it (put the file itself there to be asked about it)` });
  });

  it('a FIFO swapped in after the check is refused by the read, naming the file', () => {
    const at = path.join(temp(), '.mcp.json');
    execFileSync('mkfifo', [at]);
    checkSeesAFile();
    expect(readGated(at)).toEqual({ content: '', error: `${at}: .mcp.json is not a regular file` });
  });

  it('a file grown past the limit after the check is refused, nothing of it read', () => {
    const at = path.join(temp(), '.mcp.json');
    fs.writeFileSync(at, 'x'.repeat(LIMIT + 10));
    checkSeesAFile();
    expect(readGated(at)).toEqual({ content: '', error: `${at} is more than ${LIMIT} bytes: not read` });
  });

  it('a file removed after the check: no file to ask about', () => {
    const at = path.join(temp(), '.mcp.json');
    checkSeesAFile();
    expect(readGated(at)).toBeUndefined();
  });
});
