// Runs one `task` call: a child session (its own log, window, gauge and
// compaction) in the parent's folder, under the parent's mode or a stricter
// one, given the prompt; the parent's tool call waits for the child's turn to
// end and gets its final answer, bounded. The child is one branch of the
// parent's tree of control: cancelling the parent's turn cancels it, its
// approval requests are announced in the parent's timeline, a restart closes
// it (restart.ts). Every way it can end is a tool result, never a hang.
import type { ApprovalDecision, ApprovalMode, EventOf, SkeinEvent, Workspace } from '../../shared/protocol.js';
import type { Config } from '../config.js';
import type { LiveSession } from '../agent/live-session.js';
import type { SubagentHeader } from '../store/types.js';
import type { ToolResult } from '../tools/tool.js';
import { TOOLS } from '../tools/registry.js';
import { DEFAULT_AGENT, narrower, type AgentDef } from './agent-defs.js';
import { loadAgents } from './agent-files.js';
import { Slots } from './slots.js';
import { boundedAnswer, turnOutcome, type TurnOutcome } from './outcome.js';
import { approvalNote, decideInChildren } from './child-approvals.js';
import { childWorktree, worktreeNote } from './child-worktree.js';
import { newId } from '../sessions/session-id.js';

/** Default of SKEIN_SUBAGENT_PARALLEL. */
export const DEFAULT_SUBAGENT_PARALLEL = 3;

/** What the runner needs of the sessions manager. */
export interface SubagentHost {
  readonly config: Config;
  get(id: string): LiveSession | undefined;
  /** A new session whose log header names its parent. */
  createChild(model: string, workspace: Workspace | undefined, subagent: SubagentHeader, id?: string): LiveSession;
  /** The projects (a child's worktree is made from its parent's folder, which is one of them or inside one). */
  roots(): readonly string[];
}

export interface TaskInput {
  description: string;
  prompt: string;
  agent?: string;
  /** A git worktree of its own (absent: the agent's choice, else the parent's folder). */
  worktree?: boolean;
}

export class Subagents {
  /** Per parent session: how many of its children run at once. */
  private readonly slots = new Map<string, Slots>();
  /** Per parent session: its children running now (their waiting calls are answerable from the parent). */
  private readonly running = new Map<string, Set<LiveSession>>();

  constructor(private readonly host: SubagentHost) {}

  /** The agents a session in `folder` may call (built-in, the user's, the project's trusted ones). */
  catalog(folder: string) {
    return loadAgents(this.host.config.dataDir, folder);
  }

  /** A child's log, for the parent's search_history (only a child of `parentId`). */
  childHistory(parentId: string, childId: string): readonly SkeinEvent[] | undefined {
    const child = this.host.get(childId);
    return child?.session.log.header.subagent?.parent === parentId ? child.session.log.all() : undefined;
  }

  /** Decides the call `callId` waiting in one of `parentId`'s running children (or deeper); false when none waits with that id. */
  decideForParent(parentId: string, callId: string, decision: ApprovalDecision, reason?: string): boolean {
    return decideInChildren(this.running.get(parentId) ?? [], callId, decision, reason);
  }

  async run(parentId: string, callId: string, input: TaskInput, signal: AbortSignal): Promise<ToolResult> {
    const parent = this.host.get(parentId);
    if (!parent) return { output: `task: the parent session ${parentId} is not loaded`, isError: true };
    const header = parent.session.log.header;
    const folder = header.workspace?.workDir ?? this.host.config.workDir;
    const { agents, skipped } = this.catalog(folder);
    const name = input.agent?.trim() || DEFAULT_AGENT;
    const def = agents.get(name);
    if (!def) {
      const why = skipped.find((s) => s.path.endsWith(`/${name}.md`));
      return { output: `task: no agent named "${name}"${why ? ` (${why.path}: ${why.why})` : ''}; defined: ${[...agents.keys()].join(', ')}`, isError: true };
    }
    const release = await this.slotsOf(parentId).take(signal);
    if (!release) return { output: 'task: cancelled before the child session started', isError: true };
    try {
      return await this.runChild(parent, callId, input, def, signal);
    } finally {
      release();
    }
  }

  private async runChild(parent: LiveSession, callId: string, input: TaskInput, def: AgentDef, signal: AbortSignal): Promise<ToolResult> {
    const parentHeader = parent.session.log.header;
    const subagent: SubagentHeader = {
      parent: parent.session.id,
      callId,
      agent: def.name,
      ...(childTools(parentHeader.subagent, def) && { tools: childTools(parentHeader.subagent, def) }),
      ...(def.prompt && { prompt: def.prompt }),
      // A child starts children only when its agent says so, and never deeper than its parent may.
      depthLeft: parentHeader.subagent ? Math.min(def.depth, parentHeader.subagent.depthLeft - 1) : def.depth,
    };
    const model = def.model === 'summariser' ? (this.host.config.summarizerModel ?? parent.session.model) : (def.model ?? parent.session.model);
    let child: LiveSession;
    const id = newId();
    const own = input.worktree ?? def.worktree ?? false;
    try {
      const workspace = own ? await childWorktree(this.host, parentHeader.workspace, id) : parentHeader.workspace;
      child = this.host.createChild(model, workspace, subagent, id);
    } catch (err) {
      return { output: `task: the child session could not start: ${err instanceof Error ? err.message : String(err)}`, isError: true };
    }
    const childId = child.session.id;
    const mode: ApprovalMode = narrower(parent.agent.mode, def.mode);
    if (child.agent.mode !== mode) child.agent.setMode(mode);
    const note = (event: Omit<EventOf<'subagent'>, 'seq' | 'ts' | 'kind' | 'callId' | 'child' | 'agent'>) => {
      try {
        parent.session.append({ kind: 'subagent', callId, child: childId, agent: def.name, ...event });
      } catch {
        // The parent's log refuses writes: the child's own log still has everything.
      }
    };
    note({ phase: 'started', message: `${def.name} agent started in session ${childId}: ${input.description}` });
    // The user switches the parent's mode while the child works: the child follows (a waiting call is decided again).
    const follow = parent.session.observe((event) => {
      if (event.kind !== 'mode') return;
      const next = narrower(event.to, def.mode); // (the parent's own mode changes just after its event)
      if (child.agent.mode !== next) child.agent.setMode(next);
    });
    let outcome: TurnOutcome;
    try {
      this.runningOf(parent.session.id).add(child);
      const asked = new Set<string>();
      outcome = signal.aborted ? { kind: 'cancelled', detail: 'cancelled before the prompt was sent' } : await this.answer(child, input.prompt, signal, (event) => {
        const told = approvalNote(childId, event);
        // A decision is told only for a call whose request was (one a session rule approved never waited).
        const key = `${told?.approval?.session}/${told?.approval?.callId}`;
        if (!told || (told.phase === 'approval_decision' && !asked.delete(key))) return;
        if (told.phase === 'approval') asked.add(key);
        const waiting = told.approval?.session === childId ? '' : ` (in its own child session ${told.approval?.session})`;
        const message =
          told.phase === 'approval'
            ? `${def.name} agent (session ${childId}) waits for your decision on ${told.tool}${waiting}: answer it here or in that session`
            : `${def.name} agent (session ${childId}): ${told.tool} ${decisionWords(told.approval?.decision)}${waiting}`;
        note({ ...told, message });
      });
    } finally {
      follow();
      this.runningOf(parent.session.id).delete(child);
      if (!this.running.get(parent.session.id)?.size) this.running.delete(parent.session.id);
    }
    const gauge = child.agent.gauge();
    note({
      phase: 'finished',
      outcome: outcome.kind,
      costUsd: gauge.totalCostUsd,
      ...(gauge.totalTokens !== undefined && { tokens: gauge.totalTokens }),
      message: `${def.name} agent (session ${childId}) ${outcome.kind === 'answered' ? 'answered' : `ended: ${outcome.kind}`}`,
    });
    const answer = boundedAnswer(childId, def.name, outcome);
    return own ? { ...answer, output: `${answer.output}\n${await worktreeNote(child.session.log.header.workspace)}` } : answer;
  }

  /** Sends the prompt and waits for the child's turn to end; a cancel of the parent's turn cancels it (and still waits for its end). */
  private async answer(child: LiveSession, prompt: string, signal: AbortSignal, onEvent: (event: SkeinEvent) => void): Promise<TurnOutcome> {
    const ended = this.turnEnd(child, onEvent);
    // Set synchronously by userMessage (the agent's turn starts before it returns): a cancel from then on reaches it.
    const cancel = () => child.agent.cancel();
    signal.addEventListener('abort', cancel, { once: true });
    try {
      const from = child.session.log.lastSeq;
      await child.session.userMessage(prompt);
      await ended.done;
      return turnOutcome(child.session.log.since(from));
    } finally {
      ended.stop();
      signal.removeEventListener('abort', cancel);
    }
  }

  /** Resolves when the child's turn is over (back to WaitingForUserInput); tells of each of its events. */
  private turnEnd(child: LiveSession, onEvent: (event: SkeinEvent) => void): { done: Promise<void>; stop: () => void } {
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    let started = false;
    const stop = child.session.observe((event) => {
      if (event.kind === 'user') started = true;
      onEvent(event);
      if (event.kind === 'state' && event.to === 'WaitingForUserInput' && started) resolve();
    });
    return { done, stop };
  }

  private runningOf(parentId: string): Set<LiveSession> {
    let running = this.running.get(parentId);
    if (!running) this.running.set(parentId, (running = new Set()));
    return running;
  }

  private slotsOf(parentId: string): Slots {
    let slots = this.slots.get(parentId);
    if (!slots) {
      slots = new Slots(this.host.config.subagentParallel ?? DEFAULT_SUBAGENT_PARALLEL, () => this.slots.delete(parentId));
      this.slots.set(parentId, slots);
    }
    return slots;
  }
}

/** The agent's tools within the parent's (a child never gets a tool its parent lacks); absent: all of the parent's. */
function childTools(parent: SubagentHeader | undefined, def: AgentDef): string[] | undefined {
  const allowed = parent?.tools ?? TOOLS.map((t) => t.spec.name);
  if (!def.tools) return parent?.tools;
  return def.tools.filter((t) => allowed.includes(t));
}

function decisionWords(decision: ApprovalDecision | undefined): string {
  return decision === 'deny' ? 'denied' : decision === 'approve_session' ? 'approved for the session' : 'approved';
}
