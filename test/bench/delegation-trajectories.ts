// Where delegation would have kept the parent's window small, read off the
// shootout's recorded trajectories (test/fixtures/trajectories): a run of
// consecutive read/search calls (cat, head, tail, sed -n, grep, rg, find, ls,
// nl, wc, tree, git log/show/grep) whose outputs are never quoted later by the
// agent (no line of 24+ characters of them appears in a later assistant
// message) could have been one `task` call to an explore child: its outputs
// would have stayed in the child, the parent getting an answer of
// ANSWER_TOKENS instead. The window is then replayed at WINDOW tokens with a
// compaction each time the context passes TRIGGER of it (down to AFTER of it),
// as run and with those runs delegated.
import fs from 'node:fs';
import path from 'node:path';
import { tokensOf } from '../../server/llm/tokens.js';
import { TRAJECTORIES, trajectoryFiles } from '../helpers/trajectories.js';

const WINDOW = 32_000;
const TRIGGER = 0.85;
const AFTER = 0.4;
/** What a child's answer for one run would weigh in the parent (the call and a short report). */
const ANSWER_TOKENS = 200;
const READ_ONLY = /^\s*(cat|head|tail|sed\s+-n|grep|rg|find|ls|nl|wc|tree|git\s+(log|show|grep|blame))\b/;

interface Message {
  role: string;
  content: string;
  tool_calls?: { id: string; name: string; arguments: string }[];
  tool_call_id?: string;
}

export interface TrajectoryFigures {
  files: number;
  window: number;
  trigger: number;
  totalTokens: number;
  delegableTokens: number;
  runs: number;
  compactions: number;
  compactionsDelegated: number;
  filesBelowTrigger: number;
  perFile: { file: string; tokens: number; delegable: number; compactions: number; compactionsDelegated: number }[];
}

function commandOf(m: Message): string | undefined {
  const call = m.tool_calls?.[0];
  if (!call) return undefined;
  try {
    return (JSON.parse(call.arguments) as { command?: string }).command;
  } catch {
    return undefined;
  }
}

/** Whether some line of `output` is quoted in a later assistant message. */
function quotedLater(output: string, later: string): boolean {
  return output.split('\n').some((line) => line.trim().length >= 24 && later.includes(line.trim()));
}

function compactions(sizes: readonly number[]): number {
  let context = 0;
  let count = 0;
  for (const size of sizes) {
    context += size;
    if (context > WINDOW * TRIGGER) {
      count++;
      context = WINDOW * AFTER;
    }
  }
  return count;
}

/** `folder`: the trajectories (default: the shootout's). */
export function analyseTrajectories(folder = TRAJECTORIES): TrajectoryFigures {
  const out: TrajectoryFigures = { files: 0, window: WINDOW, trigger: TRIGGER, totalTokens: 0, delegableTokens: 0, runs: 0, compactions: 0, compactionsDelegated: 0, filesBelowTrigger: 0, perFile: [] };
  const files = folder === TRAJECTORIES ? trajectoryFiles() : fs.readdirSync(folder).filter((f) => f.endsWith('.jsonl')).sort();
  for (const file of files) {
    const messages = fs
      .readFileSync(path.join(folder, file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Message);
    const sizes = messages.map((m) => tokensOf(m.content) + (m.tool_calls ? tokensOf(JSON.stringify(m.tool_calls)) : 0));
    // Which tool results are a read-only call's output, never quoted afterwards.
    const delegable = messages.map((m, i) => {
      if (m.role !== 'tool') return false;
      const call = messages[i - 1];
      const command = call ? commandOf(call) : undefined;
      if (!command || !READ_ONLY.test(command)) return false;
      const later = messages.slice(i + 1).filter((x) => x.role === 'assistant').map((x) => x.content).join('\n');
      return !quotedLater(m.content, later);
    });
    // A run: consecutive delegable results (the calls between them are the parent's too, and go with them).
    const delegated: number[] = [];
    let inRun = false;
    let runs = 0;
    let saved = 0;
    for (let i = 0; i < messages.length; i++) {
      const isCallOfDelegable = messages[i]!.role === 'assistant' && delegable[i + 1] === true;
      if (delegable[i] || isCallOfDelegable) {
        if (!inRun) {
          runs++;
          delegated.push(ANSWER_TOKENS);
          saved -= ANSWER_TOKENS;
          inRun = true;
        }
        saved += sizes[i]!;
        continue;
      }
      if (messages[i]!.role === 'assistant') inRun = false;
      delegated.push(sizes[i]!);
    }
    const total = sizes.reduce((a, b) => a + b, 0);
    const c = compactions(sizes);
    const cd = compactions(delegated);
    out.files++;
    out.totalTokens += total;
    out.delegableTokens += Math.max(0, saved);
    out.runs += runs;
    out.compactions += c;
    out.compactionsDelegated += cd;
    if (cd === 0) out.filesBelowTrigger++;
    out.perFile.push({ file, tokens: total, delegable: Math.max(0, saved), compactions: c, compactionsDelegated: cd });
  }
  return out;
}
