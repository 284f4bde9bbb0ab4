// The parts of the sandbox's mounts (server/tools/sandbox/mounts.ts) that
// depend on the host, checked on made-up hosts: the host's ssh private keys
// hidden (not the public ones), a resolv.conf that points outside the system
// folders shown as that one file, and a node installed outside them (nvm)
// shown read-only so sandboxed tools find it, never "/" or a system folder.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolvConfArgs, runtimeFolder, sshHostKeys, systemFolderArgs } from '../../server/tools/sandbox/mounts.js';
import { tempDirsPerTest } from '../helpers/temp-dir.js';

const temp = tempDirsPerTest('host');

describe('sshHostKeys', () => {
  it('lists the private host keys with their path, not the public keys or the client config', () => {
    const dir = temp();
    for (const f of ['ssh_host_ed25519_key', 'ssh_host_ed25519_key.pub', 'ssh_host_rsa_key', 'ssh_config', 'my_ssh_host_x_key', 'ssh_host__key']) fs.writeFileSync(path.join(dir, f), '');
    expect(sshHostKeys(dir).sort()).toEqual(['ssh_host__key', 'ssh_host_ed25519_key', 'ssh_host_rsa_key'].map((f) => path.join(dir, f)));
  });

  it('is empty when the folder is absent', () => {
    expect(sshHostKeys(path.join(temp(), 'none'))).toEqual([]);
  });
});

describe('resolvConfArgs', () => {
  it('binds a resolv.conf outside the system folders read-only, and nothing for one inside them or none', () => {
    expect(resolvConfArgs('/run/systemd/resolve/stub-resolv.conf')).toEqual(['--ro-bind', '/run/systemd/resolve/stub-resolv.conf', '/run/systemd/resolve/stub-resolv.conf']);
    expect(resolvConfArgs('/etc/resolv.conf')).toEqual([]);
    expect(resolvConfArgs('/usr/lib/systemd/resolv.conf')).toEqual([]);
    expect(resolvConfArgs(undefined)).toEqual([]);
  });
});

describe('runtimeFolder', () => {
  it("is the install folder of a node outside the system folders (nvm's, followed through links)", () => {
    const nvm = path.join(temp(), 'versions', 'node', 'v20');
    fs.mkdirSync(path.join(nvm, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(nvm, 'bin', 'node'), '');
    expect(runtimeFolder(path.join(nvm, 'bin', 'node'))).toBe(nvm);
    const shim = path.join(temp(), 'node');
    fs.symlinkSync(path.join(nvm, 'bin', 'node'), shim);
    expect(runtimeFolder(shim)).toBe(nvm);
  });

  it('is nothing for a node in a system folder or at the top of the filesystem (it would show the host whole)', () => {
    // /bin/sh is /usr/bin/<a shell> (through the /bin link on a merged /usr): prefix /usr.
    expect(runtimeFolder('/bin/sh')).toBeUndefined();
    // A binary directly in a top folder (/tmp/node) has "/" as its prefix.
    const top = path.join('/tmp', `skein-node-${process.pid}-${Date.now()}`);
    fs.writeFileSync(top, '');
    try {
      expect(runtimeFolder(top)).toBeUndefined();
    } finally {
      fs.rmSync(top, { force: true });
    }
  });
});

describe('systemFolderArgs', () => {
  it('binds each present folder read-only, keeps a link a link (merged /usr), and skips an absent one', () => {
    const root = temp();
    fs.mkdirSync(path.join(root, 'usr'));
    fs.symlinkSync('usr', path.join(root, 'bin'));
    const [usr, bin, none] = ['usr', 'bin', 'none'].map((d) => path.join(root, d));
    expect(systemFolderArgs([usr!, bin!, none!])).toEqual(['--ro-bind', usr, usr, '--symlink', 'usr', bin]);
  });
});
