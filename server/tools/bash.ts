// bash: runs a command in the working folder, as the leader of its own session
// and process group, with a scrubbed environment (see env.ts). A timeout or
// cancel kills everything it started; what it leaves running in the
// background is killed when the server stops (see processes.ts); under
// SKEIN_SANDBOX=workspace it ends with the command (see sandbox.ts).
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
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

interface Piece {
  text: string;
  bytes: number;
}

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
      const child = spawn(file, args, {
        cwd: ctx.workDir,
        // detached: setsid(), so bash leads a new session and process group.
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...toolEnvironment(process.env, ctx.envAllow), [RUN_MARKER]: runId },
      });
      if (child.pid !== undefined) trackGroup(child.pid, runId);
      const pieces: Piece[] = [];
      let size = 0;
      let dropped = 0;
      // Keep memory bounded on a flood: past the limit, drop from the middle (head and tail survive).
      const keep = (text: string, bytes: number) => {
        if (!text) return;
        pieces.push({ text, bytes });
        size += bytes;
        while (size > MEMORY_LIMIT_BYTES && pieces.length > 2) {
          const removed = pieces.splice(1, 1)[0]!;
          size -= removed.bytes;
          dropped += removed.bytes;
        }
      };
      // One decoder per stream: a character split across two reads is decoded whole.
      const decoders = new Map<Readable, StringDecoder>();
      let lastOutputAt = Date.now();
      const collect = (stream: Readable) => {
        const decoder = new StringDecoder('utf8');
        decoders.set(stream, decoder);
        stream.on('data', (buf: Buffer) => {
          lastOutputAt = Date.now();
          keep(decoder.write(buf), buf.length);
        });
      };
      collect(child.stdout);
      collect(child.stderr);
      let killedFor: string | undefined;
      const kill = (why: string) => {
        killedFor ??= why;
        if (child.pid !== undefined) killRun(child.pid, runId);
      };
      const timer = setTimeout(() => kill(`timed out after ${ctx.bashTimeoutMs} ms`), ctx.bashTimeoutMs);
      const onAbort = () => kill('cancelled');
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      child.on('error', (err) => finish(`failed to start: ${err.message}`, 127));
      child.on('close', (code, signal) => finish(undefined, code ?? (signal ? 128 : 1)));
      child.on('exit', (code, signal) => {
        // bwrap is gone, and with it every mount of this sandbox: its stand-ins may go.
        release();
        const exitedAt = Date.now();
        const poll = setInterval(() => {
          const now = Date.now();
          if (now - Math.max(lastOutputAt, exitedAt) < AFTER_EXIT_QUIET_MS && now - exitedAt < AFTER_EXIT_MAX_MS) return;
          clearInterval(poll);
          // Still open: a background job holds the pipes. Stop listening; keep draining so it never blocks on a full pipe.
          for (const stream of decoders.keys()) {
            stream.removeAllListeners('data');
            stream.resume();
            (stream as Readable & { unref?: () => void }).unref?.();
          }
          finish(undefined, code ?? (signal ? 128 : 1));
        }, 50);
        child.once('close', () => clearInterval(poll));
      });
      let done = false;
      function finish(startError: string | undefined, code: number) {
        if (done) return;
        done = true;
        release();
        clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onAbort);
        for (const decoder of decoders.values()) keep(decoder.end(), 0);
        const texts = pieces.map((p) => p.text);
        const text = dropped ? `${texts[0] ?? ''}\n[... ${dropped} bytes dropped ...]\n${texts.slice(1).join('')}` : texts.join('');
        const status = startError ?? (killedFor ? `killed: ${killedFor}` : `exit code: ${code}`);
        // The whole output: the agent caps what the model sees and saves the rest.
        resolve({ output: `${status}\n${text}`.trimEnd(), isError: code !== 0 || !!killedFor || !!startError });
      }
    });
  },
};
