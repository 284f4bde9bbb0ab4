// Group commit seen from a session: nobody is shown an event before it is on
// stable storage, acknowledgements wait for it, and replay plus live delivery
// still give every event exactly once, in order.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { Session } from '../../server/agent/session.js';
import { EventLog } from '../../server/store/event-log.js';
import { tempDir } from '../helpers/temp-dir.js';

afterEach(() => vi.restoreAllMocks());

/** A log whose fdatasyncs wait until release() is called. */
function heldLog() {
  const log = EventLog.create(path.join(tempDir('durable'), 's.jsonl'), { skein: 1, session: 's', createdAt: new Date(0).toISOString(), model: 'predictable' });
  const logFd = (log as unknown as { fd: number }).fd;
  const held: (() => void)[] = [];
  const real = fs.fdatasync;
  vi.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
    if (fd === logFd) held.push(() => real(fd, cb));
    else real(fd, cb);
  }) as typeof fs.fdatasync);
  const release = async () => {
    await vi.waitFor(() => expect(held.length).toBeGreaterThan(0));
    held.shift()!();
  };
  return { log, release, held };
}

describe('a session over a group-committed log', () => {
  it('shows an event to subscribers, REST and late joiners only once it is durable', async () => {
    const { log, release } = heldLog();
    const session = new Session('s', log, 'predictable');
    const seen: number[] = [];
    session.subscribe(0, (e) => seen.push(e.seq));
    const observed: number[] = [];
    session.observe((e) => observed.push(e.seq));
    session.append({ kind: 'user', text: 'one' });
    session.append({ kind: 'user', text: 'two' });
    let acked = false;
    void session.durable().then(() => (acked = true));
    expect(observed).toEqual([1, 2]); // in-process observers see it at once
    expect(seen).toEqual([]);
    expect(session.events(0)).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(acked).toBe(false);
    await release();
    await vi.waitFor(() => expect(seen).toEqual([1, 2]));
    await vi.waitFor(() => expect(acked).toBe(true));
    expect(session.events(0).map((e) => e.seq)).toEqual([1, 2]);
    log.close();
  });

  it('a subscriber joining while a group is in flight gets each event exactly once', async () => {
    const { log, release } = heldLog();
    const session = new Session('s', log, 'predictable');
    session.append({ kind: 'user', text: 'one' });
    await release();
    await vi.waitFor(() => expect(session.events(0)).toHaveLength(1));
    session.append({ kind: 'user', text: 'two' });
    const late: SkeinEvent[] = [];
    session.subscribe(0, (e) => late.push(e)); // joins with 2 written, not durable
    session.append({ kind: 'user', text: 'three' });
    await release();
    await vi.waitFor(() => expect(late.map((e) => e.seq)).toEqual([1, 2, 3]));
    log.close();
  });
});

describe('subscribe(since) with events not yet durable', () => {
  it('never hands a subscriber an event at or before the seq it asked to start after', async () => {
    const { log, release } = heldLog();
    const session = new Session('s', log, 'predictable');
    session.append({ kind: 'user', text: 'one' });
    session.append({ kind: 'user', text: 'two' });
    // Subscribes after seq 2 while 1 and 2 still wait for their fdatasync (as an approval waits after its request).
    const got: number[] = [];
    session.subscribe(2, (e) => got.push(e.seq));
    session.append({ kind: 'user', text: 'three' });
    await release();
    await vi.waitFor(() => expect(session.events(0)).toHaveLength(3));
    await new Promise((r) => setImmediate(r));
    if (log.durableSeq < 3) await release();
    await vi.waitFor(() => expect(got).toEqual([3]));
    log.close();
  });
});
