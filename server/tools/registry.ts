// The tools an agent has, by name.
import { bashTool } from './bash.js';
import { compactHistoryTool } from './compact-history.js';
import { currentSecretValues, maskSecrets } from './env.js';
import { editFileTool, readFileTool, writeFileTool } from './files.js';
import { searchHistoryTool } from './search-history.js';
import { globTool } from './search/glob.js';
import { grepTool } from './search/grep.js';
import { listTool } from './search/list.js';
import { updatePlanTool } from './update-plan.js';
import type { Tool, ToolContext, ToolResult } from './tool.js';
import { ToolInputError } from './tool.js';

export const TOOLS: readonly Tool[] = [
  bashTool,
  readFileTool,
  writeFileTool,
  editFileTool,
  globTool,
  grepTool(),
  listTool,
  updatePlanTool,
  compactHistoryTool,
  searchHistoryTool,
];

/**
 * Runs a tool call; a wrong name, bad input or a failing tool becomes an error
 * result, never a throw. Any secret value in the output is masked before
 * anyone (the log, the UI, the model) sees it.
 */
export async function runTool(name: string, input: Record<string, unknown>, ctx: ToolContext, tools: readonly Tool[] = TOOLS): Promise<ToolResult> {
  const result = await runUnmasked(name, input, ctx, tools);
  return { ...result, output: maskSecrets(result.output, currentSecretValues(ctx.secrets)) };
}

async function runUnmasked(name: string, input: Record<string, unknown>, ctx: ToolContext, tools: readonly Tool[]): Promise<ToolResult> {
  const tool = tools.find((t) => t.spec.name === name);
  if (!tool) return { output: `unknown tool "${name}"; available: ${tools.map((t) => t.spec.name).join(', ')}`, isError: true };
  try {
    return await tool.run(input, ctx);
  } catch (err) {
    const message = err instanceof ToolInputError ? err.message : err instanceof Error ? err.message : String(err);
    return { output: `${name} failed: ${message}`, isError: true };
  }
}
