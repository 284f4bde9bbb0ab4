// Approval modes per session: what each one means, in words every client
// (web UI, CLI, ACP) shows the same, and the check of a mode a client sends.
import { APPROVAL_MODES, type ApprovalMode, type Parsed } from './protocol.js';

export interface ModeInfo {
  id: ApprovalMode;
  /**
   * Its one name, everywhere: the picker, `/mode`, `--mode`, SKEIN_APPROVAL,
   * the docs, ACP. The id itself, so no client can show a second name.
   */
  name: ApprovalMode;
  /** A few words after the name in a picker: `plan · read-only`. */
  gist: string;
  description: string;
}

/** In the order a picker lists them: from the most careful to the least. */
export const MODE_INFO: readonly ModeInfo[] = [
  { id: 'plan', name: 'plan', gist: 'read-only', description: 'The agent reads, searches and plans, and runs bash only in a read-only sandbox (no network; refused where bubblewrap is missing); writes and MCP tools are refused with a reason.' },
  { id: 'always', name: 'always', gist: 'ask every time', description: 'Every tool call waits for your approval.' },
  { id: 'on-write', name: 'on-write', gist: 'ask before changes', description: 'Calls that change something (writes, edits, bash, MCP tools) wait for your approval; reads run.' },
  { id: 'never', name: 'never', gist: 'never ask', description: 'Every tool call runs without asking.' },
];

/** How a picker labels a mode: its name, then its gist. */
export function modeLabel(mode: ModeInfo): string {
  return `${mode.name} · ${mode.gist}`;
}

export function isApprovalMode(value: unknown): value is ApprovalMode {
  return (APPROVAL_MODES as readonly unknown[]).includes(value);
}

/** Checks the body of PUT /api/sessions/:id/mode. Never throws. */
export function parseModeBody(body: unknown): Parsed<ApprovalMode> {
  const mode = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { mode?: unknown }).mode : undefined;
  if (mode === undefined) return { ok: false, error: `the body must be {"mode": …}, one of ${APPROVAL_MODES.join(', ')}` };
  if (!isApprovalMode(mode)) return { ok: false, error: `unknown mode ${JSON.stringify(mode)}: "mode" must be one of ${APPROVAL_MODES.join(', ')}` };
  return { ok: true, value: mode };
}
