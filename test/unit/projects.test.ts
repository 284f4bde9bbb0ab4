// The projects list (server/projects/): SKEIN_WORKDIR's roots first, the
// folders the user added kept in projects.json (0600, links resolved), the
// folders never allowed refused with the reason, a vanished one missing, and
// a request to add one decided once (the first answer counts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProjectError, Projects } from '../../server/projects/projects.js';
import { ProjectRequests, RequestDecidedError } from '../../server/projects/project-requests.js';
import { tempDir } from '../helpers/temp-dir.js';

const real = (p: string) => fs.realpathSync(p);

describe('projects', () => {
  it('starts from SKEIN_WORKDIR (never writing the home folder), keeps added folders resolved in a 0600 file, and reads them back', () => {
    const data = tempDir('projects-data');
    const root = real(tempDir('projects-root'));
    const projects = new Projects(data, [root, os.homedir()]);
    expect(projects.list()).toEqual([{ folder: root, setting: true }, { folder: os.homedir(), setting: true }]);
    expect(fs.existsSync(projects.file)).toBe(false);
    const target = real(tempDir('projects-target'));
    const link = path.join(tempDir('projects-links'), 'link');
    fs.symlinkSync(target, link);
    expect(projects.add(link)).toBe(target);
    expect(fs.statSync(projects.file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(projects.file, 'utf8'))).toEqual({ version: 1, projects: [{ folder: root }, { folder: target }] });
    // Another start with another SKEIN_WORKDIR: the file's folders stay, the home folder was never kept.
    const later = new Projects(data, [root]);
    expect(later.list()).toEqual([{ folder: root, setting: true }, { folder: target }]);
    expect(later.contains(path.join(target, 'sub'))).toBe(true);
    expect(later.contains(path.join(os.homedir(), 'elsewhere-entirely'))).toBe(false);
  });

  it('refuses the whole disk, the home folder itself, the data folder, a relative path and a missing folder, with the reason', () => {
    const data = tempDir('projects-data');
    const projects = new Projects(data, [tempDir('projects-root')]);
    fs.mkdirSync(path.join(data, 'sessions'));
    for (const [folder, reason] of [
      ['/', /the whole disk/],
      [os.homedir(), /your home folder itself/],
      ['~', /your home folder itself/],
      [data, /skein's data folder/],
      [path.join(data, 'sessions'), /skein's data folder/],
      [path.dirname(data) === '/' ? data : path.dirname(data), /whole disk|data folder/],
      ['relative', /not an absolute path/],
      ['/no/such/folder/here', /not an existing folder/],
    ] as const) {
      expect(() => projects.add(folder), folder).toThrow(ProjectError);
      expect(() => projects.add(folder), folder).toThrow(reason);
    }
    expect(fs.existsSync(projects.file)).toBe(false);
  });

  it('refuses a folder whose name holds a line break (a prompt could show another folder)', () => {
    const projects = new Projects(tempDir('projects-data'), [real(tempDir('projects-root'))]);
    const odd = path.join(real(tempDir('projects-odd')), 'app\n/home/you/safe');
    fs.mkdirSync(odd, { recursive: true });
    expect(() => projects.add(odd)).toThrow(/control character/);
  });

  it('a chosen folder later replaced by a link (to the whole disk, or anywhere) is not served: shown as missing', () => {
    const data = tempDir('projects-data');
    const root = real(tempDir('projects-root'));
    const projects = new Projects(data, [root]);
    const parent = real(tempDir('projects-swap'));
    const chosen = path.join(parent, 'app');
    fs.mkdirSync(chosen);
    projects.add(chosen);
    expect(projects.roots()).toContain(chosen);
    fs.rmdirSync(chosen);
    fs.symlinkSync('/', chosen);
    expect(projects.roots()).not.toContain(chosen);
    expect(projects.list().find((p) => p.folder === chosen)).toMatchObject({ missing: true });
    expect(projects.contains('/etc')).toBe(false);
    // A link on its way counts the same (a session in the folder above could make one).
    fs.unlinkSync(chosen);
    const elsewhere = real(tempDir('projects-elsewhere'));
    fs.renameSync(parent, path.join(tempDir('projects-moved'), 'moved')); // inside a recorded folder: removed with it
    fs.symlinkSync(elsewhere, parent);
    fs.mkdirSync(path.join(elsewhere, 'app'));
    expect(projects.roots()).not.toContain(chosen);
    expect(new Projects(data, [root]).roots()).not.toContain(chosen); // nor after a restart
  });

  it('shows a folder that vanished as missing and never serves it; a file that is a link is not read', () => {
    const data = tempDir('projects-data');
    const projects = new Projects(data, [tempDir('projects-root')]);
    const gone = real(tempDir('projects-gone'));
    projects.add(gone);
    fs.rmSync(gone, { recursive: true });
    expect(projects.list().at(-1)).toEqual({ folder: gone, missing: true });
    expect(projects.roots()).not.toContain(gone);
    expect(projects.contains(gone)).toBe(false);

    const other = tempDir('projects-data');
    const elsewhere = path.join(tempDir('projects-elsewhere'), 'list.json');
    fs.writeFileSync(elsewhere, JSON.stringify({ version: 1, projects: [{ folder: '/' }] }));
    fs.symlinkSync(elsewhere, path.join(other, 'projects.json'));
    const root = real(tempDir('projects-root'));
    expect(new Projects(other, [root]).roots()).toEqual([root]);
  });

  it('a request is decided once: allowed adds the folder, the second answer is refused, a folder inside a project is allowed without asking', async () => {
    const data = tempDir('projects-data');
    const root = real(tempDir('projects-root'));
    const projects = new Projects(data, [root]);
    const requests = new ProjectRequests(projects);
    expect(requests.ask(root, 'editor').state).toBe('allowed');
    expect(requests.pending()).toEqual([]);
    const folder = real(tempDir('projects-asked'));
    const asked = requests.ask(folder, 'editor');
    expect(asked.state).toBe('pending');
    expect(requests.ask(folder, 'another editor').id).toBe(asked.id);
    const waiting = requests.wait(asked.id, 60_000);
    expect(projects.contains(folder)).toBe(false);
    expect(requests.decide(asked.id, 'allow')?.state).toBe('allowed');
    expect((await waiting)?.state).toBe('allowed');
    expect(projects.contains(folder)).toBe(true);
    expect(() => requests.decide(asked.id, 'deny')).toThrow(RequestDecidedError);
    expect(() => requests.ask('/', 'editor')).toThrow(/whole disk/);
    const denied = requests.ask(real(tempDir('projects-denied')), 'editor');
    expect(requests.decide(denied.id, 'deny')?.state).toBe('denied');
    expect(projects.contains(denied.folder)).toBe(false);
  });
});
