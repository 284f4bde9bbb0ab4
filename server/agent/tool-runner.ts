// Runs the tool calls of one answer and logs their results: the part of a turn
// between the model's answer and the next request.
import path from 'node:path';
import { capToolResult, RESULT_CAP_RATIO, toolCallSeqs } from '../compaction/result-cap.js';
import type { DueCompaction } from '../compaction/triggers.js';
import { hasRecordedTools, type Provider, type ToolCall } from '../llm/types.js';
import { inputProblem } from '../tools/input-schema.js';
import { runTool } from '../tools/registry.js';
import { readOnlySandboxProblem } from '../tools/sandbox/read-only.js';
import { SessionTools } from '../tools/session-tools.js';
import type { SandboxSettings } from '../tools/sandbox.js';
import type { ToolContext } from '../tools/tool.js';
import type { ApprovalGate, Clearance } from './approvals.js';
import { planSandboxRefusal } from './mode-rules.js';
import type { Session } from './session.js';
import { spillDirOf } from './session-files.js';
import { Cancelled } from './turn-end.js';
import type { ToolRunSettings } from './types.js';
import { Checkpoints, writesFiles } from '../workspace/checkpoints.js';
import { isFileTool } from '../workspace/plain-checkpoints.js';
import { log } from '../log.js';
import { TASK_TOOL } from '../subagents/task-name.js';

export { imagesDirOf, spillDirOf } from './session-files.js';


/** The session's checkpoints of its working folder (see workspace/checkpoints.ts). */
export function checkpointsOf(session: Session, workDir: string): Checkpoints {
  return new Checkpoints(path.join(path.dirname(session.log.file), session.id), workDir, session.id);
}

/** A call's result before it is logged; `ran`: the tool ran (its output is capped). */
interface Outcome {
  output: string;
  isError: boolean;
  durationMs: number;
  ran?: boolean;
}

/** A clearance, with the sandbox a read-only call runs in. */
type ReadOnlyAware = { run: true; readOnly?: undefined } | { run: true; readOnly: true; sandbox: SandboxSettings } | { run: false; output: string };

export class ToolRunner {
  constructor(
    private readonly session: Session,
    private readonly settings: ToolRunSettings,
    private readonly provider: () => Provider,
    /** SKEIN_APPROVAL: each call waits here until it may run. */
    readonly approvals: ApprovalGate,
    private readonly toolSet: SessionTools = new SessionTools(),
  ) {}

  private context(signal: AbortSignal): ToolContext {
    const { workDir, bashTimeoutMs, toolOutputLimit } = this.settings;
    return {
      ...this.settings.tools,
      workDir,
      signal,
      bashTimeoutMs,
      outputLimit: toolOutputLimit,
      readRoots: [spillDirOf(this.session)],
      ...(this.settings.sandbox && { sandbox: this.settings.sandbox }),
      requestCompaction: (request: Omit<DueCompaction, 'trigger'>) => this.session.requestCompaction({ trigger: 'agent', ...request }),
      history: () => this.session.log.all(),
      ...(this.settings.childHistory && { childHistory: this.settings.childHistory }),
    };
  }

  /**
   * Runs every call in order, each once approved if it needs it; calls after a
   * cancel are logged as not run, then Cancelled is thrown. `calls` are the
   * last tool_call events of the log (after a restart: those still unanswered).
   */
  async run(calls: readonly ToolCall[], signal: AbortSignal): Promise<void> {
    const ctx = this.context(signal);
    // Saved full outputs are named by their tool_call event's seq: call ids may repeat.
    const seqs = toolCallSeqs(this.session.log.all(), calls.length);
    this.approvals.startAnswer();
    for (let i = 0; i < calls.length; ) {
      // Consecutive task calls run at once (each a child session; subagents/ limits how many): each is cleared first, in order.
      let n = 1;
      while (calls[i]!.name === TASK_TOOL && calls[i + n]?.name === TASK_TOOL) n++;
      const cleared: (Promise<Outcome> | Outcome)[] = [];
      for (let k = i; k < i + n; k++) {
        const ready = await this.clear(calls[k]!, seqs[k]!, signal);
        cleared.push(ready.run ? ready.run(ctx) : ready);
        // A single call (not a batch) is logged before the next is asked about, as always.
        if (n === 1) break;
      }
      const outcomes = await Promise.all(cleared);
      for (const [k, outcome] of outcomes.entries()) this.record(calls[i + k]!, seqs[i + k]!, outcome);
      i += n;
    }
    if (signal.aborted) throw new Cancelled('cancelled by the user');
  }

  /** Checks, approval and checkpoint of one call: either its result now (not run), or how to run it. */
  private async clear(call: ToolCall, seq: number, signal: AbortSignal): Promise<Outcome & { run?: (ctx: ToolContext) => Promise<Outcome> }> {
    if (signal.aborted) return { output: 'cancelled by the user before it ran', isError: true, durationMs: 0 };
    // Checked before anyone is asked: the user approves a call the tool will read as shown, or none.
    const problem = this.inputProblem(call);
    if (problem) {
      this.approvals.notAsked(call, 'its input does not match its schema');
      return { output: problem, isError: true, durationMs: 0 };
    }
    const clearance = await this.withSandbox(await this.approvals.clear(call, signal));
    if (!clearance.run) return { output: clearance.output, isError: true, durationMs: 0 };
    const provider = this.provider();
    const recorded = hasRecordedTools(provider) ? provider.recordedToolResult(call.id) : undefined;
    // A replayed call runs nothing and changes no file: no checkpoint (it spawned git at every step of a replay); nor does a read-only one.
    if (writesFiles(call.name) && !recorded && !clearance.readOnly) {
      // Before anything changes: a rewind to any earlier event can put the files back.
      try {
        await checkpointsOf(this.session, this.settings.workDir).before(call.name, call.input, seq);
      } catch (err) {
        log.warn(`no checkpoint before ${call.name}: ${err instanceof Error ? err.message : String(err)}`, { session: this.session.id });
      }
      // A cancel that came while the checkpoint was taken (the agent already shows RunningTools): the tool never starts,
      // and its result reads as a cancel during the run does.
      if (signal.aborted) return { output: 'cancelled by the user', isError: true, durationMs: 0 };
    }
    const run = async (ctx: ToolContext): Promise<Outcome> => {
      const started = Date.now();
      // Plan mode's bash: in the read-only sandbox, never in SKEIN_SANDBOX's (or none).
      const callCtx = { ...(clearance.readOnly ? { ...ctx, sandbox: clearance.sandbox } : ctx), callId: call.id };
      const result = recorded ?? (await runTool(call.name, call.input, callCtx, this.toolSet.callable(call.name)));
      // What bash or an MCP tool changed, for the Changes of a session sharing its folder (a file tool names its target).
      if (writesFiles(call.name) && !isFileTool(call.name) && !recorded && !clearance.readOnly && !this.session.log.header.workspace?.worktree) {
        await checkpointsOf(this.session, this.settings.workDir).afterCall(seq).catch((err: unknown) => log.warn(`no record of what ${call.name} changed: ${err instanceof Error ? err.message : String(err)}`, { session: this.session.id }));
      }
      return { ...result, durationMs: Date.now() - started, ran: true };
    };
    return { output: '', isError: false, durationMs: 0, run };
  }

  /** Logs a call's result; one that ran is capped as it arrives (the full output stays readable in the session folder). */
  private record(call: ToolCall, seq: number, outcome: Outcome): void {
    const { toolOutputLimit, contextWindow } = this.settings;
    const capped =
      !outcome.ran || this.settings.resultCap === false
        ? { output: outcome.output }
        : capToolResult(outcome.output, { maxTokens: Math.floor(RESULT_CAP_RATIO * contextWindow), maxChars: toolOutputLimit, spillDir: spillDirOf(this.session), seq, callId: call.id });
    this.session.append({ kind: 'tool_result', callId: call.id, name: call.name, output: capped.output, isError: outcome.isError, durationMs: outcome.durationMs });
  }

  /**
   * A read-only clearance (plan mode's bash) runs only where the read-only
   * sandbox starts: with its settings, or refused with the reason.
   */
  private async withSandbox(clearance: Clearance): Promise<ReadOnlyAware> {
    if (!clearance.run || !clearance.readOnly) return clearance.run ? { run: true } : clearance;
    const sandbox = this.settings.planSandbox;
    if (!sandbox) return { run: false, output: planSandboxRefusal({ why: 'no read-only sandbox was set up for this session' }) };
    const problem = await readOnlySandboxProblem(sandbox, this.settings.workDir);
    return problem ? { run: false, output: planSandboxRefusal(problem) } : { run: true, readOnly: true, sandbox };
  }

  /** What is wrong with a call's input for its tool's JSON Schema (built-in or MCP); an unknown tool is left to runTool. */
  private inputProblem(call: ToolCall): string | undefined {
    const tool = this.toolSet.callable(call.name).find((t) => t.spec.name === call.name);
    const problem = tool && inputProblem(tool.spec.inputSchema, call.input);
    return problem && `${call.name} was not run: its input does not match the tool's schema: ${problem}. Call it again with input that does.`;
  }
}
