// Numbers, durations and states in the words the UI shows.
import type { AgentState, CompactionTrigger } from '../shared/protocol.js';

export function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(2)}M`;
  if (n >= 10_000) return `${(n / 1000).toFixed(1)}k`;
  return n.toLocaleString('en-US');
}

/** Exact, with thousands separators: what hover cards and screen readers get. */
export function exact(n: number): string {
  return n.toLocaleString('en-US');
}

export function formatCost(usd: number): string {
  return usd === 0 ? '$0' : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function timeAgo(iso: string, now = Date.now()): string {
  const s = Math.round((now - Date.parse(iso)) / 1000);
  if (!Number.isFinite(s)) return '';
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(iso).toLocaleDateString();
}

/** The agent's state as a person would say it. */
export const STATE_WORDS: Record<AgentState, string> = {
  WaitingForUserInput: 'Ready',
  SendingToLLM: 'Thinking…',
  ProcessingLLMResponse: 'Reading the answer…',
  RunningTools: 'Running tools…',
  WaitingForApproval: 'Waiting for your approval',
  Compacting: 'Compacting the context…',
  EndOfTurn: 'Finishing the turn…',
  Cancelled: 'Cancelled',
  Error: 'Stopped by an error',
};

/** Why a compaction ran, in words. */
export const TRIGGER_WORDS: Record<CompactionTrigger, string> = {
  threshold: 'the context reached the auto-compact threshold',
  preflight: 'the next request would have crossed the threshold or left no room for the answer',
  overflow: 'the model refused the request as too long',
  manual: 'you asked for it',
  agent: 'the agent asked for it',
  cadence: 'the regular compaction interval came up',
  model_switch: 'the new model has a smaller window',
  strategy: "a strategy's own rule came up (old tool results worth clearing, say)",
};

export function triggerWords(trigger: string): string {
  return (TRIGGER_WORDS as Record<string, string>)[trigger] ?? trigger;
}

/** The first line of a bash result is its status ("exit code: 0", "killed: ..."). */
export function toolStatus(output: string): { line: string; code?: number } | undefined {
  const first = output.split('\n', 1)[0] ?? '';
  const m = /^exit code: (\d+)$/.exec(first);
  if (m) return { line: first, code: Number(m[1]) };
  if (/^(killed: |failed to start: )/.test(first)) return { line: first };
  return undefined;
}
