// How a skein tool call reads in an editor: its title, ACP kind, the files it
// touches (locations), and for write_file / edit_file a `diff` block the
// editor renders as a diff. The diff is built from the call itself: edit_file's
// `old` and `new`; write_file's new content, with the old text recovered by
// reversing the unified diff skein already computed (the result, or the
// approval preview) — none when that diff was cut or the file is new.
import path from 'node:path';
import { applyPatch, parsePatch, reversePatch } from 'diff';
import type { ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';

const KINDS: Record<string, ToolKind> = {
  bash: 'execute',
  read_file: 'read',
  write_file: 'edit',
  edit_file: 'edit',
  glob: 'search',
  grep: 'search',
  list: 'search',
  search_history: 'search',
  update_plan: 'think',
};

export function toolKind(name: string): ToolKind {
  return KINDS[name] ?? 'other';
}

function str(input: Record<string, unknown>, key: string): string | undefined {
  const value = input[key];
  return typeof value === 'string' ? value : undefined;
}

const MAX_TITLE = 200;

export function toolTitle(name: string, input: Record<string, unknown>): string {
  const file = str(input, 'path');
  let title: string;
  switch (name) {
    case 'bash':
      title = str(input, 'command') ?? 'bash';
      break;
    case 'read_file':
      title = `Read ${file ?? ''}`;
      break;
    case 'write_file':
      title = `Write ${file ?? ''}`;
      break;
    case 'edit_file':
      title = `Edit ${file ?? ''}`;
      break;
    case 'glob':
      title = `Find ${str(input, 'pattern') ?? ''}`;
      break;
    case 'grep':
      title = `Search ${str(input, 'pattern') ?? ''}${file ? ` in ${file}` : ''}`;
      break;
    case 'list':
      title = `List ${file ?? '.'}`;
      break;
    case 'update_plan':
      title = 'Update the plan';
      break;
    default:
      title = name.startsWith('mcp__') ? name.slice('mcp__'.length).replace('__', ': ') : name;
  }
  title = title.trim() || name;
  return title.length > MAX_TITLE ? `${title.slice(0, MAX_TITLE - 1)}…` : title;
}

/** The absolute path a file tool acts on (ACP paths are absolute). */
function absolute(workDir: string | undefined, file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  if (path.isAbsolute(file)) return file;
  return workDir ? path.join(workDir, file) : undefined;
}

export function toolLocations(name: string, input: Record<string, unknown>, workDir: string | undefined): ToolCallLocation[] {
  if (!['read_file', 'write_file', 'edit_file', 'list', 'grep'].includes(name)) return [];
  const file = absolute(workDir, str(input, 'path'));
  return file ? [{ path: file }] : [];
}

/**
 * The diff block of a write: `unified` is skein's own diff of the change (a
 * write_file result, or an approval preview), from which write_file's old text
 * is recovered.
 */
export function diffContent(name: string, input: Record<string, unknown>, workDir: string | undefined, unified?: string): ToolCallContent | undefined {
  const file = absolute(workDir, str(input, 'path'));
  if (!file) return undefined;
  if (name === 'edit_file') {
    const oldText = str(input, 'old');
    const newText = str(input, 'new');
    if (oldText === undefined || newText === undefined) return undefined;
    return { type: 'diff', path: file, oldText, newText };
  }
  if (name !== 'write_file') return undefined;
  const content = str(input, 'content');
  if (content === undefined) return undefined;
  return { type: 'diff', path: file, oldText: unified === undefined ? null : oldTextOf(unified, content), newText: content };
}

/** The text before a write, from the write's unified diff; null for a new file or a diff that does not apply (cut, or a note instead of a diff). */
export function oldTextOf(unified: string, after: string): string | null {
  const start = unified.indexOf('--- ');
  if (start < 0) return null;
  const text = unified.slice(start);
  if (text.startsWith('--- /dev/null')) return null;
  try {
    const [patch] = parsePatch(text);
    if (!patch || !patch.hunks.length) return null;
    const before = applyPatch(after, reversePatch(patch));
    return typeof before === 'string' ? before : null;
  } catch {
    return null;
  }
}

/** A tool's output as the editor shows it: fenced, so markdown in it stays text. */
export function outputContent(output: string): ToolCallContent {
  const fence = output.includes('```') ? '````' : '```';
  return { type: 'content', content: { type: 'text', text: `${fence}\n${output}\n${fence}` } };
}
