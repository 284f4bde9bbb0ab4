// A recording proxy between skein and a real llama-server, for the llama.cpp
// rows of the mismatch bench. It forwards every request unchanged and notes,
// for each chat completion, what the server itself answered: the status, the
// error type, finish_reason and usage (read from the JSON body or from the
// SSE stream), and which user messages each turn request carries as
// themselves. The bench counts from these records, not from what skein says
// about itself, so a cut answer or a folded question skein missed is still seen.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One chat completion as the server answered it. */
export interface Exchange {
  /** `agent`: a turn's request; `summary`: skein's summariser (in place or over a transcript). */
  purpose: 'agent' | 'summary';
  /** Date.now() when the request arrived and when the last byte of the answer was passed on. */
  started: number;
  ended: number;
  status: number;
  /** The max_tokens (or max_completion_tokens) skein asked for. */
  maxTokens?: number;
  stream: boolean;
  /** error.type of a non-2xx body, e.g. exceed_context_size_error. */
  errorType?: string;
  finishReason?: string;
  promptTokens?: number;
  completionTokens?: number;
  /** A turn request's user-role texts the model reads as themselves (not inside a <compacted-history> summary). */
  userTexts?: string[];
}

export interface RecordingProxy {
  /** http://127.0.0.1:<port>: the server's root (its OpenAI-compatible API is under /v1). */
  url: string;
  exchanges: Exchange[];
  /** Pieces of chat answers passed on so far (finished or not): a turn still being written moves it. */
  streamed(): number;
  close(): Promise<void>;
}

type Content = string | { type?: string; text?: string }[] | null | undefined;
const textOf = (c: Content): string => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((p) => p.text ?? '').join('') : '');

/**
 * A turn or a summary, by the request's shape, not by skein's prompt wording:
 * skein streams every turn's answer to the user (server/agent/model-call.ts)
 * and never a summary (server/compaction/summarizer.ts calls the provider
 * without stream handlers). test/unit/llama-proxy.test.ts pins this on skein's
 * real calls.
 */
export function purposeOf(body: { stream?: unknown }): Exchange['purpose'] {
  return body.stream === true ? 'agent' : 'summary';
}

/** The user-role texts of a request, less summaries: what the model reads as something the user said. */
function readUserTexts(body: { messages?: { role: string; content: Content }[] }): string[] {
  return (body.messages ?? []).filter((m) => m.role === 'user').map((m) => textOf(m.content)).filter((t) => !t.startsWith('<compacted-history>'));
}

/** finish_reason and usage out of a JSON answer or an SSE stream (the usage chunk of include_usage has choices []). */
function readAnswer(text: string, stream: boolean, into: Exchange): void {
  const bodies: any[] = [];
  if (stream) {
    for (const line of text.split('\n')) {
      if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
      try {
        bodies.push(JSON.parse(line.slice(6)));
      } catch {
        // a line cut by a dropped connection
      }
    }
  } else {
    try {
      bodies.push(JSON.parse(text));
    } catch {
      return;
    }
  }
  for (const b of bodies) {
    if (b?.error) into.errorType = b.error.type ?? String(b.error.code ?? 'error');
    const finish = b?.choices?.[0]?.finish_reason;
    if (finish) into.finishReason = finish;
    if (b?.usage) {
      into.promptTokens = b.usage.prompt_tokens;
      into.completionTokens = b.usage.completion_tokens;
    }
  }
}

const HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const exchanges: Exchange[] = [];
  let pieces = 0;
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const started = Date.now();
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP.has(k) && typeof v === 'string') headers[k] = v;
    const chat = req.method === 'POST' && /\/chat\/completions$/.test(req.url ?? '');
    let body: any = {};
    if (chat) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = {};
      }
    }
    const abort = new AbortController();
    res.on('close', () => abort.abort()); // skein gave up (a timeout or a cancel): stop the generation too
    let upstream: Response;
    try {
      upstream = await fetch(target + req.url, { method: req.method, headers, body: raw.length ? raw : undefined, signal: abort.signal });
    } catch (e) {
      res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `proxy: ${String(e)}` } }));
      return;
    }
    const out: Record<string, string> = {};
    upstream.headers.forEach((v, k) => {
      if (!HOP.has(k) && k !== 'content-encoding') out[k] = v;
    });
    res.writeHead(upstream.status, out);
    let text = '';
    try {
      for await (const c of upstream.body ?? []) {
        if (chat) {
          text += Buffer.from(c as Uint8Array).toString('utf8');
          pieces++;
        }
        res.write(c);
      }
    } catch {
      // the client went away mid-stream
    }
    if (chat) {
      const x: Exchange = { purpose: purposeOf(body), started, ended: Date.now(), status: upstream.status, stream: body.stream === true };
      if (x.purpose === 'agent') x.userTexts = readUserTexts(body);
      const max = body.max_tokens ?? body.max_completion_tokens;
      if (typeof max === 'number') x.maxTokens = max;
      readAnswer(text, x.stream && upstream.status < 400, x);
      exchanges.push(x);
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    streamed: () => pieces,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
