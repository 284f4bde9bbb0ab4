// Builds a live session (its Session and its Agent) from an open event log:
// the model and effort last chosen, the state the log ended in, the settings.
import type { AgentState } from '../../shared/protocol.js';
import type { Config } from '../config.js';
import { defaultStrategies } from '../compaction/strategies/index.js';
import { createProviderOrPlaceholder, type ProviderChoice } from '../llm/providers.js';
import type { SessionLog as EventLog } from '../store/session-log.js';
import { readMeta } from '../manage/meta.js';
import { Agent } from '../agent/agent.js';
import { providerSettings, type ModelServices } from '../agent/model-switch.js';
import { Session } from '../agent/session.js';
import { SessionTools } from '../tools/session-tools.js';
import { TOOLS } from '../tools/registry.js';
import type { Tool } from '../tools/tool.js';
import type { LogHeader } from '../store/types.js';
import type { Subagents } from '../subagents/children.js';
import { taskTool } from '../subagents/task-tool.js';
import { sandboxSettingsOf } from '../tools/sandbox.js';
import { readOnlySandboxOf } from '../tools/sandbox/read-only.js';
import type { LiveSession } from '../agent/live-session.js';
import type { SessionOptions } from './session-options.js';

/** `choice`: the provider create() already made (a replay reads its recording once); `subagents`: gives the session its `task` tool. */
export function liveSession(config: Config, options: SessionOptions, models: ModelServices, sessionsDir: string, log: EventLog, choice?: ProviderChoice, subagents?: Subagents): LiveSession {
  const id = log.header.session;
  // The model of the last switch, if any; a model whose key is gone still loads (it says why when used).
  const model = log.last('model')?.to ?? log.header.model;
  const made = choice ?? createProviderOrPlaceholder(model, providerSettings(config));
  const { info } = made;
  const provider = options.wrapProvider ? options.wrapProvider(made.provider) : made.provider;
  // The effort last set with the model picker, else SKEIN_REASONING_EFFORT.
  // From the end, among the model switches only (kind-index.ts: no pass over a 300,000-event log).
  const effort = log.kinds.eventsOf('model').findLast((e) => e.effort !== undefined)?.effort;
  const session = new Session(id, log, model, effort ?? config.reasoningEffort);
  session.meta = readMeta(sessionsDir, id);
  // Masked in everything the session logs, beside the environment's own secrets.
  session.extraSecrets = options.toolSecrets ?? [];
  const onEvent = options.onEvent;
  // From now on only (what the log held before is not counted again); an observer, so it is no audience that keeps the session loaded.
  if (onEvent) session.observe((event) => onEvent(id, event));
  const lastState = log.last('state');
  const sandbox = sandboxSettingsOf(config);
  const initial: AgentState = lastState?.to ?? 'WaitingForUserInput';
  const agent = new Agent(
    session,
    provider,
    info,
    {
      // The session's own folder (its worktree, when it has one); logs from before workspaces: SKEIN_WORKDIR.
      workDir: workDirOf(config, log),
      contextWindow: info.contextWindow,
      targetRatio: config.compactTargetRatio,
      policy: {
        thresholdRatio: config.compactThresholdRatio,
        preflight: config.compactPreflight,
        everyNCalls: config.compactEveryNCalls,
      },
      strategies: options.strategies ?? defaultStrategies(config.compactKeepToolResults, { provider: config.compactProvider, clearStale: config.compactClearStale }),
      resultCap: options.resultCap ?? true,
      summariserTimeoutMs: config.summarizerTimeoutMs,
      models,
      bashTimeoutMs: config.bashTimeoutMs,
      toolOutputLimit: config.toolOutputLimit,
      tools: { envAllow: config.toolEnvAllow, secrets: options.toolSecrets ?? [] },
      maxStepsPerTurn: config.maxStepsPerTurn,
      maxTurnCostUsd: config.maxTurnCostUsd,
      statusUpdates: config.statusUpdates,
      approval: config.approval,
      ...(sandbox && { sandbox }),
      planSandbox: readOnlySandboxOf(config),
      toolSet: new SessionTools(builtInTools(log.header, workDirOf(config, log), subagents), options.mcp, log.header.mcpTools),
      ...(subagents && { childHistory: (child: string) => subagents.childHistory(id, child) }),
      ...(log.header.subagent?.prompt && { agentPrompt: log.header.subagent.prompt }),
    },
    initial,
  );
  // The parent's approval route and frame answer its running children's waiting calls too (subagents/child-approvals.ts).
  return { session, agent, ...(subagents && { delegated: { decide: (callId, decision, reason) => subagents.decideForParent(id, callId, decision, reason) } }) };
}

function workDirOf(config: Config, log: EventLog): string {
  return log.header.workspace?.workDir ?? config.workDir;
}

/**
 * The session's built-in tools: a child's are those its agent allows; `task`
 * when subagents are on and the session may still start children (a
 * top-level session may; a child only when its agent file gives it depth).
 */
function builtInTools(header: LogHeader, workDir: string, subagents: Subagents | undefined): readonly Tool[] {
  const sub = header.subagent;
  const allowed = sub?.tools;
  const tools = allowed ? TOOLS.filter((t) => allowed.includes(t.spec.name)) : TOOLS;
  if (!subagents || (sub && sub.depthLeft <= 0)) return tools;
  return [...tools, taskTool(subagents, header.session, [...subagents.catalog(workDir).agents.values()])];
}
