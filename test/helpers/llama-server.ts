// llama.cpp's own llama-server for the tests: the binary built from the
// llama.cpp source that the npm package node-llama-cpp carries
// (scripts/llama-server/build.mjs; cached per machine, `npm test`'s pretest
// builds it), tiny random-weight models with real tokenizers
// (scripts/llama-server/tiny-model.py), and a server started on a free port.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { ensureLlamaServerBuild, ensureTinyModelFile, type Vocab } from '../../scripts/llama-server/build.mjs';
import { trackChild } from './run-registry.js';
import { until } from './until.js';

export type { Vocab };

/** The llama-server binary (SKEIN_TEST_LLAMA_SERVER, else the cached build; builds it if missing). */
export async function ensureLlamaServer(): Promise<string> {
  return (await ensureLlamaServerBuild()).binary;
}

/** The llama.cpp release the binary and the models come from (e.g. "v0.5.0"). */
export async function llamaRelease(): Promise<string> {
  return (await ensureLlamaServerBuild()).release;
}

/**
 * A tiny llama-architecture GGUF (64 wide, 2 layers, 4 heads, random weights) with the tokenizer of
 * llama.cpp's models/ggml-vocab-<vocab>.gguf and Qwen2.5's chat template with tools.
 * `endless`: end of generation never wins, so a reply runs until max_tokens or the context is full;
 * otherwise a reply usually stops after some tens of tokens (random sampling, llama.cpp's defaults).
 */
export function ensureTinyModel(opts: { vocab: Vocab; endless?: boolean }): Promise<string> {
  return ensureTinyModelFile(opts);
}

export interface LlamaServer {
  /** http://127.0.0.1:<port> (the OpenAI-compatible API is under /v1). */
  url: string;
  port: number;
  /** Everything the server printed so far (its log goes to stderr). */
  log(): string;
  /** SIGTERM, then waits for the exit (SIGKILL after 5 s). */
  close(): Promise<void>;
  /** SIGKILL, and waits for the exit. */
  kill(): Promise<void>;
}

export interface LlamaServerOptions {
  model: string;
  /** The context, -c (llama.cpp: 0 means the model's training context). */
  ctxSize: number;
  /** More flags, e.g. ['--reasoning-format', 'none']. */
  extraArgs?: string[];
  /** Waiting for /health to answer 200 (loading the model included). */
  readyTimeoutMs?: number;
  /** The port to listen on (a server started again where a killed one was); a free one if not given. */
  port?: number;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts `llama-server -m <model> -c <ctx> --host 127.0.0.1 --port <free> --jinja -np 1 --no-webui`
 * (one slot, so n_ctx is the whole window of the one conversation; one thread: the tests share two cores)
 * and waits until GET /health answers 200. A server that exits first fails with its log.
 */
export async function startLlamaServer(opts: LlamaServerOptions): Promise<LlamaServer> {
  const binary = await ensureLlamaServer();
  const port = opts.port ?? (await freePort());
  const args = ['-m', opts.model, '-c', String(opts.ctxSize), '--host', '127.0.0.1', '--port', String(port), '--jinja', '-np', '1', '--no-webui', '-t', '1', '-tb', '1', ...(opts.extraArgs ?? [])];
  const child = trackChild(spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] }), 'llama-server');
  let output = '';
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-200_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let spawnError: Error | undefined;
  child.on('error', (e) => (spawnError = e));
  const gone = exited(child);
  const url = `http://127.0.0.1:${port}`;
  const stop = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    if (signal === 'SIGKILL') return gone;
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await gone;
    clearTimeout(timer);
  };
  try {
    await until(
      async () => {
        if (spawnError) throw new Error(`llama-server could not start: ${spawnError.message}`);
        if (child.exitCode !== null || child.signalCode !== null) {
          throw new Error(`llama-server exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${args.join(' ')}\n${output.slice(-4000)}`);
        }
        try {
          const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) });
          await res.body?.cancel();
          return res.status === 200; // 503 {"error":{"code":503,"message":"Loading model",...}} while loading
        } catch {
          return false; // not listening yet
        }
      },
      `llama-server on ${url} to answer /health with 200`,
      opts.readyTimeoutMs ?? 60_000,
    );
  } catch (e) {
    await stop('SIGKILL');
    throw e;
  }
  return { url, port, log: () => output, close: () => stop('SIGTERM'), kill: () => stop('SIGKILL') };
}
