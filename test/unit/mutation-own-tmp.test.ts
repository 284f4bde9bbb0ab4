// The mutation commands run with a temporary folder of their own, removed when
// they end (scripts/mutation/own-tmp.mjs): whatever a test made in the OS
// temporary folder goes with it, and a killed run's folder goes with the next.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

const SCRIPT = path.resolve('scripts/mutation/own-tmp.mjs');

describe('own-tmp.mjs', () => {
  it('gives the command a TMPDIR of its own and removes it, with what was made in it, when the command ends', () => {
    const base = tempDir('own-tmp');
    const made = execFileSync(process.execPath, [SCRIPT, process.execPath, '-e', "const fs=require('fs'),os=require('os'),p=require('path');const d=fs.mkdtempSync(p.join(os.tmpdir(),'left-'));fs.writeFileSync(p.join(d,'f'),'x');console.log(os.tmpdir())"], { env: { ...process.env, TMPDIR: base }, encoding: 'utf8' }).trim();
    expect(path.dirname(made)).toBe(base);
    expect(path.basename(made)).toMatch(/^skein-mutation-tmp-\d+$/);
    expect(fs.existsSync(made)).toBe(false);
    expect(fs.readdirSync(base)).toEqual([]);
  });

  it("passes the command's exit code on, and removes a folder a killed run left (its process gone), not a live one's", () => {
    const base = tempDir('own-tmp');
    const dead = path.join(base, 'skein-mutation-tmp-2147483646');
    const live = path.join(base, `skein-mutation-tmp-${process.pid}`);
    fs.mkdirSync(dead);
    fs.mkdirSync(live);
    let code = 0;
    try {
      execFileSync(process.execPath, [SCRIPT, process.execPath, '-e', 'process.exit(3)'], { env: { ...process.env, TMPDIR: base }, stdio: 'pipe' });
    } catch (err) {
      code = (err as { status: number }).status;
    }
    expect(code).toBe(3);
    expect(fs.existsSync(dead)).toBe(false);
    expect(fs.existsSync(live)).toBe(true);
  });
});
