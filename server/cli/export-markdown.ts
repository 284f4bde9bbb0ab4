// A session as a readable Markdown transcript: user and agent messages, tool
// calls with their output trimmed, compactions with their summaries.
import { FORKED_HERE, type SkeinEvent } from '../../shared/protocol.js';
import { toolSummary } from './render.js';

const OUTPUT_LINES = 20;

function fence(text: string): string {
  // A fence longer than any backtick run inside, so tool output cannot close it.
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}\n${text}\n${ticks}`;
}

function trimmed(output: string): string {
  const lines = output.split('\n');
  if (lines.length <= OUTPUT_LINES) return output;
  const head = lines.slice(0, OUTPUT_LINES / 2);
  const tail = lines.slice(-OUTPUT_LINES / 2);
  return [...head, `… ${lines.length - OUTPUT_LINES} lines trimmed …`, ...tail].join('\n');
}

export function markdownTranscript(id: string, title: string, events: readonly SkeinEvent[]): string {
  const out: string[] = [`# ${title}`, '', `Session \`${id}\`, exported by skein.`, ''];
  for (const e of events) {
    switch (e.kind) {
      case 'user':
        out.push(`## User · ${e.ts}`, '', e.text, '');
        break;
      case 'agent':
        if (e.text.trim()) out.push(`## Agent (${e.model}) · ${e.ts}`, '', e.text, '');
        break;
      case 'tool_call':
        out.push(`**Tool call** \`${e.name}\`: \`${toolSummary(e.input).replace(/`/g, "'").split('\n')[0]}\``, '');
        break;
      case 'tool_result':
        out.push(`${e.isError ? '**Tool error**' : 'Output'} (${e.name}, ${e.durationMs} ms):`, '', fence(trimmed(e.output)), '');
        break;
      case 'compaction':
        if (e.phase === 'finished') {
          const tokens = e.tokensBefore !== undefined ? ` ${e.tokensBefore} → ${e.tokensAfter} tokens` : '';
          const how = e.strategies?.length ? e.strategies.join(' + ') : e.strategy && e.strategy !== 'none' ? e.strategy : 'nothing folded';
          out.push(`### Compaction (${e.trigger}, ${how})${tokens}`, '');
          if (e.summary) out.push(e.summary.split('\n').map((l) => `> ${l}`).join('\n'), '');
        } else if (e.phase === 'failed') out.push(`### Compaction failed (${e.trigger}): ${e.error ?? ''}`, '');
        break;
      case 'error':
        if (e.code !== 'retrying') out.push(`> **Error**${e.code ? ` (${e.code})` : ''}: ${e.message}`, '');
        break;
      // A cut answer reads as one, and a window that changed says so: else the transcript passes them off as whole.
      case 'answer_cut':
        if (!e.again) out.push(`> **Answer cut**: ${e.message}`, '');
        break;
      case 'limits':
        if (e.message) out.push(`> **Context window**: ${e.message}`, '');
        break;
      case 'state':
        if (e.to === 'Cancelled' && e.reason === FORKED_HERE) out.push('*Forked here: the turn this point cut ends here.*', '');
        break;
      case 'model':
        out.push(`*Model: ${e.from} → ${e.to}*`, '');
        break;
      default:
        break;
    }
  }
  return out.join('\n');
}
