// Translates a skein session's events into ACP `session/update`s: text and
// thinking as message chunks, each tool call as `tool_call` then
// `tool_call_update`s, the plan, the context gauge (`usage_update`, with
// skein's whole gauge in `_meta`), and compactions (`compaction_update` for a
// client that said it shows them, else a line of agent text; the event rides
// in `_meta` either way). The same translation replays the history for
// session/load, so a loaded session reads as it ran.
import type { ContentBlock, SessionUpdate, PlanEntry } from '@agentclientprotocol/sdk';
import type { ApprovalMode, CompactionEvent, DeltaFrame, Gauge, ImageRef, SkeinEvent } from '../../shared/protocol.js';
import { parsePlan, PLAN_TOOL, type Plan } from '../../shared/plan.js';
import { CallStatus } from './call-status.js';
import { diffContent, outputContent, toolKind, toolLocations, toolTitle } from './tool-display.js';
import { imageBase64, imageLabel } from '../images/image-files.js';

export interface TranslateOptions {
  /** The session's folder: ACP wants absolute paths. */
  workDir: string | undefined;
  /** The client advertised `session.compaction`. */
  compactionUpdates: boolean;
  /** The session's approval mode now (which calls will wait for the user); `never` when not given. */
  mode?: () => ApprovalMode;
}

const n = (value: number) => value.toLocaleString('en-US');

export function planEntries(plan: Plan): PlanEntry[] {
  return plan.steps.map((s) => ({ content: s.step, priority: 'medium', status: s.status === 'done' ? 'completed' : s.status }));
}

export function usageUpdate(gauge: Gauge): SessionUpdate {
  return {
    sessionUpdate: 'usage_update',
    used: gauge.contextTokens,
    size: gauge.contextWindow,
    cost: { amount: gauge.totalCostUsd, currency: 'USD' },
    _meta: { skein: { gauge } },
  };
}

export class UpdateTranslator {
  /** The text streamed so far for the model call that is running: `${afterSeq}/${attempt}` and its text. */
  private streaming: { key: string; text: string; thinking: string } | undefined;
  /** Tool calls by id (their name and input, for the result's diff). */
  private readonly calls = new Map<string, { name: string; input: Record<string, unknown> }>();
  /** Which calls are pending, running, or denied. */
  private readonly status: CallStatus;

  constructor(private readonly options: TranslateOptions) {
    this.status = new CallStatus(options.mode ?? (() => 'never'), options.workDir);
  }

  /** A streaming delta: sent as it comes, and not again when the whole text arrives. */
  delta(frame: DeltaFrame): SessionUpdate[] {
    const key = `${frame.afterSeq}/${frame.attempt}`;
    if (this.streaming?.key !== key) {
      // A retry starts its text again: what the editor shows of the first attempt stays, marked.
      const restarted = this.streaming !== undefined && this.streaming.key.startsWith(`${frame.afterSeq}/`) && (this.streaming.text || this.streaming.thinking);
      this.streaming = { key, text: '', thinking: '' };
      if (restarted) return [this.chunk('agent_message_chunk', '\n\n(retrying)\n\n'), ...this.delta(frame)];
    }
    if (frame.channel === 'thinking') {
      this.streaming.thinking += frame.text;
      return [this.chunk('agent_thought_chunk', frame.text)];
    }
    this.streaming.text += frame.text;
    return [this.chunk('agent_message_chunk', frame.text)];
  }

  event(event: SkeinEvent, history: boolean): SessionUpdate[] {
    switch (event.kind) {
      case 'user':
        // Live, the editor already shows what it sent; a message typed elsewhere (the web UI) is shown too.
        if (!history && this.ownPrompt(event.text)) return [];
        return [...(event.text ? [this.chunk('user_message_chunk', event.text)] : []), ...(event.images ?? []).map((image) => userImage(image))];
      case 'agent':
        return this.agent(event.text, event.reasoning?.text);
      case 'tool_call':
        return this.toolCall(event.callId, event.name, event.input);
      case 'tool_result':
        return this.toolResult(event.callId, event.name, event.output, event.isError);
      case 'approval_request':
        return this.status.requested(event.callId, { name: event.name, input: event.input });
      case 'approval_decision':
        return this.status.decided(event);
      case 'state':
        return this.status.state(event.to);
      case 'usage':
        return [usageUpdate(event.gauge)];
      case 'compaction':
        return this.compaction(event);
      case 'error':
        if (event.code === 'retrying') return [this.chunk('agent_thought_chunk', `${event.message}\n`)];
        return [this.chunk('agent_message_chunk', `\n\n⚠ ${event.message}\n\n`, { skein: { error: event } })];
      case 'model':
        return [this.chunk('agent_message_chunk', `\n\n· model: ${event.from} → ${event.to}\n\n`)];
      case 'limits':
      case 'toolset':
      case 'answer_cut':
        return event.message && !('again' in event && event.again) ? [this.chunk('agent_message_chunk', `\n\n· ${event.message}\n\n`)] : [];
      case 'mcp':
        return event.state === 'failed' ? [this.chunk('agent_message_chunk', `\n\n· MCP ${event.server}: ${event.message}\n\n`)] : [];
      default:
        return [];
    }
  }

  /** The prompt being sent now: its user event is not echoed back. */
  expectPrompt(text: string | undefined): void {
    this.prompt = text;
  }
  private prompt: string | undefined;

  private ownPrompt(text: string): boolean {
    if (this.prompt === undefined || this.prompt !== text) return false;
    this.prompt = undefined;
    return true;
  }

  private chunk(kind: 'agent_message_chunk' | 'agent_thought_chunk' | 'user_message_chunk', text: string, meta?: Record<string, unknown>): SessionUpdate {
    return { sessionUpdate: kind, content: { type: 'text', text }, ...(meta && { _meta: meta }) };
  }

  /** The whole answer: what was not streamed yet. */
  private agent(text: string, thinking: string | undefined): SessionUpdate[] {
    const streamed = this.streaming;
    this.streaming = undefined;
    const out: SessionUpdate[] = [];
    const restThinking = rest(thinking ?? '', streamed?.thinking ?? '');
    if (restThinking) out.push(this.chunk('agent_thought_chunk', restThinking));
    const restText = rest(text, streamed?.text ?? '');
    if (restText) out.push(this.chunk('agent_message_chunk', restText));
    return out;
  }

  private toolCall(callId: string, name: string, input: Record<string, unknown>): SessionUpdate[] {
    this.calls.set(callId, { name, input });
    this.status.announced(callId, { name, input });
    const diff = diffContent(name, input, this.options.workDir);
    return [
      {
        sessionUpdate: 'tool_call',
        toolCallId: callId,
        title: toolTitle(name, input),
        kind: toolKind(name),
        status: 'pending',
        rawInput: input,
        locations: toolLocations(name, input, this.options.workDir),
        ...(diff && { content: [diff] }),
        _meta: { skein: { tool: name } },
      },
    ];
  }

  private toolResult(callId: string, name: string, output: string, isError: boolean): SessionUpdate[] {
    const call = this.calls.get(callId);
    this.calls.delete(callId);
    const diff = !isError && call ? diffContent(name, call.input, this.options.workDir, output) : undefined;
    const out: SessionUpdate[] = [
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: callId,
        status: isError ? 'failed' : 'completed',
        content: [...(diff ? [diff] : []), outputContent(output)],
        rawOutput: { output, isError },
      },
    ];
    if (name === PLAN_TOOL && !isError && call) {
      const parsed = parsePlan(call.input);
      if (parsed.ok) out.push({ sessionUpdate: 'plan', entries: planEntries(parsed.plan), ...(parsed.plan.explanation && { _meta: { skein: { explanation: parsed.plan.explanation } } }) });
    }
    return [...out, ...this.status.finished(callId)];
  }

  private compaction(event: CompactionEvent): SessionUpdate[] {
    const meta = { skein: { compaction: event } };
    if (this.options.compactionUpdates) {
      const id = `${event.trigger}-${this.compactionId(event)}`;
      if (event.phase === 'started') return [{ sessionUpdate: 'compaction_update', compactionId: id, status: 'in_progress', _meta: meta }];
      if (event.phase === 'finished') {
        return [{ sessionUpdate: 'compaction_update', compactionId: id, status: 'completed', summary: [{ type: 'text', text: compactionLine(event) + (event.summary ? `\n\n${event.summary}` : '') }], _meta: meta }];
      }
      if (event.phase === 'failed') return [{ sessionUpdate: 'compaction_update', compactionId: id, status: 'failed', error: event.error ?? 'unknown error', _meta: meta }];
      return [];
    }
    const line = event.phase === 'queued' ? '' : compactionLine(event);
    return line ? [this.chunk('agent_message_chunk', `\n\n${line}\n\n`, meta)] : [];
  }

  private compactionSeq: number | undefined;
  /** One id for a compaction's started and its end (the seq of its `started`). */
  private compactionId(event: CompactionEvent): number {
    if (event.phase === 'started' || this.compactionSeq === undefined) this.compactionSeq = event.seq;
    return this.compactionSeq;
  }
}

/** What `whole` adds to what was streamed (all of it when the stream said something else). */
function rest(whole: string, streamed: string): string {
  if (!streamed) return whole;
  return whole.startsWith(streamed) ? whole.slice(streamed.length) : `\n\n${whole}`;
}

export function compactionLine(event: CompactionEvent): string {
  switch (event.phase) {
    case 'started':
      return `⟳ compacting (${event.trigger}${event.instructions ? `, focus: ${event.instructions}` : ''})…`;
    case 'finished': {
      const tokens = event.tokensBefore !== undefined && event.tokensAfter !== undefined ? `: ${n(event.tokensBefore)} → ${n(event.tokensAfter)} tokens` : '';
      const strategies = event.strategies?.join(' + ') ?? event.strategy ?? '';
      return `⟳ compacted (${event.trigger}${strategies ? `, ${strategies}` : ''})${tokens}`;
    }
    case 'failed':
      return `⟳ compaction failed (${event.trigger}): ${event.error ?? 'unknown error'}${event.fallback ? `; ${event.fallback}` : ''}`;
    default:
      return '';
  }
}

/**
 * An image of a user message replayed: its bytes when this process can read
 * the session's file (the embedded server, or one on this machine), else a
 * line that says what it was (a server elsewhere; `_meta.skein.image` has its reference).
 */
function userImage(image: ImageRef): SessionUpdate {
  const data = imageBase64(image);
  const content: ContentBlock = data ? { type: 'image', mimeType: image.mediaType, data } : { type: 'text', text: `[${imageLabel(image)}]` };
  return { sessionUpdate: 'user_message_chunk', content, _meta: { skein: { image } } };
}
