// Plan mode's sandbox: bash runs under the same bubblewrap sandbox as
// SKEIN_SANDBOX=workspace (same filter, namespaces and hidden folders), with
// the project read-only as well and never a network, whatever SKEIN_SANDBOX
// and SKEIN_SANDBOX_NETWORK say. Such a command cannot change anything, so it
// runs without asking (Codex's read-only sandbox does the same); where
// bubblewrap cannot start, plan mode refuses bash and says why.
import { sandboxProblem, sandboxSettingsOf, type SandboxMode, type SandboxProblem, type SandboxSettings } from '../sandbox.js';

/** The read-only sandbox of a server's configuration (the data folder and SKEIN_SANDBOX_READ as the workspace sandbox has them). */
export function readOnlySandboxOf(config: { sandbox: SandboxMode; sandboxNetwork: boolean; dataDir: string; sandboxRead?: readonly string[] }): SandboxSettings {
  const base = sandboxSettingsOf({ ...config, sandbox: 'workspace' })!;
  return { ...base, network: false, readOnlyProject: true };
}

/** bwrap programs (and the PATH they were found on) that started a read-only sandbox here. */
const working = new Set<string>();

/**
 * What keeps the read-only sandbox from starting, or nothing. A success is
 * remembered (a probe per command would double its cost); a failure is not,
 * so bubblewrap installed later is found without a restart. Safety never
 * rests on this answer: a bwrap that fails later runs nothing.
 */
export async function readOnlySandboxProblem(settings: SandboxSettings, workDir: string): Promise<SandboxProblem | undefined> {
  const key = `${settings.binary ?? 'bwrap'}\0${process.env.PATH ?? ''}`;
  if (working.has(key)) return undefined;
  const problem = await sandboxProblem({ ...settings, network: false, readOnlyProject: true }, workDir);
  if (!problem) working.add(key);
  return problem;
}
