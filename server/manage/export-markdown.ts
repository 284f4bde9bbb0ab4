// A session as a readable Markdown transcript: user and agent messages, tool
// calls with their output trimmed, compactions with their summaries, errors.
// State, usage and other bookkeeping events are left out (the JSONL export
// has everything).
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { FORKED_HERE, type SkeinEvent, type ToolResultEvent } from '../../shared/protocol.js';
import type { LogHeader } from '../store/event-log.js';
import { imageLabel } from '../images/image-files.js';
import { SLICE_MS, yieldToLoop } from '../store/log-reader.js';

/** Lines of a tool's output kept in the transcript (head), and characters at most. */
export const TOOL_OUTPUT_LINES = 20;
export const TOOL_OUTPUT_CHARS = 2000;
/** Characters per piece of the streamed transcript (about 256 KB). */
const PIECE_CHARS = 256 * 1024;

export function markdownTranscript(header: LogHeader, title: string, events: readonly SkeinEvent[]): string {
  const out = headLines(header, title);
  const results = new Map<string, ToolResultEvent>();
  for (const e of events) if (e.kind === 'tool_result') results.set(e.callId, e);
  for (const e of events) eventLines(e, results, out);
  return tidy(out.join('\n'), true);
}

/**
 * The same transcript a piece at a time, built in slices of about SLICE_MS
 * with the event loop free between them (a 150 MB log built whole held the
 * loop for seconds). Joined, the pieces are exactly markdownTranscript's text.
 */
export async function* markdownPieces(header: LogHeader, title: string, events: readonly SkeinEvent[], sliceMs = SLICE_MS): AsyncGenerator<string> {
  const results = new Map<string, ToolResultEvent>();
  let slice = performance.now();
  const due = () => performance.now() - slice > sliceMs;
  const pause = async () => {
    await yieldToLoop();
    slice = performance.now();
  };
  for (const e of events) {
    if (e.kind === 'tool_result') results.set(e.callId, e);
    if (due()) await pause();
  }
  let out = headLines(header, title);
  /** Whitespace at the end of what was built so far: held back, a run of newlines may go on in the next piece (or be trimmed at the end). */
  let held = '';
  const flush = (last: boolean): string => {
    const text = held + out.join('\n') + (last ? '' : '\n');
    out = [];
    if (last) return tidy(text, true);
    let cut = text.length;
    while (cut > 0 && /\s/.test(text[cut - 1]!)) cut--;
    held = text.slice(cut);
    return tidy(text.slice(0, cut), false);
  };
  let pending = 0;
  for (const e of events) {
    const before = out.length;
    eventLines(e, results, out);
    for (let i = before; i < out.length; i++) pending += out[i]!.length;
    // Cut by size too: building is cheap (strings are shared), joining and tidying is not (100 MB at once held the loop 1.5 s).
    if (out.length && (pending >= PIECE_CHARS || due())) {
      const piece = flush(false);
      pending = 0;
      if (piece) yield piece;
    }
    if (due()) await pause();
  }
  yield flush(true);
}

/** Runs of blank lines made one; the document ends with one newline. */
function tidy(text: string, end: boolean): string {
  const collapsed = text.replace(/\n{3,}/g, '\n\n');
  return end ? collapsed.trimEnd() + '\n' : collapsed;
}

function headLines(header: LogHeader, title: string): string[] {
  const out: string[] = [`# ${oneLine(title)}`, ''];
  out.push(`- Session: \`${header.session}\``, `- Started: ${header.createdAt}`, `- Model: ${header.model}`);
  const ws = header.workspace;
  if (ws) {
    out.push(`- Folder: \`${ws.workDir}\``);
    if (ws.branch) out.push(`- Branch: \`${ws.branch}\`${ws.baseCommit ? ` (from ${ws.baseCommit.slice(0, 12)})` : ''}`);
  }
  if (header.forkOf) out.push(`- Forked from \`${header.forkOf.session}\` at event ${header.forkOf.seq}`);
  out.push('');
  return out;
}

/** What one event adds to the transcript (most add nothing). */
function eventLines(e: SkeinEvent, results: ReadonlyMap<string, ToolResultEvent>, out: string[]): void {
  switch (e.kind) {
    case 'user':
      out.push(`## User`, '', e.text.trim(), '');
      // Images are named (type, size, file): the transcript stays text.
      for (const image of e.images ?? []) out.push(`*[${imageLabel(image)}: ${path.basename(image.file)}]*`, '');
      break;
    case 'agent':
      if (e.text.trim()) out.push(`## Agent (${e.model})`, '', e.text.trim(), '');
      break;
    case 'tool_call': {
      const result = results.get(e.callId);
      out.push(`**Tool \`${e.name}\`** ${inlineCode(JSON.stringify(e.input))}${result?.isError ? ' (failed)' : ''}`, '');
      if (result) out.push(fenced(trimOutput(result.output)), '');
      else out.push('_(no result)_', '');
      break;
    }
    case 'compaction':
      if (e.phase === 'finished') {
        const tokens = e.tokensBefore !== undefined && e.tokensAfter !== undefined ? `, ${e.tokensBefore} → ${e.tokensAfter} tokens` : '';
        const span = e.coversSeq ? `, events ${e.coversSeq[0]}-${e.coversSeq[1]}` : '';
        const how = e.strategy && e.strategy !== 'none' ? e.strategy : 'nothing folded';
        out.push(`### Compaction (${e.trigger}, ${how}${tokens}${span})`, '');
        if (e.summary) out.push(e.summary.trim().split('\n').map((l) => `> ${l}`).join('\n'), '');
      } else if (e.phase === 'failed') {
        out.push(`### Compaction failed (${e.trigger}): ${oneLine(e.error ?? 'unknown error')}`, '');
      }
      break;
    case 'error':
      if (e.code !== 'retrying') out.push(`> **Error${e.code ? ` (${e.code})` : ''}:** ${oneLine(e.message)}`, '');
      break;
    case 'answer_cut':
      if (!e.again) out.push(`> **Answer cut:** ${oneLine(e.message)}`, '');
      break;
    case 'limits':
      if (e.message) out.push(`> **Context window:** ${oneLine(e.message)}`, '');
      break;
    case 'state':
      if (e.to === 'Cancelled' && e.reason === FORKED_HERE) out.push('_Forked here: the turn this point cut ends here._', '');
      break;
    case 'model':
      if (e.from !== e.to) out.push(`_Model switched from ${e.from} to ${e.to}._`, '');
      break;
    case 'mode':
      out.push(`_Approval mode switched from ${e.from} to ${e.to}._`, '');
      break;
    case 'worktree':
      out.push(`_${oneLine(e.message)}_`, '');
      break;
    default:
      break;
  }
}

/** The head of a tool's output, and how much was left out. */
export function trimOutput(output: string): string {
  const lines = output.split('\n');
  let kept = lines.slice(0, TOOL_OUTPUT_LINES).join('\n');
  if (kept.length > TOOL_OUTPUT_CHARS) kept = kept.slice(0, TOOL_OUTPUT_CHARS);
  const cut = output.length - kept.length;
  return cut > 0 ? `${kept}\n… (${lines.length} lines, ${cut} more characters not shown)` : kept;
}

/** A code block whose fence is longer than any backtick run inside. */
function fenced(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}\n${text}\n${fence}`;
}

function inlineCode(text: string): string {
  const short = text.length > 300 ? `${text.slice(0, 300)}…` : text;
  const longest = Math.max(0, ...[...short.matchAll(/`+/g)].map((m) => m[0].length));
  const tick = '`'.repeat(longest + 1);
  return `${tick} ${short} ${tick}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
