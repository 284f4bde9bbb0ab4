// Symbolic links a cloned repository (or a prompt-injected model's bash) can
// plant where skein reads or writes a file: absolute, relative, through a
// linked parent folder, to a folder, dangling. Each points at a secret (or a
// file skein must never write) outside the folder.
import fs from 'node:fs';
import path from 'node:path';

export const SECRET = 'ssh-ed25519-PRIVATE-hostile-links-3f9a71';

export type LinkTrick = 'absolute' | 'relative' | 'linked-parent' | 'to-folder' | 'dangling';
export const LINK_TRICKS: readonly LinkTrick[] = ['absolute', 'relative', 'linked-parent', 'to-folder', 'dangling'];

export interface Outside {
  /** A folder outside the working folder holding `id_ed25519` (the secret) and `.bashrc`. */
  home: string;
  secret: string;
  bashrc: string;
}

export function plantOutside(home: string): Outside {
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
  const secret = path.join(home, '.ssh', 'id_ed25519');
  fs.writeFileSync(secret, `${SECRET}\n`);
  const bashrc = path.join(home, '.bashrc');
  fs.writeFileSync(bashrc, '# the user\'s own\n');
  return { home, secret, bashrc };
}

/**
 * Makes `root/name` reach `outside.secret` by the trick; returns what a reader
 * following links would get there. `name` may be nested (`a/AGENTS.md`).
 */
export function plantLink(root: string, name: string, trick: LinkTrick, outside: Outside): void {
  const at = path.join(root, name);
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.rmSync(at, { force: true, recursive: true });
  switch (trick) {
    case 'absolute':
      fs.symlinkSync(outside.secret, at);
      return;
    case 'relative':
      fs.symlinkSync(path.relative(path.dirname(at), outside.secret), at);
      return;
    case 'linked-parent': {
      // A folder inside that is a link to ~/.ssh, and the file a link into it: the text points inside.
      const linked = path.join(root, '.linked-ssh');
      if (!fs.existsSync(linked)) fs.symlinkSync(path.dirname(outside.secret), linked);
      fs.symlinkSync(path.relative(path.dirname(at), path.join(linked, path.basename(outside.secret))), at);
      return;
    }
    case 'to-folder':
      fs.symlinkSync(path.dirname(outside.secret), at);
      return;
    case 'dangling':
      fs.symlinkSync(path.join(outside.home, 'not-there-yet'), at);
      return;
  }
}

/** Every file under `dir` (recursively, links not followed) whose bytes hold the secret. */
export function filesHoldingSecret(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && fs.readFileSync(p).includes(SECRET)) found.push(p);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return found;
}
