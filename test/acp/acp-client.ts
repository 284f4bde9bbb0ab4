// Drives `skein acp` as an editor would: the CLI in a child process, the ACP
// SDK's own client on its stdin/stdout. Every session/update is kept; a
// permission request is answered by `answerPermission` (set per test).
import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { client, ndJsonStream, type ClientConnection, type RequestPermissionRequest, type RequestPermissionResponse, type SessionNotification } from '@agentclientprotocol/sdk';
import { SOURCE_CLI } from '../helpers/cli.js';

export interface AcpRun {
  child: ChildProcess;
  connection: ClientConnection;
  updates: SessionNotification[];
  permissions: RequestPermissionRequest[];
  answerPermission: (request: RequestPermissionRequest, signal: AbortSignal) => Promise<RequestPermissionResponse>;
  stderr: () => string;
  /** Every byte the agent wrote on stdout parsed as JSON-RPC (a stray log line fails). */
  stdoutLines: () => unknown[];
  exited: Promise<number | null>;
  close(): Promise<number | null>;
}

export function startAcp(env: Record<string, string | undefined>, args: string[] = [], options: { cwd?: string } = {}): AcpRun {
  const [bin, ...pre] = SOURCE_CLI;
  const base = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_OPTIONS: process.env.NODE_OPTIONS };
  const child = spawn(bin!, [...pre, 'acp', ...args], { env: { ...base, ...env }, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const run: AcpRun = {
    child,
    connection: undefined as unknown as ClientConnection,
    updates: [],
    permissions: [],
    answerPermission: async () => ({ outcome: { outcome: 'cancelled' } }),
    stderr: () => stderr,
    stdoutLines: () =>
      stdout
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as unknown),
    exited,
    async close() {
      run.connection.close();
      child.stdin!.end();
      return exited;
    },
  };
  const app = client({ name: 'skein-test' })
    .onNotification('session/update', ({ params }) => {
      run.updates.push(params);
    })
    .onRequest('session/request_permission', ({ params, signal }) => {
      run.permissions.push(params);
      return run.answerPermission(params, signal);
    });
  const stream = ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>);
  run.connection = app.connect(stream);
  return run;
}

/** The updates of one session, by kind. */
export function updatesOf(run: AcpRun, sessionId: string, kind?: string): SessionNotification['update'][] {
  return run.updates.filter((u) => u.sessionId === sessionId && (kind === undefined || u.update.sessionUpdate === kind)).map((u) => u.update);
}

/** The agent's text of a session (its message chunks joined). */
export function agentText(run: AcpRun, sessionId: string): string {
  return updatesOf(run, sessionId, 'agent_message_chunk')
    .map((u) => (u as { content: { type: string; text?: string } }).content.text ?? '')
    .join('');
}
