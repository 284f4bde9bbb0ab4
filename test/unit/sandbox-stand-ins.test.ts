// A stand-in (server/tools/sandbox/placeholders.ts) the user wrote into, or
// replaced, while a sandbox held it: when the sandbox ends, whatever the user
// wrote stays. Only an untouched, empty stand-in made by skein is removed.
// Every way the user's editor or shell can write there is walked: a file put
// into the stand-in folder, the folder replaced by the user's own file, and a
// file stand-in (git metadata) written in place or replaced by a rename.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mountPlan } from '../../server/tools/sandbox/mounts.js';
import { holdPlaceholder, standingPlaceholders } from '../../server/tools/sandbox/placeholders.js';
import { PROTECTED_PROJECT_PATHS } from '../../server/tools/sandbox/protected-paths.js';
import { tempDirsPerTest } from '../helpers/temp-dir.js';

const temp = tempDirsPerTest('stand-ins');

/** Writes as the user does outside the sandbox: the stand-in folder is read-only (0555), so make it writable first. */
const intoFolder = (folder: string) => {
  fs.chmodSync(folder, 0o755);
  fs.writeFileSync(path.join(folder, 'notes.md'), 'the user\'s notes\n');
};
const replaceFolder = (folder: string) => {
  fs.rmdirSync(folder);
  fs.writeFileSync(folder, 'the user\'s own file\n');
};

describe('a folder stand-in for each protected path, written by the user while the sandbox holds it', () => {
  const names = PROTECTED_PROJECT_PATHS.filter((rel) => rel !== '.git');
  it.each(names.flatMap((rel) => [[rel, 'a file put inside it', intoFolder] as const, [rel, 'replaced by a file of the user', replaceFolder] as const]))('%s, %s: kept when the sandbox ends', (rel, _, write) => {
    const work = temp();
    const plan = mountPlan({ workDir: work, home: temp() });
    const p = path.join(work, rel);
    // Held: an empty read-only folder stands in for the absent file.
    expect(fs.statSync(p).isDirectory()).toBe(true);
    expect(standingPlaceholders()).toContain(p);
    write(p);
    const before = fs.statSync(p).isDirectory() ? fs.readFileSync(path.join(p, 'notes.md'), 'utf8') : fs.readFileSync(p, 'utf8');
    plan.release();
    expect(standingPlaceholders()).not.toContain(p);
    const after = fs.statSync(p).isDirectory() ? fs.readFileSync(path.join(p, 'notes.md'), 'utf8') : fs.readFileSync(p, 'utf8');
    expect(after).toBe(before);
  });

  it('the control: an untouched stand-in goes when the sandbox ends', () => {
    const work = temp();
    const plan = mountPlan({ workDir: work, home: temp() });
    plan.release();
    for (const rel of names) expect(fs.existsSync(path.join(work, rel)), rel).toBe(false);
  });
});

describe('a file stand-in (git metadata such as config.worktree), written by the user while held', () => {
  it('written in place: its content stays', () => {
    const file = path.join(temp(), 'config.worktree');
    const release = holdPlaceholder(file, 'file');
    fs.chmodSync(file, 0o644);
    fs.writeFileSync(file, '[core]\n\tsparseCheckout = true\n');
    release();
    expect(fs.readFileSync(file, 'utf8')).toBe('[core]\n\tsparseCheckout = true\n');
  });

  it('replaced by a rename (as git and editors write): the new file stays, even when empty', () => {
    const dir = temp();
    const file = path.join(dir, 'config.worktree');
    const release = holdPlaceholder(file, 'file');
    // Another file first, so the replacement cannot take the stand-in's inode number once it is freed.
    fs.writeFileSync(path.join(dir, 'new'), '');
    fs.renameSync(path.join(dir, 'new'), file);
    release();
    expect(fs.existsSync(file)).toBe(true);
  });

  it('the control: untouched, it goes', () => {
    const file = path.join(temp(), 'config.worktree');
    holdPlaceholder(file, 'file')();
    expect(fs.existsSync(file)).toBe(false);
  });
});
