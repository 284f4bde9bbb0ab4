// update_plan: the agent's plan, a short list of steps with a status each.
// The whole plan is sent every time (no partial updates: the latest call is
// the plan). The UI pins it above the chat box; compaction carries it in the
// ledger, so it is there after every fold (see ledger.ts).
import { parsePlan, PLAN_STATUSES, PLAN_TOOL, renderPlan } from '../../shared/plan.js';
import type { Tool } from './tool.js';

export const updatePlanTool: Tool = {
  readOnly: true,
  spec: {
    name: PLAN_TOOL,
    description:
      'Set your plan for a task of several steps (shown to the user, kept across compaction). Send all steps each time; at most one in_progress.',
    inputSchema: {
      type: 'object',
      properties: {
        explanation: { type: 'string' },
        steps: {
          type: 'array',
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
