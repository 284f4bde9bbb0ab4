// bash: runs a command in the working folder, as the leader of its own session
// and process group, with a scrubbed environment (see env.ts). A timeout or
// cancel kills everything it started; what it leaves running in the
// background is killed when the server stops (see processes.ts); under
// SKEIN_SANDBOX=workspace it ends with the command (see sandbox.ts).
import { runOffLoop } from '../spawn/off-loop.js';
import { toolEnvironment } from './env.js';
import { killRun, newRunId, RUN_MARKER, trackGroup } from './processes.js';
import { sandboxCommand } from './sandbox.js';
import { stringField, type Tool } from './tool.js';

/** Output kept in memory per command, in bytes; a flood beyond it loses its middle. */
export const MEMORY_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * After bash exits, a background job (`server &`) may hold its output open:
 * wait this long for more output, then return and leave the job running.
 */
const AFTER_EXIT_QUIET_MS = 250;
const AFTER_EXIT_MAX_MS = 2000;

export const bashTool: Tool = {
  spec: {
    name: 'bash',
    description:
      'Run a bash command in the working folder. stdout and stderr are returned together, with the exit code on the first line. Long output is capped (head and tail kept; the full output is saved and readable with read_file). The result comes when bash exits; a background job (`cmd > log 2>&1 &`) keeps running until the server stops. Secrets are not in the environment.',
    inputSchema: {
      type: 'object',
      properties: { command: { type: 'string', description: 'The command to run' } },
      required: ['command'],
    },
  },
  run(input, ctx) {
    const command = stringField(input, 'command');
    return new Promise((resolve) => {
      const runId = newRunId();
      // SKEIN_SANDBOX=workspace: the same bash, inside bubblewrap (see sandbox.ts).
      let launch;
      try {
        launch = ctx.sandbox ? sandboxCommand(ctx.sandbox, ctx.workDir, ['bash', '-c', command]) : { file: 'bash', args: ['-c', command], release() {} };
      } catch (err) {
        return resolve({ output: `failed to start: the sandbox could not be set up (${(err as Error).message})`, isError: true });
      }
      const { file, args, release } = launch;
      let pid: number | undefined;
      let killedFor: string | undefined;
      const kill = (why: string) => {
        killedFor ??= why;
        if (pid !== undefined) killRun(pid, runId);
      };
      const timer = setTimeout(() => kill(`timed out after ${ctx.bashTimeoutMs} ms`), ctx.bashTimeoutMs);
      const onAbort = () => kill('cancelled');
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      // Started by the spawn host (spawn/off-loop.ts): a program's start holds no event loop.
      const outcome = runOffLoop(
        {
          file,
          args,
          cwd: ctx.workDir,
          env: { ...toolEnvironment(process.env, ctx.envAllow), [RUN_MARKER]: runId },
          memoryLimit: MEMORY_LIMIT_BYTES,
          quietMs: AFTER_EXIT_QUIET_MS,
          maxAfterExitMs: AFTER_EXIT_MAX_MS,
        },
        {
          spawned(started) {
            pid = started;
            trackGroup(started, runId);
            // A timeout or cancel that came before the pid did.
            if (killedFor !== undefined) killRun(started, runId);
          },
          // bwrap is gone, and with it every mount of this sandbox: its stand-ins may go.
          exited: release,
        },
      );
      void outcome.then(({ text, code, startError }) => {
        release();
        clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onAbort);
        // The worker died under a running program: nothing reads it any more.
        if (startError !== undefined && pid !== undefined) killRun(pid, runId);
        const status = startError !== undefined ? `failed to start: ${startError}` : killedFor ? `killed: ${killedFor}` : `exit code: ${code}`;
        // The whole output: the agent caps what the model sees and saves the rest.
        resolve({ output: `${status}\n${text}`.trimEnd(), isError: code !== 0 || !!killedFor || startError !== undefined });
      });
    });
  },
};
