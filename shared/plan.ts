// The agent's plan (update_plan): shared by the server, which validates the
// tool call, and the web UI, which pins the latest plan above the chat box.
// The log records a plan as the update_plan tool_call (its input is the whole
// plan) with a successful tool_result; there is no separate event kind, so the
// plan is exactly what the model sent.

export const PLAN_STATUSES = ['pending', 'in_progress', 'done'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

export interface PlanStep {
  step: string;
  status: PlanStatus;
}

export interface Plan {
  steps: PlanStep[];
  explanation?: string;
}

export const PLAN_TOOL = 'update_plan';
export const MAX_PLAN_STEPS = 50;
export const MAX_PLAN_STEP_CHARS = 500;
export const MAX_PLAN_EXPLANATION_CHARS = 2000;

/** Validates update_plan's input; never throws. */
export function parsePlan(input: unknown): { ok: true; plan: Plan } | { ok: false; error: string } {
  if (typeof input !== 'object' || input === null) return { ok: false, error: 'the input must be an object with "steps"' };
  const { steps, explanation } = input as Record<string, unknown>;
  if (!Array.isArray(steps)) return { ok: false, error: '"steps" must be an array of {step, status}' };
  if (steps.length > MAX_PLAN_STEPS) return { ok: false, error: `a plan has at most ${MAX_PLAN_STEPS} steps (got ${steps.length})` };
  const out: PlanStep[] = [];
  for (const [i, raw] of steps.entries()) {
    const s = raw as Record<string, unknown> | null;
    if (typeof s !== 'object' || s === null) return { ok: false, error: `steps[${i}] must be an object {step, status}` };
    if (typeof s.step !== 'string' || s.step.trim() === '') return { ok: false, error: `steps[${i}].step must be a non-empty string` };
    if (s.step.length > MAX_PLAN_STEP_CHARS) return { ok: false, error: `steps[${i}].step is longer than ${MAX_PLAN_STEP_CHARS} characters` };
    if (!PLAN_STATUSES.includes(s.status as PlanStatus)) return { ok: false, error: `steps[${i}].status must be one of ${PLAN_STATUSES.join(', ')}` };
    out.push({ step: s.step.trim(), status: s.status as PlanStatus });
  }
  const active = out.filter((s) => s.status === 'in_progress').length;
  if (active > 1) return { ok: false, error: `at most one step can be in_progress (got ${active})` };
  if (explanation !== undefined && typeof explanation !== 'string') return { ok: false, error: '"explanation" must be a string' };
  if (typeof explanation === 'string' && explanation.length > MAX_PLAN_EXPLANATION_CHARS) {
    return { ok: false, error: `"explanation" is longer than ${MAX_PLAN_EXPLANATION_CHARS} characters` };
  }
  return { ok: true, plan: { steps: out, ...(explanation?.trim() && { explanation: explanation.trim() }) } };
}

const MARKS: Record<PlanStatus, string> = { pending: '[ ]', in_progress: '[>]', done: '[x]' };

/** The plan as text: one line per step with its mark ([x] done, [>] in progress, [ ] pending). */
export function renderPlan(plan: Plan): string {
  const lines = plan.steps.map((s) => `${MARKS[s.status]} ${s.step}`);
  if (!lines.length) lines.push('(no steps: the plan was cleared)');
  return plan.explanation ? `${plan.explanation}\n${lines.join('\n')}` : lines.join('\n');
}

/**
 * The latest plan in a log (its last successful update_plan), scanning back
 * from the end: a tail-first page may not reach it, so snapshots carry it.
 */
export function latestPlan(events: readonly { kind: string; callId?: string; name?: string; isError?: boolean; input?: unknown }[], results?: readonly number[]): Plan | undefined {
  // `results`: where the tool results are (the server's kind index: update_plan's), so only they are looked at.
  for (let k = (results ?? events).length - 1; k >= 0; k--) {
    const i = results ? results[k]! : k;
    const e = events[i]!;
    if (e.kind !== 'tool_result' || e.name !== PLAN_TOOL || e.isError) continue;
    for (let j = i - 1; j >= 0; j--) {
      const call = events[j]!;
      if (call.kind === 'tool_call' && call.callId === e.callId) {
        const parsed = parsePlan(call.input);
        if (parsed.ok) return parsed.plan;
        break;
      }
    }
  }
  return undefined;
}
