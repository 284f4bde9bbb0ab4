// The decisions of checkpoints.ts that need no disk and no git: which tools
// take a checkpoint, how the journal's lines are read back (a line cut by a
// crash), which checkpoint a rewind goes back to, what git's name-status
// says a rewind does to each file, and the note for calls a plain folder
// cannot follow.
import type { RewindPreview } from '../../shared/protocol.js';
import { isFileTool, type PlainEntry } from './plain-checkpoints.js';

export type CheckpointEntry = { seq: number; commit: string } | PlainEntry;

/** The tools that may write in the folder: each call takes a checkpoint first. */
export function writesFiles(tool: string): boolean {
  return tool === 'write_file' || tool === 'edit_file' || tool === 'bash' || tool.startsWith('mcp__');
}

function parseEntry(line: string): CheckpointEntry | undefined {
  try {
    return JSON.parse(line) as CheckpointEntry;
  } catch {
    return undefined;
  }
}

/** The entries of checkpoints.jsonl, in order. */
export function parseJournal(text: string): CheckpointEntry[] {
  const entries: CheckpointEntry[] = [];
  for (const line of text.split('\n')) {
    // A line cut by a crash loses that checkpoint (it was never finished), not the one appended after it.
    const entry = line ? (parseEntry(line) ?? parseEntry(line.slice(Math.max(0, line.lastIndexOf('{"seq":'))))) : undefined;
    if (entry) entries.push(entry);
  }
  return entries;
}

/** The files of touched.jsonl's lines, each once (a line cut by a crash is skipped). */
export function parseTouched(text: string): string[] {
  const files = new Set<string>();
  for (const line of text.split('\n')) {
    try {
      if (line) for (const f of (JSON.parse(line) as { files: string[] }).files) files.add(f);
    } catch {
      /* a line cut by a crash */
    }
  }
  return [...files];
}

/** The checkpoints taken after `seq`, oldest first: the first holds the folder as it was at `seq`. */
export function entriesAfter<E extends { seq: number }>(entries: readonly E[], seq: number): E[] {
  return entries.filter((e) => e.seq > seq).sort((a, b) => a.seq - b.seq);
}

/** `git diff --name-status` from the folder now to the checkpoint: what a rewind does to each file. */
export function parseNameStatus(status: string): RewindPreview['files'] {
  return status
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [code, file] = line.split('\t') as [string, string];
      return { path: file, change: code === 'D' ? ('delete' as const) : code === 'A' ? ('recreate' as const) : ('restore' as const) };
    });
}

/** Outside git, what bash and MCP tools changed after the rewind point is not rewound: the note that says so, if any. */
export function untrackedNote(later: readonly CheckpointEntry[]): string | undefined {
  const untracked = [...new Set(later.flatMap((e) => ('tool' in e && !isFileTool(e.tool) ? [e.tool] : [])))];
  if (!untracked.length) return undefined;
  return `Not a git folder: what ${untracked.join(', ')} changed after this point cannot be rewound, only the files write_file and edit_file touched.`;
}
