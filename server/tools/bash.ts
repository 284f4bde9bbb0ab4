// bash: runs a command in the working folder, in its own process group so a
// timeout or cancel kills everything it started.
import { spawn } from 'node:child_process';
import { stringField, type Tool } from './tool.js';

/** Output kept in memory per command; a flood beyond it loses its middle. */
const MEMORY_LIMIT_BYTES = 16 * 1024 * 1024;

export const bashTool: Tool = {
  spec: {
    name: 'bash',
    description:
      'Run a bash command in the working folder. stdout and stderr are returned together, with the exit code on the first line. Long output is capped (head and tail kept; the full output is saved and readable with read_file).',
    inputSchema: {
      type: 'object',
      properties: { command: { type: 'string', description: 'The command to run' } },
      required: ['command'],
    },
  },
  run(input, ctx) {
    const command = stringField(input, 'command');
    return new Promise((resolve) => {
      const child = spawn('bash', ['-c', command], {
        cwd: ctx.workDir,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const chunks: string[] = [];
      let size = 0;
      let dropped = 0;
      // Keep memory bounded on a flood: past the limit, drop from the middle (head and tail survive).
      const collect = (buf: Buffer) => {
        chunks.push(buf.toString('utf8'));
        size += buf.length;
        while (size > MEMORY_LIMIT_BYTES && chunks.length > 2) {
          const removed = chunks.splice(1, 1)[0]!;
          size -= removed.length;
          dropped += removed.length;
        }
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      let killedFor: string | undefined;
      const kill = (why: string) => {
        killedFor ??= why;
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* already gone */
        }
      };
      const timer = setTimeout(() => kill(`timed out after ${ctx.bashTimeoutMs} ms`), ctx.bashTimeoutMs);
      const onAbort = () => kill('cancelled');
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      child.on('error', (err) => finish(`failed to start: ${err.message}`, 127));
      child.on('close', (code, signal) => finish(undefined, code ?? (signal ? 128 : 1)));
      let done = false;
      function finish(startError: string | undefined, code: number) {
        if (done) return;
        done = true;
        clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onAbort);
        let text = chunks.join('');
        if (dropped) text = `${chunks[0] ?? ''}\n[... ${dropped} characters dropped ...]\n${chunks.slice(1).join('')}`;
        const status = startError ?? (killedFor ? `killed: ${killedFor}` : `exit code: ${code}`);
        // The whole output: the agent caps what the model sees and saves the rest.
        resolve({ output: `${status}\n${text}`.trimEnd(), isError: code !== 0 || !!killedFor || !!startError });
      }
    });
  },
};
