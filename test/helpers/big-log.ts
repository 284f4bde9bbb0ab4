// A big session log written quickly (tens of MB of whole turns: a user
// message, a tool call with a long output, an answer), for the tests and the
// benchmark of reads off the event loop. It ends between turns.
import fs from 'node:fs';
import path from 'node:path';

export function writeBigLog(dataDir: string, id: string, megabytes: number): { file: string; events: number } {
  const file = path.join(dataDir, 'sessions', `${id}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, JSON.stringify({ skein: 1, session: id, createdAt: '2025-01-01T00:00:00.000Z', model: 'predictable' }) + '\n');
  const output = 'drwxr-xr-x  2 user user 4096 Jan  1 00:00 some-file-name.txt\n'.repeat(30);
  let seq = 0;
  let bytes = 0;
  let chunk = '';
  const start = Date.parse('2025-01-02T00:00:00Z');
  while (bytes < megabytes * 1024 * 1024) {
    const turn = [
      { kind: 'user', text: `please list the files, round ${seq} ünïcödé ✓` },
      { kind: 'state', from: 'WaitingForUserInput', to: 'SendingToLLM', reason: 'user_message' },
      { kind: 'tool_call', callId: `c${seq}`, name: 'bash', input: { command: 'ls -la' } },
      { kind: 'tool_result', callId: `c${seq}`, name: 'bash', output, isError: false, durationMs: 12 },
      { kind: 'agent', text: `here they are ${'and more '.repeat(20)}`, model: 'predictable', endOfTurn: true },
      { kind: 'state', from: 'SendingToLLM', to: 'WaitingForUserInput', reason: 'end_of_turn' },
    ];
    for (const event of turn) {
      seq++;
      const line = JSON.stringify({ seq, ts: new Date(start + seq * 1000).toISOString(), ...event }) + '\n';
      chunk += line;
      bytes += Buffer.byteLength(line);
    }
    if (chunk.length > 1 << 20) {
      fs.writeSync(fd, chunk);
      chunk = '';
    }
  }
  fs.writeSync(fd, chunk);
  fs.closeSync(fd);
  return { file, events: seq };
}
