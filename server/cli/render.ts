// The timeline as terminal lines: the agent's text, one line per tool call,
// compactions, errors, and the context gauge when a turn ends. On a terminal
// (`styled`) the agent's Markdown is shown with styles (terminal-markdown.ts);
// in a pipe or a file it stays the plain text the model wrote.
import type { Gauge, SkeinEvent } from '../../shared/protocol.js';
import { styleMarkdown } from './terminal-markdown.js';
import { forTerminal } from './terminal-text.js';

const WIDTH = 160;

function oneLine(text: string, width = WIDTH): string {
  const flat = text.replace(/\s*\n\s*/g, ' ⏎ ').trim();
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}

const n = (x: number) => x.toLocaleString('en-US');

/** What a tool call is about, in a few words: its command or path when it has one. */
export function toolSummary(input: Record<string, unknown>): string {
  for (const key of ['command', 'path', 'pattern', 'query', 'file']) {
    if (typeof input[key] === 'string') return input[key];
  }
  return JSON.stringify(input);
}

export function gaugeLine(gauge: Gauge): string {
  const pct = Math.round(gauge.ratio * 100);
  const est = gauge.estimated ? '~' : '';
  return `── context ${est}${n(gauge.contextTokens)} / ${n(gauge.contextWindow)} tokens (${pct}%, compacts at ${Math.round(gauge.thresholdRatio * 100)}%) · $${gauge.totalCostUsd.toFixed(4)} · ${gauge.model}`;
}

export interface RenderOptions {
  /** stdout is a terminal that takes styles: the agent's Markdown is rendered. */
  styled?: boolean;
}

export class TextRenderer {
  constructor(
    /** The session's gauge when the run began, until a usage event replaces it. */
    private gauge?: Gauge,
    private readonly options: RenderOptions = {},
  ) {}

  /**
   * The lines for one event (often none), safe for a terminal: answers, tool
   * output, errors and titles come from a model, a tool or a repository, so
   * each line goes through forTerminal (an answer's newlines are kept), and
   * only then gets the styles of its Markdown.
   */
  lines(event: SkeinEvent): string[] {
    const safe = this.render(event).map((line) => forTerminal(line));
    return this.options.styled && event.kind === 'agent' ? safe.map(styleMarkdown) : safe;
  }

  private render(event: SkeinEvent): string[] {
    switch (event.kind) {
      case 'user':
        return [`> ${oneLine(event.text)}`];
      case 'agent':
        return event.text.trim() ? [event.text.trimEnd()] : [];
      case 'tool_call':
        return [`• ${event.name} ${oneLine(toolSummary(event.input), WIDTH - event.name.length - 3)}`];
      case 'tool_result':
        return event.isError ? [`  ✗ ${event.name}: ${oneLine(event.output, WIDTH - event.name.length - 6)}`] : [];
      case 'approval_request':
        return [`? ${event.name} ${oneLine(toolSummary(event.input), WIDTH - event.name.length - 24)} — waits for approval`];
      case 'approval_decision':
        return [`  ${event.decision === 'deny' ? '✗ denied' : event.decision === 'approve_session' ? '✓ approved for the session' : '✓ approved'} (${event.by})${event.reason ? `: ${oneLine(event.reason, 200)}` : ''}`];
      case 'compaction':
        return this.compaction(event);
      case 'error':
        return [`! ${oneLine(event.message, 400)}${event.code ? ` (${event.code})` : ''}`];
      case 'model':
        return [`· model: ${event.from} → ${event.to}`];
      case 'mode':
        return [`· approval mode: ${event.from} → ${event.to}`];
      case 'worktree':
        return [`· ${oneLine(event.message, 400)}`];
      case 'subagent':
        return [`↳ ${oneLine(event.message, 400)}`];
      case 'limits':
        return event.message ? [`· ${oneLine(event.message, 400)}`] : [];
      case 'toolset':
        return [`· ${oneLine(event.message, 400)}`];
      case 'answer_cut':
        return event.again ? [] : [`✂ ${oneLine(event.message, 400)}`];
      case 'usage':
        this.gauge = event.gauge;
        return [];
      case 'state':
        if (event.to === 'Cancelled') return ['── turn cancelled', ...this.gaugeLines()];
        if (event.to === 'Error') return ['── turn failed', ...this.gaugeLines()];
        if (event.to === 'EndOfTurn') return this.gaugeLines();
        return [];
      default:
        return [];
    }
  }

  private gaugeLines(): string[] {
    return this.gauge ? [gaugeLine(this.gauge)] : [];
  }

  private compaction(event: Extract<SkeinEvent, { kind: 'compaction' }>): string[] {
    switch (event.phase) {
      case 'started':
        return [`⟳ compacting (${event.trigger})…`];
      case 'finished': {
        const tokens = event.tokensBefore !== undefined && event.tokensAfter !== undefined ? `: ${n(event.tokensBefore)} → ${n(event.tokensAfter)} tokens` : '';
        const strategies = event.strategies?.join(' + ') ?? event.strategy ?? '';
        const took = event.durationMs !== undefined ? ` in ${(event.durationMs / 1000).toFixed(1)} s` : '';
        // Nothing folded is said as such (its summary tells why), not as a compaction that saved nothing.
        if (!strategies || strategies === 'none') return [`⟳ compaction (${event.trigger}): ${event.summary ?? 'nothing to fold'}`];
        return [`⟳ compacted (${event.trigger}, ${strategies})${tokens}${took}`];
      }
      case 'failed':
        return [`⟳ compaction failed (${event.trigger}): ${oneLine(event.error ?? 'unknown error', 300)}${event.fallback ? `; ${event.fallback}` : ''}`];
      default:
        return [];
    }
  }
}
