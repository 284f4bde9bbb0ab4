// Tools that appeared or vanished after the session started (an MCP server
// that connected late, crashed, or sent tools/list_changed). The tools of
// the session's requests stay as they were at its start; the change reaches
// the model as a `tools_changed` event, appended at the safe point before a
// request, so it is a new message at the end of that request (Anthropic
// documents this for mid-conversation changes) and the view stays derived
// from the log.
import { TOOLS_NOTE_CLOSE, TOOLS_NOTE_OPEN, type NewEvent } from '../../shared/protocol.js';
import type { ToolSpec } from '../llm/types.js';
import type { SessionTools } from '../tools/session-tools.js';
import type { Session } from './session.js';

export class ToolNotes {
  /** The MCP tools the model was told of: the fixed list, then every note since. */
  private known: Map<string, ToolSpec>;
  /** Seqs of the notes logged by this process; a fold that covers one makes them all be sent again. */
  private notes: number[] = [];
  private checked: number;

  constructor(
    private readonly session: Session,
    private readonly tools: SessionTools,
  ) {
    this.known = tools.fixedMcp();
    this.checked = session.log.lastSeq;
  }

  /** At the safe point before a request: logs a note when the live MCP tools differ from what the model knows. */
  beforeRequest(): void {
    // No MCP servers now and none at the start: nothing to tell (with tools recorded at the start, their going is news).
    if (!this.tools.mcp && this.known.size === 0) return;
    this.afterFolds();
    const live = this.tools.liveMcp();
    const added = [...live.values()].filter((spec) => !this.known.has(spec.name) || changed(this.known.get(spec.name)!, spec));
    const removed = [...this.known.keys()].filter((name) => !live.has(name));
    if (!added.length && !removed.length) return;
    for (const name of removed) this.known.delete(name);
    for (const spec of added) this.known.set(spec.name, spec);
    this.notes.push(this.session.append(toolsChangedEvent(added, removed)).seq);
  }

  /** A compaction that folded a note took its news out of the view: the model is told again, from the fixed list. */
  private afterFolds(): void {
    const folded = this.session.log.since(this.checked).some((e) => e.kind === 'compaction' && e.phase === 'finished' && e.coversSeq && this.notes.some((s) => s <= e.coversSeq![1]));
    this.checked = this.session.log.lastSeq;
    if (!folded) return;
    this.known = this.tools.fixedMcp();
    this.notes = [];
  }
}

function changed(a: ToolSpec, b: ToolSpec): boolean {
  return a.description !== b.description || JSON.stringify(a.inputSchema) !== JSON.stringify(b.inputSchema);
}

export function toolsChangedEvent(added: ToolSpec[], removed: string[]): Extract<NewEvent, { kind: 'tools_changed' }> {
  const lines = [`${TOOLS_NOTE_OPEN}Automatic note from skein (not a message from the user): the tools available changed.`];
  if (added.length) {
    lines.push('Now available (call them by name like any other tool):');
    for (const spec of added) lines.push(`- ${spec.name}: ${spec.description || '(no description)'} Input schema: ${JSON.stringify(spec.inputSchema)}`);
  }
  if (removed.length) lines.push(`No longer available (a call returns an error until they come back): ${removed.join(', ')}`);
  lines.push(TOOLS_NOTE_CLOSE);
  return { kind: 'tools_changed', text: lines.join('\n'), added: added.map((s) => s.name), removed };
}
