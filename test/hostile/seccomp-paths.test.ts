// Every decision of the seccomp filter (server/tools/sandbox/seccomp.ts), made
// for real: a python3 probe (ctypes, raw syscall(2); nothing compiled) runs
// inside the real sandbox (bubblewrap, --seccomp) and makes each call. Each
// call also runs on the host, unconfined: the control that shows the answer
// in the sandbox is the filter's and not the kernel's. The architecture's
// own syscall numbers are written out here, not taken from the filter, so a
// wrong number in the filter fails too. The probe forks per call, so a call
// that works (clone, unshare on the host) changes nothing for the next.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bashTool } from '../../server/tools/bash.js';
import { killAllToolProcesses } from '../../server/tools/processes.js';
import { seccompFilter } from '../../server/tools/sandbox/seccomp.js';
import { tempDir } from '../helpers/server.js';

afterAll(() => killAllToolProcesses());

const EPERM = 1;
const ENOSYS = 38;
const AF_UNIX = 1;
const AF_INET = 2;
const SOCK_STREAM = 1;
const SIGCHLD = 17;
const CLONE_NEWUSER = 0x10000000;
const CLONE_NEWUTS = 0x04000000;

/** Per architecture, from the kernel's tables (x86_64: syscall_64.tbl; aarch64: the generic unistd.h). */
const NUMBERS = {
  x64: { getpid: 39, socket: 41, socketpair: 53, clone: 56, unshare: 272, io_uring_setup: 425, clone3: 435 },
  arm64: { getpid: 172, socket: 198, socketpair: 199, clone: 220, unshare: 97, io_uring_setup: 425, clone3: 435 },
} as const;
const nr = NUMBERS[process.arch as keyof typeof NUMBERS];

/** The probe: argv[1] is a JSON list of [name, kind, nr, ...args]; prints one JSON object of results. */
const PROBE = String.raw`
import ctypes, json, mmap, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
BUF = ctypes.create_string_buffer(256)  # socketpair's int[2], io_uring_setup's params

def call(kind, number, args):
    if kind == 'i386':
        # mov eax, number; int 0x80; ret: the 32-bit ABI from a 64-bit process (raw result: -errno on failure).
        code = b'\xb8' + number.to_bytes(4, 'little') + b'\xcd\x80\xc3'
        page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        page.write(code)
        fn = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
        r = fn()
        return {'ret': r, 'errno': -r if r < 0 else 0}
    args = [ctypes.addressof(BUF) if a == 'BUF' else a for a in args]
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(number), *[ctypes.c_long(a) for a in args])
    if kind == 'clone' and r == 0:
        os._exit(0)  # the child of a clone that worked
    if kind == 'clone' and r > 0:
        os.waitpid(r, 0)
    return {'ret': r, 'errno': ctypes.get_errno() if r == -1 else 0}

out = {}
for name, kind, number, *args in json.loads(sys.argv[1]):
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        os.write(wr, json.dumps(call(kind, number, args)).encode())
        os._exit(0)
    os.close(wr)
    text = os.read(rd, 4096).decode()
    _, status = os.waitpid(pid, 0)
    out[name] = json.loads(text) if text else {'signal': os.WTERMSIG(status) if os.WIFSIGNALED(status) else None}
print(json.dumps(out))
`;

type Call = [name: string, kind: 'syscall' | 'clone' | 'i386', nr: number, ...args: (number | 'BUF')[]];
type Result = { ret: number; errno: number } | { signal: number | null };

/** The python the sandbox can reach: /usr is mounted in it, a home folder's (pyenv) is not. */
const PYTHON = '/usr/bin/python3';

function probeDir(): string {
  const dir = tempDir('seccomp');
  fs.writeFileSync(path.join(dir, 'probe.py'), PROBE);
  return dir;
}

/** Each call made inside the real sandbox, through the bash tool as the model would run it. */
async function inSandbox(dir: string, calls: Call[]): Promise<Record<string, Result>> {
  const { output } = await bashTool.run(
    { command: `${PYTHON} probe.py '${JSON.stringify(calls)}'` },
    { workDir: dir, signal: new AbortController().signal, bashTimeoutMs: 60_000, outputLimit: 100_000, sandbox: { network: false, dataDir: tempDir('seccomp-data') } },
  );
  expect(output, output).toMatch(/^exit code: 0\n\{/);
  return JSON.parse(output.slice(output.indexOf('\n') + 1)) as Record<string, Result>;
}

/** The same calls on the host, unconfined (the controls). */
function onHost(dir: string, calls: Call[]): Record<string, Result> {
  return JSON.parse(execFileSync(PYTHON, ['probe.py', JSON.stringify(calls)], { cwd: dir, encoding: 'utf8' })) as Record<string, Result>;
}

const fails = (errno: number) => ({ ret: -1, errno });

describe.runIf(nr !== undefined)(`the seccomp filter, each rule inside the real sandbox (${process.arch})`, () => {
  // Every call of the table: what the filter must answer in the sandbox, and what the host answers without it.
  const CALLS: { call: Call; sandbox: (r: Result) => void; host: (r: Result) => void }[] = [
    { call: ['getpid (allowed: the default)', 'syscall', nr.getpid], sandbox: (r) => expect(r).toMatchObject({ errno: 0 }), host: (r) => expect(r).toMatchObject({ errno: 0 }) },
    { call: ['socket(AF_UNIX): EPERM', 'syscall', nr.socket, AF_UNIX, SOCK_STREAM, 0], sandbox: (r) => expect(r).toEqual(fails(EPERM)), host: (r) => expect(r).toMatchObject({ errno: 0 }) },
    // The kernel reads an int: high bits above AF_UNIX are still AF_UNIX, and the filter (low half only) must see it so.
    { call: ['socket(AF_UNIX | 1 << 32): EPERM', 'syscall', nr.socket, AF_UNIX + 2 ** 32, SOCK_STREAM, 0], sandbox: (r) => expect(r).toEqual(fails(EPERM)), host: (r) => expect(r).toMatchObject({ errno: 0 }) },
    { call: ['socket(AF_INET) (allowed)', 'syscall', nr.socket, AF_INET, SOCK_STREAM, 0], sandbox: (r) => expect(r).toMatchObject({ errno: 0 }), host: (r) => expect(r).toMatchObject({ errno: 0 }) },
    { call: ['socketpair(AF_UNIX) (allowed)', 'syscall', nr.socketpair, AF_UNIX, SOCK_STREAM, 0, 'BUF'], sandbox: (r) => expect(r).toEqual({ ret: 0, errno: 0 }), host: (r) => expect(r).toEqual({ ret: 0, errno: 0 }) },
    { call: ['clone(CLONE_NEWUSER): EPERM', 'clone', nr.clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0], sandbox: (r) => expect(r).toEqual(fails(EPERM)), host: (r) => expect(r).toMatchObject({ errno: 0 }) },
    { call: ['clone(SIGCHLD) (allowed: a fork)', 'clone', nr.clone, SIGCHLD, 0, 0, 0, 0], sandbox: (r) => expect(r).toMatchObject({ errno: 0 }), host: (r) => expect(r).toMatchObject({ errno: 0 }) },
    { call: ['unshare(CLONE_NEWUSER): EPERM', 'syscall', nr.unshare, CLONE_NEWUSER], sandbox: (r) => expect(r).toEqual(fails(EPERM)), host: (r) => expect(r).toEqual({ ret: 0, errno: 0 }) },
    // Without CLONE_NEWUSER the filter lets unshare through (flags 0 always works; whether another namespace may be made
    // is the kernel's call on the process's capabilities, so it is checked on the program below, not here).
    { call: ['unshare(0) (allowed)', 'syscall', nr.unshare, 0], sandbox: (r) => expect(r).toEqual({ ret: 0, errno: 0 }), host: (r) => expect(r).toEqual({ ret: 0, errno: 0 }) },
    { call: ['io_uring_setup: EPERM', 'syscall', nr.io_uring_setup, 1, 'BUF'], sandbox: (r) => expect(r).toEqual(fails(EPERM)), host: (r) => expect(r).not.toEqual(fails(EPERM)) },
    // Its arguments are a struct in memory; ENOSYS (not EPERM) makes the C library fall back to clone.
    { call: ['clone3: ENOSYS', 'syscall', nr.clone3, 0, 0], sandbox: (r) => expect(r).toEqual(fails(ENOSYS)), host: (r) => expect(r).not.toEqual(fails(ENOSYS)) },
  ];

  it.each(CALLS.map((c) => [c.call[0], c] as const))('%s', async (_, { call, sandbox, host }) => {
    const dir = probeDir();
    const [inside, outside] = [(await inSandbox(dir, [call]))[call[0]]!, onHost(dir, [call])[call[0]]!];
    sandbox(inside);
    host(outside);
  }, 60_000);
});

// x32 and i386 exist only on x86_64: an aarch64 machine has no such ABI to call (its own 32-bit ABI is not in
// the arch check either, and it cannot be reached from a 64-bit process without a 32-bit program).
describe.runIf(process.arch === 'x64')('the seccomp filter, another ABI on x86_64 (inside the real sandbox)', () => {
  it('an x32 syscall number (getpid 39 | 0x40000000) gives EPERM (the host without the filter: ENOSYS or a pid)', async () => {
    const call: Call = ['x32 getpid', 'syscall', 39 | 0x40000000];
    const dir = probeDir();
    expect((await inSandbox(dir, [call]))['x32 getpid']).toEqual(fails(EPERM));
    expect(onHost(dir, [call])['x32 getpid']).not.toEqual(fails(EPERM));
  }, 60_000);

  it('an i386 syscall through int 0x80 (getpid, 20) fails with EPERM: its arch is neither x86_64 nor aarch64', async () => {
    const call: Call = ['i386 getpid', 'i386', 20];
    const dir = probeDir();
    expect((await inSandbox(dir, [call]))['i386 getpid']).toEqual({ ret: -EPERM, errno: EPERM });
    // The control: the host answers with a pid (or, without IA32 emulation, kills the probe), never EPERM.
    expect(onHost(dir, [call])['i386 getpid']).not.toEqual({ ret: -EPERM, errno: EPERM });
  }, 60_000);
});

/** Runs the classic BPF program on one struct seccomp_data, as the kernel does: the filter's answer. */
function evaluate(program: Buffer, data: { arch: number; nr: number; arg0?: bigint }): number {
  const bytes = Buffer.alloc(64);
  bytes.writeInt32LE(data.nr, 0);
  bytes.writeUInt32LE(data.arch, 4);
  bytes.writeBigUInt64LE(data.arg0 ?? 0n, 16);
  let acc = 0;
  for (let pc = 0; pc < program.length / 8; ) {
    const [code, jt, jf, k] = [program.readUInt16LE(pc * 8), program.readUInt8(pc * 8 + 2), program.readUInt8(pc * 8 + 3), program.readUInt32LE(pc * 8 + 4)];
    if (code === 0x20) {
      acc = bytes.readUInt32LE(k);
      pc++;
    } else if (code === 0x15) pc += 1 + (acc === k ? jt : jf);
    else if (code === 0x45) pc += 1 + ((acc & k) !== 0 ? jt : jf);
    else if (code === 0x06) return k;
    else throw new Error(`unknown BPF opcode ${code}`);
  }
  throw new Error('fell off the end of the program');
}

// The other architecture's branch cannot be entered on this machine (the kernel sets the arch): the program
// itself is run on that architecture's seccomp_data, so both branches are checked wherever the tests run.
describe('the seccomp program, both architectures and an unknown one, evaluated', () => {
  const ALLOW = 0x7fff0000;
  const ERRNO = (e: number) => 0x00050000 | e;
  const program = seccompFilter();
  it.each([
    ['x86_64', 0xc000003e, NUMBERS.x64],
    ['aarch64', 0xc00000b7, NUMBERS.arm64],
  ] as const)('%s: each rule', (_, arch, n) => {
    const run = (nr: number, arg0?: bigint) => evaluate(program, { arch, nr, ...(arg0 !== undefined && { arg0 }) });
    expect(run(n.getpid)).toBe(ALLOW);
    expect(run(n.socket, 1n)).toBe(ERRNO(EPERM));
    expect(run(n.socket, 1n + (1n << 32n))).toBe(ERRNO(EPERM));
    expect(run(n.socket, 2n)).toBe(ALLOW);
    expect(run(n.socketpair, 1n)).toBe(ALLOW);
    expect(run(n.clone, BigInt(CLONE_NEWUSER | SIGCHLD))).toBe(ERRNO(EPERM));
    expect(run(n.clone, BigInt(SIGCHLD))).toBe(ALLOW);
    expect(run(n.unshare, BigInt(CLONE_NEWUSER))).toBe(ERRNO(EPERM));
    expect(run(n.unshare, BigInt(CLONE_NEWUTS))).toBe(ALLOW);
    expect(run(n.io_uring_setup)).toBe(ERRNO(EPERM));
    expect(run(n.clone3)).toBe(ERRNO(ENOSYS));
    expect(run(n.getpid | 0x40000000)).toBe(arch === 0xc000003e ? ERRNO(EPERM) : ALLOW);
  });

  it('any other arch value (i386, arm) is refused whole', () => {
    for (const arch of [0x40000003 /* i386 */, 0x40000028 /* arm */, 0]) expect(evaluate(program, { arch, nr: 20 })).toBe(ERRNO(EPERM));
  });
});
