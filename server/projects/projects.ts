// The projects: the folders the user chose for skein to work in, like the
// trusted folders of other agents. A new session's folder must be one of them
// or inside one. The roots this server was started with (SKEIN_WORKDIR, or the
// current folder) are always served and are the list's initial content; the
// others are added by the user only: in the web UI, or by allowing an
// editor's request (project-requests.ts). Never by the model or a repository.
// Folders are kept with symlinks resolved (a link cannot smuggle in another
// folder); one that no longer exists is shown as missing, never used.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Project } from '../../shared/protocol.js';
import { log } from '../log.js';
import { PROJECTS_FILE, readProjectsFile, writeProjectsFile } from './projects-file.js';

/** A folder that cannot be a project; the message says why (HTTP 400). */
export class ProjectError extends Error {
  override readonly name = 'ProjectError';
}

export type ProjectsListener = () => void;

export class Projects {
  readonly file: string;
  /** The folders the user chose (the file's), in the order they were added. */
  private chosen: string[];
  private readonly listeners = new Set<ProjectsListener>();

  /** `settingRoots`: SKEIN_WORKDIR's roots (the first is the default folder of a new session). */
  constructor(private readonly dataDir: string, private readonly settingRoots: readonly string[]) {
    this.file = path.join(dataDir, PROJECTS_FILE);
    // The initial content: SKEIN_WORKDIR's roots, but never a folder the user could not add (an embedded `skein acp` serves the home folder).
    this.chosen = readProjectsFile(this.file) ?? settingRoots.flatMap((root) => (this.acceptable(root) ? [realOr(root)] : []));
  }

  /** Every project: the setting's roots first, then the chosen ones. */
  list(): Project[] {
    const settings = this.settingRoots.map((folder) => ({ folder, setting: true as const }));
    const settingReal = new Set(this.settingRoots.map(realOr));
    const chosen = this.chosen.filter((f) => !settingReal.has(f) && !this.settingRoots.includes(f)).map((folder) => ({ folder }));
    return [...settings, ...chosen].map((p) => (isFolder(p.folder) && ('setting' in p || this.stillChosen(p.folder)) ? p : { ...p, missing: true }));
  }

  /**
   * A chosen folder is kept with its links resolved: one that now leads
   * elsewhere (replaced by a link, or a link put on its way, even by a
   * session working in the folder above) is not the folder the user chose,
   * nor one that now fails the checks of an added folder: not used.
   */
  private stillChosen(folder: string): boolean {
    return realOr(folder) === folder && this.acceptable(folder);
  }

  /** The folders a session may work in (or inside): the existing projects. */
  roots(): string[] {
    return this.list()
      .filter((p) => !p.missing)
      .map((p) => p.folder);
  }

  /** The folder (symlinks resolved) is a project or inside one. */
  contains(folder: string): boolean {
    const real = realOr(folder);
    return this.roots().some((root) => within(realOr(root), real));
  }

  /**
   * Checks a folder the user asked to add and returns it with symlinks resolved:
   * an absolute path (`~/` is the home folder) of an existing folder, not the
   * whole disk, not the home folder itself, not the data folder (or in it, or holding it).
   */
  check(requested: string): string {
    const asked = requested.trim().replace(/^~(?=$|\/)/, os.homedir());
    // A line break or other control character could make a prompt (editor, web UI) show another folder than the one added.
    if (/[\u0000-\u001f\u007f]/.test(asked)) throw new ProjectError('the folder name contains a control character (a line break, a tab…): skein does not add it, rename the folder');
    if (!path.isAbsolute(asked)) throw new ProjectError(`${requested} is not an absolute path: give the whole path of the folder (e.g. /home/you/code/app)`);
    if (!isFolder(asked)) throw new ProjectError(`${asked} is not an existing folder`);
    const real = fs.realpathSync(asked);
    const via = real === path.resolve(asked) ? '' : ` (${asked} leads to ${real})`;
    if (real === path.parse(real).root) throw new ProjectError(`${real}${via} is the whole disk: choose the folder of a project`);
    if (real === realOr(os.homedir())) throw new ProjectError(`${real}${via} is your home folder itself: choose the folder of a project inside it`);
    const data = realOr(this.dataDir);
    if (within(data, real) || within(real, data)) throw new ProjectError(`${real}${via} is skein's data folder or holds it (its logs and access token): choose the folder of a project`);
    return real;
  }

  private acceptable(folder: string): boolean {
    try {
      this.check(folder);
      return true;
    } catch {
      return false;
    }
  }

  /** Adds a folder the user chose (checked); returns it as kept. */
  add(requested: string): string {
    const real = this.check(requested);
    if (!this.chosen.includes(real)) {
      const next = [...this.chosen, real];
      writeProjectsFile(this.file, next);
      this.chosen = next;
      log.info(`project added: ${real}`);
      this.changed();
    }
    return real;
  }

  /** Removes a chosen folder (as listed); false when it is not in the list. A SKEIN_WORKDIR root stays while this server runs. */
  remove(folder: string): boolean {
    const next = this.chosen.filter((f) => f !== folder);
    if (next.length === this.chosen.length) return false;
    writeProjectsFile(this.file, next);
    this.chosen = next;
    log.info(`project removed: ${folder}`);
    this.changed();
    return true;
  }

  onChange(listener: ProjectsListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(): void {
    for (const listener of this.listeners) listener();
  }
}

function isFolder(folder: string): boolean {
  try {
    return fs.statSync(folder).isDirectory();
  } catch {
    return false;
  }
}

/** The folder with symlinks resolved, or as given when it does not exist. */
function realOr(folder: string): string {
  try {
    return fs.realpathSync(folder);
  } catch {
    return path.resolve(folder);
  }
}

/** `inner` is `outer` or inside it. */
function within(outer: string, inner: string): boolean {
  const rel = path.relative(outer, inner);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
