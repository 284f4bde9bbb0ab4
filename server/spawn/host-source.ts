// The spawn host's code (CommonJS, run with `node -e`: no file to find in a
// build or under tsx). It only starts programs and hands back what they
// printed; what to run, with which environment and checks, and every kill,
// stay with the server (a pid it reports is in the same pid namespace and
// belongs to the same user, so the server signals its group directly).
//
// Two operations, each answered by messages carrying the request's id:
// - `exec`: execFile, the whole output at the end (git).
// - `run`:  a tool's command (bash): `spawned` with the pid as soon as it
//   has one, `exit` when the program exits, `done` with the output once its
//   pipes close, or once a background job left holding them has been quiet
//   for `quietMs` (at most `maxAfterExitMs`); it keeps draining them after.
//   At most `memoryLimit` bytes are kept: a flood loses its middle.
// The host ends when the server does: its IPC channel closes.
export const HOST_SOURCE = `
const { execFile, spawn } = require('node:child_process');
const { StringDecoder } = require('node:string_decoder');

const reason = (err) => (err instanceof Error ? err.message : String(err));

// The server is gone (exited, crashed or killed): so is the host.
process.on('disconnect', () => process.exit(0));
process.on('message', (m) => (m.op === 'run' ? run(m) : exec(m)));
// A message that cannot be sent (the server went away meanwhile) is dropped.
const send = (message) => {
  if (process.connected) process.send(message, () => {});
};

function exec({ id, file, args, options }) {
  try {
    execFile(file, args, { ...options, encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      send({ id, stdout: stdout ?? '', stderr: stderr ?? '', code, ...(err && { message: err.message }) });
    });
  } catch (err) {
    send({ id, stdout: '', stderr: '', code: -1, message: reason(err) });
  }
}

function run({ id, file, args, options, memoryLimit, quietMs, maxAfterExitMs }) {
  const post = (message) => send({ id, ...message });
  const pieces = [];
  let size = 0;
  let dropped = 0;
  let done = false;
  const keep = (text, bytes) => {
    if (!text) return;
    pieces.push({ text, bytes });
    size += bytes;
    while (size > memoryLimit && pieces.length > 2) {
      const removed = pieces.splice(1, 1)[0];
      size -= removed.bytes;
      dropped += removed.bytes;
    }
  };
  const decoders = new Map();
  const finish = (startError, code) => {
    if (done) return;
    done = true;
    for (const decoder of decoders.values()) keep(decoder.end(), 0);
    const texts = pieces.map((p) => p.text);
    const text = dropped ? texts[0] + '\\n[... ' + dropped + ' bytes dropped ...]\\n' + texts.slice(1).join('') : texts.join('');
    post({ type: 'done', text, code, ...(startError !== undefined && { startError }) });
  };
  let child;
  try {
    // detached: setsid(), so the program leads a new session and process group.
    child = spawn(file, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    return finish(reason(err), 127);
  }
  if (child.pid !== undefined) post({ type: 'spawned', pid: child.pid });
  let lastOutputAt = Date.now();
  for (const stream of [child.stdout, child.stderr]) {
    // One decoder per stream: a character split across two reads is decoded whole.
    const decoder = new StringDecoder('utf8');
    decoders.set(stream, decoder);
    stream.on('data', (buf) => {
      lastOutputAt = Date.now();
      keep(decoder.write(buf), buf.length);
    });
  }
  child.on('error', (err) => finish(err.message, 127));
  child.on('close', (code, signal) => finish(undefined, code ?? (signal ? 128 : 1)));
  child.on('exit', (code, signal) => {
    post({ type: 'exit' });
    const exitedAt = Date.now();
    const poll = setInterval(() => {
      const now = Date.now();
      if (now - Math.max(lastOutputAt, exitedAt) < quietMs && now - exitedAt < maxAfterExitMs) return;
      clearInterval(poll);
      // Still open: a background job holds the pipes. Stop listening; keep draining so it never blocks on a full pipe.
      for (const stream of decoders.keys()) {
        stream.removeAllListeners('data');
        stream.resume();
        stream.unref?.();
      }
      finish(undefined, code ?? (signal ? 128 : 1));
    }, 50);
    child.once('close', () => clearInterval(poll));
  });
}
`;
