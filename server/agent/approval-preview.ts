// What the user sees before approving a tool call: the bash command, the diff
// a write_file or edit_file would make (computed from the file as it is now,
// changing nothing), or the input of any other tool.
import { constants as fsConstants } from 'node:fs';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import type { ApprovalPreview } from '../../shared/protocol.js';
import { MAX_EDIT_BYTES } from '../tools/files.js';
import { Door } from '../host/door.js';
import { resolveInside } from '../tools/paths.js';

/** A preview longer than this is cut (the decision is about the change, not a page of megabytes). */
export const MAX_PREVIEW_CHARS = 20_000;

export async function previewOf(name: string, input: Record<string, unknown>, workDir: string): Promise<ApprovalPreview> {
  if (name === 'bash' && typeof input.command === 'string') return { kind: 'command', text: cut(input.command) };
  try {
    const diff = await wouldBeDiff(name, input, workDir);
    if (diff !== undefined) return { kind: 'diff', text: cut(diff) };
  } catch {
    // Unreadable, outside the folder, not a regular file: the tool will say so; show what it was asked.
  }
  return { kind: 'input', text: cut(JSON.stringify(input, null, 2)) };
}

/** The unified diff of write_file / edit_file, or undefined for other tools or an edit that would fail. */
async function wouldBeDiff(name: string, input: Record<string, unknown>, workDir: string): Promise<string | undefined> {
  if ((name !== 'write_file' && name !== 'edit_file') || typeof input.path !== 'string') return undefined;
  const file = resolveInside(workDir, input.path);
  const before = await currentText(workDir, file);
  let after: string;
  if (name === 'write_file') {
    if (typeof input.content !== 'string') return undefined;
    after = input.content;
  } else {
    const { old: oldText, new: newText } = input;
    if (before === undefined || typeof oldText !== 'string' || typeof newText !== 'string' || oldText === '') return undefined;
    const count = before.split(oldText).length - 1;
    // The same rule edit_file applies: otherwise it changes nothing, and says why.
    if (count === 0 || (count > 1 && input.replace_all !== true)) return undefined;
    after = before.split(oldText).join(newText);
  }
  const label = input.path;
  const patch = createTwoFilesPatch(before === undefined ? '/dev/null' : `a/${label}`, `b/${label}`, before ?? '', after, undefined, undefined, { context: 3 });
  // Without the `====` rule line the package puts first (git's format has none).
  return patch.replace(/^=+\n/, '');
}

/** The file's text, or undefined when it does not exist yet. */
async function currentText(workDir: string, file: string): Promise<string | undefined> {
  // Through the door: a link swapped in since resolving is refused, not shown (a key in the approval's diff would be logged).
  const door = new Door(workDir);
  let handle;
  try {
    handle = await door.open(path.relative(door.root, file), fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > MAX_EDIT_BYTES) throw new Error('not previewable');
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

function cut(text: string): string {
  return text.length <= MAX_PREVIEW_CHARS ? text : `${text.slice(0, MAX_PREVIEW_CHARS)}\n… (${text.length - MAX_PREVIEW_CHARS} more characters)`;
}
