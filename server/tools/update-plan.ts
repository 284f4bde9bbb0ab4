// update_plan: the agent's plan, a short list of steps with a status each.
// The whole plan is sent every time (no partial updates: the latest call is
// the plan). The UI pins it above the chat box; compaction carries it in the
// ledger, so it is there after every fold (see ledger.ts).
import { MAX_PLAN_STEPS, parsePlan, PLAN_STATUSES, PLAN_TOOL, renderPlan } from '../../shared/plan.js';
import type { Tool } from './tool.js';

export const updatePlanTool: Tool = {
  readOnly: true,
  spec: {
    name: PLAN_TOOL,
    description:
      'Keep a plan for a task of several steps, shown to the user above the chat box and kept when the history is compacted. Send the whole plan each time (it replaces the previous one): `steps` in order, each {step, status} with status pending, in_progress or done; at most one step in_progress. Optional `explanation` of what changed. Update it as you finish steps.',
    inputSchema: {
      type: 'object',
      properties: {
        explanation: { type: 'string', description: 'Why the plan changed (optional)' },
        steps: {
          type: 'array',
          description: `The steps in order (at most ${MAX_PLAN_STEPS})`,
          items: {
            type: 'object',
            properties: { step: { type: 'string' }, status: { type: 'string', enum: [...PLAN_STATUSES] } },
            required: ['step', 'status'],
          },
        },
      },
      required: ['steps'],
    },
  },
  async run(input) {
    const parsed = parsePlan(input);
    if (!parsed.ok) return { output: `update_plan refused: ${parsed.error}; the previous plan stays`, isError: true };
    const done = parsed.plan.steps.filter((s) => s.status === 'done').length;
    return { output: `plan updated (${done} of ${parsed.plan.steps.length} done):\n${renderPlan(parsed.plan)}`, isError: false };
  },
};
