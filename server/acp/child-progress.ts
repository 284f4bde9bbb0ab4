// A `task` call's child session, seen from the editor: skein acp follows the
// child's own stream while it runs and turns each step (a tool call, a piece
// of its answer, a compaction) and its token count into a `tool_call_update`
// of the parent's task call (status in_progress; `_meta.skein.subagent` has
// the figures). Nothing is sent once the parent's timeline says the child
// finished: the task call's own result, which follows, is the last word.
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { EventOf, SkeinEvent } from '../../shared/protocol.js';
import type { Api } from '../cli/api.js';
import type { Connection } from '../cli/connection.js';
import { log } from '../log.js';
import { openStream, type SessionStream } from './session-stream.js';
import { toolTitle } from './tool-display.js';

/** What the editor is told of a running child. */
export interface ChildStep {
  child: string;
  agent: string;
  /** Its last step, in a few words. */
  step: string;
  /** Tokens its model calls used so far, and their cost. */
  tokens: number;
  costUsd: number;
  /** How full its own context window is. */
  contextTokens?: number;
  contextWindow?: number;
}

const MAX_STEP = 160;

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_STEP ? `${flat.slice(0, MAX_STEP - 1)}…` : flat;
}

/** The step a child's event is, in words; undefined for an event that is not one (its usage changes the figures only). */
export function stepOf(event: SkeinEvent): string | undefined {
  switch (event.kind) {
    case 'user':
      return 'started';
    case 'tool_call':
      return oneLine(`${event.name}: ${toolTitle(event.name, event.input)}`);
    case 'agent':
      return event.text.trim() ? oneLine(event.text) : undefined;
    case 'approval_request':
      return oneLine(`waits for approval: ${event.name}: ${toolTitle(event.name, event.input)}`);
    case 'compaction':
      return event.phase === 'started' ? 'compacting its context' : undefined;
    case 'error':
      return event.code === 'retrying' ? undefined : oneLine(`error: ${event.message}`);
    default:
      return undefined;
  }
}

export function progressUpdate(callId: string, step: ChildStep): SessionUpdate {
  const tokens = step.tokens.toLocaleString('en-US');
  return {
    sessionUpdate: 'tool_call_update',
    toolCallId: callId,
    status: 'in_progress',
    content: [{ type: 'content', content: { type: 'text', text: `${step.agent} agent (session ${step.child}): ${step.step} · ${tokens} tokens · $${step.costUsd.toFixed(4)}` } }],
    _meta: { skein: { subagent: step } },
  };
}

export class ChildProgress {
  /** The children followed, by id: their stream once open, and whether they are done with. */
  private readonly children = new Map<string, { stream?: SessionStream; done: boolean }>();

  constructor(
    private readonly connection: Connection,
    private readonly api: Api,
    /** Queues updates of the parent session, in order with its own. */
    private readonly send: (updates: SessionUpdate[]) => void,
  ) {}

  /** A child started (or was found running when the stream caught up): its steps go to the editor until stop(). */
  follow(started: EventOf<'subagent'>): void {
    if (this.children.has(started.child)) return;
    const entry: { stream?: SessionStream; done: boolean } = { done: false };
    this.children.set(started.child, entry);
    const step: ChildStep = { child: started.child, agent: started.agent, step: 'started', tokens: 0, costUsd: 0 };
    let caughtUp = false;
    const tell = () => !entry.done && this.send([progressUpdate(started.callId, { ...step })]);
    openStream(this.connection, this.api, started.child, 0, {
      hello: () => {},
      event: (event, live) => {
        if (event.kind === 'usage') {
          step.tokens = event.gauge.totalTokens ?? step.tokens;
          step.costUsd = event.gauge.totalCostUsd;
          step.contextTokens = event.gauge.contextTokens;
          step.contextWindow = event.gauge.contextWindow;
        }
        const words = stepOf(event);
        if (words) step.step = words;
        // The history of a child joined late is one update once it is read, then one per event.
        if ((live || caughtUp) && (words || event.kind === 'usage')) tell();
      },
      delta: () => {},
      lost: (reason) => log.warn(`acp: a child session's stream: ${reason}`, { session: started.child }),
    }).then(
      (stream) => {
        entry.stream = stream;
        if (entry.done) return stream.close();
        void stream.caughtUp.then(() => {
          caughtUp = true;
          tell();
        });
      },
      (err: unknown) => log.warn(`acp: cannot follow the child session: ${err instanceof Error ? err.message : String(err)}`, { session: started.child }),
    );
  }

  /** The child finished (or the session closes): nothing more of it is sent. */
  stop(child: string): void {
    const entry = this.children.get(child);
    if (!entry) return;
    entry.done = true;
    entry.stream?.close();
  }

  closeAll(): void {
    for (const child of this.children.keys()) this.stop(child);
  }
}
