// The seccomp filter every sandboxed process runs under, assembled here as a
// classic BPF program (no compiler, no libseccomp, no prebuilt binary) and
// handed to bubblewrap with --seccomp. Like sandbox-runtime's filter it stops
// socket(AF_UNIX, ...): a host Unix socket (docker.sock, the D-Bus bus, an
// ssh-agent, an abstract one when the network is shared) cannot be connected
// to without a new AF_UNIX socket; socketpair() stays allowed, so pipes,
// child processes and node's IPC keep working. It also stops what would get
// round the filter or the mounts: io_uring (its IORING_OP_SOCKET makes sockets
// without the socket() call), new user namespaces (in one, a process could
// set up mounts of its own), clone3 (its flags sit in memory a filter cannot
// read; ENOSYS makes the C library fall back to clone), and every syscall of
// another ABI (i386 through int 0x80, x32), whose numbers differ.

/** struct seccomp_data: nr at 0, arch at 4, args[i] at 16 + 8i (little-endian: the low half first). */
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

const AUDIT_ARCH_X86_64 = 0xc000003e;
const AUDIT_ARCH_AARCH64 = 0xc00000b7;
/** x32 syscalls run on x86_64's arch value with this bit set in nr. */
const X32_SYSCALL_BIT = 0x40000000;

const AF_UNIX = 1;
const CLONE_NEWUSER = 0x10000000;
const EPERM = 1;
const ENOSYS = 38;

const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;

/** Syscall numbers per architecture (x86_64: arch/x86/entry/syscalls/syscall_64.tbl; aarch64: the generic table). */
const SYSCALLS = {
  x86_64: { socket: 41, clone: 56, unshare: 272, io_uring_setup: 425, clone3: 435 },
  aarch64: { socket: 198, clone: 220, unshare: 97, io_uring_setup: 425, clone3: 435 },
} as const;

// Classic BPF opcodes (linux/filter.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JSET_K = 0x45;
const RET_K = 0x06;

type Label = string;
type Insn =
  | { op: 'load'; offset: number }
  | { op: 'jeq' | 'jset'; k: number; then: Label | null; else: Label | null }
  | { op: 'ret'; value: number }
  | { op: 'label'; name: Label };

/** Resolves labels (null: the next instruction) into jump offsets, then encodes struct sock_filter. */
function assemble(program: readonly Insn[]): Buffer {
  const code = program.filter((i) => i.op !== 'label');
  const at = new Map<Label, number>();
  let index = 0;
  for (const insn of program) {
    if (insn.op === 'label') at.set(insn.name, index);
    else index++;
  }
  const out = Buffer.alloc(code.length * 8);
  code.forEach((insn, i) => {
    const jump = (label: Label | null): number => {
      if (label === null) return 0;
      const target = at.get(label);
      if (target === undefined || target <= i || target - i - 1 > 255) throw new Error(`seccomp: bad jump to ${label}`);
      return target - i - 1;
    };
    const o = i * 8;
    if (insn.op === 'load') {
      out.writeUInt16LE(LD_W_ABS, o);
      out.writeUInt32LE(insn.offset, o + 4);
    } else if (insn.op === 'ret') {
      out.writeUInt16LE(RET_K, o);
      out.writeUInt32LE(insn.value >>> 0, o + 4);
    } else if (insn.op === 'jeq' || insn.op === 'jset') {
      out.writeUInt16LE(insn.op === 'jeq' ? JEQ_K : JSET_K, o);
      out.writeUInt8(jump(insn.then), o + 2);
      out.writeUInt8(jump(insn.else), o + 3);
      out.writeUInt32LE(insn.k >>> 0, o + 4);
    }
  });
  return out;
}

/** The checks for one architecture, entered with nothing loaded. */
function archRules(arch: keyof typeof SYSCALLS): Insn[] {
  const nr = SYSCALLS[arch];
  const p = `${arch}:`;
  return [
    { op: 'load', offset: NR },
    ...(arch === 'x86_64' ? [{ op: 'jset', k: X32_SYSCALL_BIT, then: 'deny', else: null } as Insn] : []),
    { op: 'jeq', k: nr.socket, then: `${p}socket`, else: null },
    { op: 'jeq', k: nr.clone, then: `${p}flags`, else: null },
    { op: 'jeq', k: nr.unshare, then: `${p}flags`, else: null },
    { op: 'jeq', k: nr.io_uring_setup, then: 'deny', else: null },
    { op: 'jeq', k: nr.clone3, then: 'nosys', else: 'allow' },
    { op: 'label', name: `${p}socket` },
    // socket(int domain, ...): the kernel reads an int, so the low half is the whole domain.
    { op: 'load', offset: ARG0_LOW },
    { op: 'jeq', k: AF_UNIX, then: 'deny', else: 'allow' },
    { op: 'label', name: `${p}flags` },
    // clone(flags, ...) and unshare(flags) both take the flags first (CLONE_NEWUSER is in the low half).
    { op: 'load', offset: ARG0_LOW },
    { op: 'jset', k: CLONE_NEWUSER, then: 'deny', else: 'allow' },
  ];
}

/** The filter as bwrap --seccomp reads it: struct sock_filter[], native (little-endian) order. */
export function seccompFilter(): Buffer {
  return assemble([
    { op: 'load', offset: ARCH },
    { op: 'jeq', k: AUDIT_ARCH_X86_64, then: 'x86_64', else: null },
    { op: 'jeq', k: AUDIT_ARCH_AARCH64, then: 'aarch64', else: 'deny' },
    { op: 'label', name: 'x86_64' },
    ...archRules('x86_64'),
    { op: 'label', name: 'aarch64' },
    ...archRules('aarch64'),
    { op: 'label', name: 'allow' },
    { op: 'ret', value: RET_ALLOW },
    { op: 'label', name: 'nosys' },
    { op: 'ret', value: RET_ERRNO | ENOSYS },
    { op: 'label', name: 'deny' },
    { op: 'ret', value: RET_ERRNO | EPERM },
  ]);
}

/** Architectures the filter knows; on others skein refuses SKEIN_SANDBOX=workspace. */
export function seccompSupported(arch: string = process.arch): boolean {
  return arch === 'x64' || arch === 'arm64';
}

/** A bash printf format that writes `bytes` (every byte as \xHH: no `%`, no NUL in the argument itself). */
export function printfEscaped(bytes: Buffer): string {
  return [...bytes].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
}
