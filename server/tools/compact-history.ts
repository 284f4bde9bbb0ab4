// compact_history: the agent itself asks for a compaction, e.g. after
// finishing a sub-task whose details it no longer needs. It runs at the next
// safe point, after all of this response's tool calls have their results.
import type { Tool } from './tool.js';

export const compactHistoryTool: Tool = {
  // Asks skein to compact: changes nothing outside skein.
  readOnly: true,
  spec: {
    name: 'compact_history',
    description:
      'Fold older conversation history into a summary to free context. Use it after finishing a sub-task. The compaction runs before your next request; the full history stays in the log.',
    inputSchema: {
      type: 'object',
      properties: {
        preserveRecentGroups: { type: 'integer', minimum: 0, maximum: 50, description: 'How many recent steps to keep verbatim (default 2)' },
        focus: { type: 'string', description: 'What the summary should concentrate on' },
      },
    },
  },
  async run(input, ctx) {
    if (!ctx.requestCompaction) return { output: 'compact_history is not available here', isError: true };
    const keep = input.preserveRecentGroups;
    if (keep !== undefined && (typeof keep !== 'number' || !Number.isInteger(keep) || keep < 0 || keep > 50)) {
      return { output: '"preserveRecentGroups" must be an integer from 0 to 50', isError: true };
    }
    if (input.focus !== undefined && typeof input.focus !== 'string') return { output: '"focus" must be a string', isError: true };
    ctx.requestCompaction({
      ...(typeof keep === 'number' && { preserveRecentGroups: keep }),
      ...(typeof input.focus === 'string' && input.focus.trim() && { instructions: input.focus.trim() }),
    });
    return { output: 'Compaction scheduled: it runs before your next request. Continue with the task.', isError: false };
  },
};
