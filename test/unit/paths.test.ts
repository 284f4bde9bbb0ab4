// Path confinement resolved the way the kernel would: every link followed
// (dangling ones too), `..` after a link from the link's target, a missing
// tail kept as names; the result must be the folder or inside it. A chain of
// links that never ends is cut at 40, so resolution always ends.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { resolveInside } from '../../server/tools/paths.js';
import { ToolInputError } from '../../server/tools/tool.js';
import { tempDir } from '../helpers/temp-dir.js';

function folders() {
  // One level down, so the sibling a test makes beside it (`${root}-sibling`) goes with the temporary folder.
  const root = path.join(fs.realpathSync(tempDir('paths-root')), 'work');
  fs.mkdirSync(root);
  const outside = fs.realpathSync(tempDir('paths-outside'));
  fs.mkdirSync(path.join(root, 'sub', 'deeper'), { recursive: true });
  fs.writeFileSync(path.join(root, 'sub', 'file.txt'), 'x');
  return { root, outside };
}

const refused = (root: string, p: string, message: RegExp) => {
  expect(() => resolveInside(root, p), p).toThrow(ToolInputError);
  expect(() => resolveInside(root, p), p).toThrow(message);
};

describe('resolveInside', () => {
  it('resolves plain, relative, absolute, dotted and missing paths inside the folder', () => {
    const { root } = folders();
    expect(resolveInside(root, '.')).toBe(root);
    expect(resolveInside(root, '')).toBe(root);
    expect(resolveInside(root, 'sub/file.txt')).toBe(path.join(root, 'sub', 'file.txt'));
    expect(resolveInside(root, './sub//./deeper/')).toBe(path.join(root, 'sub', 'deeper'));
    expect(resolveInside(root, 'sub/deeper/../file.txt')).toBe(path.join(root, 'sub', 'file.txt'));
    expect(resolveInside(root, path.join(root, 'sub'))).toBe(path.join(root, 'sub'));
    expect(resolveInside(root, 'missing/dir/new.txt')).toBe(path.join(root, 'missing', 'dir', 'new.txt'));
    expect(resolveInside(root, 'missing/../sub')).toBe(path.join(root, 'sub'));
  });

  it('refuses what leaves the folder, also a sibling whose name starts like it', () => {
    const { root, outside } = folders();
    refused(root, '..', /is outside the working folder/);
    refused(root, 'sub/../../x', /outside/);
    refused(root, outside, /outside/);
    refused(root, '/', /outside/);
    fs.mkdirSync(`${root}-sibling`, { recursive: true });
    refused(root, `${root}-sibling/x`, /outside/);
    refused(root, `../${path.basename(root)}-sibling`, /outside/);
  });

  it('follows links: into the folder is fine, out of it is refused, dangling ones included', () => {
    const { root, outside } = folders();
    fs.symlinkSync(path.join(root, 'sub'), path.join(root, 'inner'));
    fs.symlinkSync('sub/file.txt', path.join(root, 'relative'));
    fs.symlinkSync(outside, path.join(root, 'out'));
    fs.symlinkSync(path.join(outside, 'not-yet'), path.join(root, 'dangling'));
    fs.symlinkSync('../..', path.join(root, 'sub', 'up'));
    expect(resolveInside(root, 'inner/file.txt')).toBe(path.join(root, 'sub', 'file.txt'));
    expect(resolveInside(root, 'relative')).toBe(path.join(root, 'sub', 'file.txt'));
    // `..` after a link goes to the parent of the link's target, as the kernel does.
    expect(resolveInside(root, 'inner/deeper/..')).toBe(path.join(root, 'sub'));
    refused(root, 'out/secret.txt', /outside/);
    refused(root, 'dangling', /outside/);
    refused(root, 'sub/up/x', /outside/);
    refused(root, 'missing/../out', /outside/);
  });

  it('a link loop ends with a clear error after 40 links, and 40 links in a row still resolve', () => {
    const { root } = folders();
    fs.symlinkSync('b', path.join(root, 'a'));
    fs.symlinkSync('a', path.join(root, 'b'));
    refused(root, 'a/file', /a\/file: too many symbolic links/);
    fs.symlinkSync('self', path.join(root, 'self'));
    refused(root, 'self', /too many symbolic links/);
    // A chain of exactly 40 links is allowed (the kernel's limit), 41 is not.
    for (let i = 1; i <= 41; i++) fs.symlinkSync(i === 41 ? 'sub' : `l${i + 1}`, path.join(root, `l${i}`));
    expect(resolveInside(root, 'l2/file.txt')).toBe(path.join(root, 'sub', 'file.txt'));
    refused(root, 'l1/file.txt', /too many symbolic links/);
  });

  it('refuses a NUL byte and a folder that does not exist, naming them', () => {
    const { root } = folders();
    refused(root, 'a\0b', /path contains a NUL byte/);
    refused(path.join(root, 'nope'), 'x', /x: the folder .*nope does not exist/);
  });

  it('a component that cannot be looked at (not a folder) is a plain name, another error is not swallowed', () => {
    const { root } = folders();
    expect(resolveInside(root, 'sub/file.txt/below')).toBe(path.join(root, 'sub', 'file.txt', 'below'));
    const lstat = fs.lstatSync.bind(fs);
    const spy = vi.spyOn(fs, 'lstatSync').mockImplementation(((p: string, o?: fs.StatSyncOptions) => {
      if (String(p).endsWith('locked')) throw Object.assign(new Error(`EACCES: permission denied, lstat '${p}'`), { code: 'EACCES' });
      return lstat(p, o);
    }) as typeof fs.lstatSync);
    try {
      expect(() => resolveInside(root, 'locked/x')).toThrow(/EACCES/);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('resolveInside: names and other roots', () => {
  it('a backslash is part of a name here, not a separator: `..\\x` is one file inside the folder', () => {
    const { root } = folders();
    expect(resolveInside(root, 'sub\\file.txt')).toBe(path.join(root, 'sub\\file.txt'));
    expect(resolveInside(root, '..\\..\\etc\\passwd')).toBe(path.join(root, '..\\..\\etc\\passwd'));
  });

  it('the saved-outputs folder as root: its files by absolute path, links and `..` out of it refused', () => {
    const outputs = fs.realpathSync(tempDir('paths-outputs'));
    const outside = fs.realpathSync(tempDir('paths-outside'));
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    fs.writeFileSync(path.join(outputs, '7-call.txt'), 'saved output');
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(outputs, '8-call.txt'));
    fs.symlinkSync(outside, path.join(outputs, 'dir'));
    expect(resolveInside(outputs, `${outputs}/7-call.txt`)).toBe(path.join(outputs, '7-call.txt'));
    // Template strings, not path.join: that would fold the `..` before resolveInside sees it.
    for (const p of ['8-call.txt', 'dir/secret.txt', 'dir/../secret.txt', '../secret.txt']) refused(outputs, `${outputs}/${p}`, /outside the working folder/);
  });

  it('an absolute link target is followed from the top, also when reached through a relative one', () => {
    const { root, outside } = folders();
    fs.symlinkSync(path.join(root, 'sub'), path.join(root, 'abs'));
    fs.symlinkSync('abs/deeper', path.join(root, 'rel-to-abs'));
    fs.symlinkSync(outside, path.join(root, 'sub', 'deeper', 'away'));
    expect(resolveInside(root, 'rel-to-abs/../file.txt')).toBe(path.join(root, 'sub', 'file.txt'));
    refused(root, 'rel-to-abs/away', /outside/);
    // A root given through a link: the answer is the real path.
    const viaLink = path.join(outside, 'root-link');
    fs.symlinkSync(root, viaLink);
    expect(resolveInside(viaLink, 'sub/file.txt')).toBe(path.join(root, 'sub', 'file.txt'));
  });
});
