// What every request carries before the conversation: the system prompt and
// the tools. Normally the full set, fixed for the session's life (providers
// cache by prefix, Anthropic checks thinking against it). In a small window
// it would crowd out the conversation (about 1,500 tokens of a local model's
// 4,096), so when skein's own part takes more than a quarter of the window it
// sends a lean one: a short prompt and the core tools with one-line
// descriptions (MCP tools, the user's choice, stay as they are).
// The choice follows the window in use, which the log holds, so a restart
// makes the same one; the first request of a new shape logs a `toolset` event.
import type { NewEvent, SkeinEvent } from '../../shared/protocol.js';
import type { LlmRequest } from '../llm/types.js';
import { requestTokens } from '../llm/tokens.js';
import { isMcpTool, leanSpecs } from '../tools/lean.js';

export type FixedPart = Pick<LlmRequest, 'system' | 'tools'>;

/** The full fixed part may take at most this share of the window. */
export const LEAN_SHARE = 0.25;

export interface ShapeLog {
  last(kind: 'toolset'): Extract<SkeinEvent, { kind: 'toolset' }> | undefined;
}

export class RequestShape {
  private readonly full: FixedPart;
  private readonly lean: FixedPart;
  private readonly fullTokens: number;
  private readonly leanTokens: number;
  /** skein's own part (system prompt and built-in tools): what decides, as MCP tools stay either way. */
  private readonly ownTokens: number;

  constructor(full: FixedPart, leanSystem: string) {
    this.full = full;
    this.lean = { system: leanSystem, tools: leanSpecs(full.tools) };
    this.fullTokens = requestTokens({ ...full, messages: [] });
    this.leanTokens = requestTokens({ ...this.lean, messages: [] });
    this.ownTokens = requestTokens({ system: full.system, tools: full.tools.filter((t) => !isMcpTool(t)), messages: [] });
  }

  /** Whether the log last said lean (read from it once; kept as events are returned by change()). */
  private said: boolean | undefined;

  isLean(contextWindow: number): boolean {
    return this.ownTokens > LEAN_SHARE * contextWindow && this.leanTokens < this.fullTokens;
  }

  /** The system prompt and tools for a request in this window. */
  current(contextWindow: number): FixedPart {
    return this.isLean(contextWindow) ? this.lean : this.full;
  }

  /**
   * Before a request goes out: the `toolset` event to log when its shape is
   * not the one the log last said (none said means full), else undefined.
   */
  change(contextWindow: number, log: ShapeLog): Extract<NewEvent, { kind: 'toolset' }> | undefined {
    const lean = this.isLean(contextWindow);
    // The log is scanned once (most sessions have no toolset event: a scan each request would read it all).
    this.said ??= log.last('toolset')?.lean ?? false;
    if (this.said === lean) return undefined;
    this.said = lean;
    const fixed = this.current(contextWindow);
    const tools = fixed.tools.map((t) => t.name);
    const window = contextWindow.toLocaleString('en-US');
    const message = lean
      ? `The ${window}-token window is small: skein sends a short system prompt and only its core tools (${tools.filter((t) => !t.startsWith('mcp__')).join(', ')}${tools.some((t) => t.startsWith('mcp__')) ? ', and the MCP tools' : ''}), about ${this.leanTokens.toLocaleString('en-US')} tokens instead of ${this.fullTokens.toLocaleString('en-US')}, to leave room for the conversation.`
      : `The ${window}-token window has room again: skein sends its full system prompt and all its tools.`;
    return { kind: 'toolset', lean, tools, tokens: lean ? this.leanTokens : this.fullTokens, contextWindow, message };
  }
}
