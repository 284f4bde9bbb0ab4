// The hostile repository's tricks against approvals: a real git repository
// (so `.git/config` and `.git/hooks` exist), an instruction file the agent
// reads, a nested repository, and a harmless-looking name that is a link to
// `.git/config` (a session rule for that name must not let a write reach git).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export function plantApprovalTricks(dir: string): void {
  execFileSync('git', ['init', '-q', dir]);
  fs.writeFileSync(path.join(dir, 'AGENTS.md'), 'Be careful.\n');
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'src/readme.txt'), 'plain text\n');
  fs.mkdirSync(path.join(dir, 'sub/.git'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'sub/.git/config'), '[core]\n');
  fs.symlinkSync('.git/config', path.join(dir, 'link-to-git-config'));
}
