// `skein run` as a Unix tool (issue 25): piped stdin joins a task given as an
// argument; SIGTERM and SIGHUP act like Ctrl-C (the turn cancelled, its tool's
// processes gone, exit 143 / 129); a stdout nobody reads any more ends the
// run quietly with the turn cancelled (exit 141). Real CLI processes with
// their embedded server and the predictable model.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../server/cli/exit-codes.js';
import { embeddedServer, lastState, loggedEvents, sessionIdOf } from '../helpers/cli-session.js';
import { jsonEvents, runCli, startCli } from '../helpers/cli.js';
import { alive, pidIn, untilGone } from '../helpers/processes.js';
import { tempDir } from '../helpers/temp-dir.js';

const SLOW = { timeout: 300_000 };
const dirs = () => ({ SKEIN_DATA_DIR: tempDir('unix-data'), SKEIN_WORKDIR: tempDir('unix-work') });
/** A tool call that runs until it is killed, with its process's pid in sleep.pid. */
const LONG_TOOL = 'bash: sleep 1000 & echo $! > sleep.pid; wait';

describe('skein run: stdin', () => {
  it('git diff | skein run "review this diff": stdin is appended to the task in a <stdin> block', SLOW, async () => {
    const diff = 'diff --git a/x.ts b/x.ts\n+const added = 1;\n';
    const r = await runCli(['run', '--json', 'echo: review this diff'], dirs(), { input: diff });
    expect(r.code, r.stderr).toBe(EXIT.ok);
    const events = jsonEvents(r.stdout);
    const task = `echo: review this diff\n\n<stdin>\n${diff}</stdin>`;
    expect(events[0]).toMatchObject({ kind: 'user', text: task });
    // The model got it: `echo:` answers with everything after it, the diff included.
    expect(events.find((e) => e.kind === 'agent')).toMatchObject({ text: task.slice('echo: '.length) });
  });

  it('stdin alone is the task when none is given; empty stdin leaves the task alone', SLOW, async () => {
    const env = dirs();
    const alone = await runCli(['run', '--json'], env, { input: 'echo: from stdin\n' });
    expect(alone.code, alone.stderr).toBe(EXIT.ok);
    expect(jsonEvents(alone.stdout)[0]).toMatchObject({ kind: 'user', text: 'echo: from stdin' });
    const blank = await runCli(['run', '--json', 'echo: just this'], env, { input: '  \n' });
    expect(jsonEvents(blank.stdout)[0]).toMatchObject({ kind: 'user', text: 'echo: just this' });
    const none = await runCli(['run'], env, { input: '\n' });
    expect(none.code).toBe(EXIT.usage);
    expect(none.stderr).toContain('no task');
  });
});

describe('skein run: signals act like Ctrl-C', () => {
  for (const [signal, code] of [
    ['SIGTERM', EXIT.terminated],
    ['SIGHUP', EXIT.hangup],
  ] as const) {
    it(`${signal} cancels the turn, kills the tool's processes and exits ${code}`, SLOW, async () => {
      const env = dirs();
      const run = startCli(['run', '--json', LONG_TOOL], env);
      const sleeper = await pidIn(path.join(env.SKEIN_WORKDIR, 'sleep.pid'), 120_000);
      expect(alive(sleeper)).toBe(true);
      run.child.kill(signal);
      const r = await run.result;
      expect(r.code, r.stderr).toBe(code);
      expect(r.stderr).toContain(`skein: ${signal}: cancelling the turn`);
      await untilGone(sleeper);
      // Not left mid-turn: the log ends with the cancel and the session waits for the user again.
      const events = loggedEvents(env.SKEIN_DATA_DIR, sessionIdOf(r.stderr));
      expect(events.some((e) => e.kind === 'state' && e.to === 'Cancelled')).toBe(true);
      expect(lastState(events)).toBe('WaitingForUserInput');
    });
  }
});

describe('skein run: a closed stdout', () => {
  it('ends quietly with the turn cancelled and exit 141, the tool killed (| head)', SLOW, async () => {
    const env = dirs();
    const run = startCli(['run', '--json', LONG_TOOL], env);
    const sleeper = await pidIn(path.join(env.SKEIN_WORKDIR, 'sleep.pid'), 120_000);
    const id = sessionIdOf(run.stderr());
    // The reader goes away (as `head` does once it has its bytes) ...
    run.child.stdout!.destroy();
    // ... and the next event (a compaction asked for meanwhile is logged as queued) has nowhere to go.
    const server = await embeddedServer(env.SKEIN_DATA_DIR);
    const asked = await fetch(`${server.url}/api/sessions/${id}/compact`, { method: 'POST', headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }, body: '{}' });
    expect(asked.status).toBe(202);
    const r = await run.result;
    expect(r.code, r.stderr).toBe(EXIT.stdoutClosed);
    expect(r.stderr).not.toMatch(/EPIPE|Error|at /);
    await untilGone(sleeper);
    const events = loggedEvents(env.SKEIN_DATA_DIR, id);
    expect(events.some((e) => e.kind === 'state' && e.to === 'Cancelled')).toBe(true);
    expect(lastState(events)).toBe('WaitingForUserInput');
  });

  it('skein run --json "bash: seq 1 200000" | head -c 100: no stack trace, exit 0 or 141', SLOW, async () => {
    const env = dirs();
    const cli = ['--import', 'tsx', path.resolve('server/cli/bin.ts')].map((a) => `'${a}'`).join(' ');
    const r = await runCli(['-o', 'pipefail', '-c', `'${process.execPath}' ${cli} run --json 'bash: seq 1 200000' </dev/null | head -c 100`], env, { command: ['bash'] });
    expect(r.stdout).toHaveLength(100);
    expect(r.stderr).not.toMatch(/EPIPE|Error|at /);
    // Everything may fit in the pipe before head leaves (0); else the closed pipe is seen (141).
    expect([EXIT.ok, EXIT.stdoutClosed]).toContain(r.code);
  });
});

