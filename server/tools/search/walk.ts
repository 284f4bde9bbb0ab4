// Walks the working folder for glob, grep (Node path) and list: depth first,
// names in byte order (as ripgrep's --sort path), `.git` never entered,
// .gitignore files honoured at every level inside the working folder (a
// deeper file's rules win, as in git), symbolic links reported but never
// followed, so a link pointing outside leads nowhere.
import { constants, type Dirent, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { Door } from '../../host/door.js';
import { resolveInside } from '../paths.js';
import { ToolInputError, type ToolContext } from '../tool.js';

/** A walk stops after this many entries (a search of a whole disk is bash's job). */
export const MAX_WALK_ENTRIES = 200_000;

export interface WalkEntry {
  /** Relative to the working folder, `/`-separated. */
  rel: string;
  abs: string;
  kind: 'file' | 'dir' | 'link' | 'other';
  depth: number;
}

export interface WalkOptions {
  /** Honour .gitignore files (glob and grep); list does not. */
  gitignore: boolean;
  /** Folder names never entered nor listed besides .git (list: node_modules). */
  skip?: ReadonlySet<string>;
  /** Folders deeper than this are listed but not entered (0: only the start folder's entries). */
  maxDepth?: number;
  /** A file this accepts is kept even when .gitignore'd (as ripgrep's --glob overrides ignore rules for files). */
  keepFile?: (rel: string) => boolean;
}

/** Where a search starts: the requested folder (or file), resolved inside the working folder. */
export interface SearchRoot {
  /** The working folder's real path. */
  root: string;
  /** The real path of the folder or file asked for. */
  start: string;
  /** `start` relative to the working folder ('' for the folder itself). */
  rel: string;
  stat: Stats;
}

export async function searchRoot(ctx: ToolContext, requested: unknown): Promise<SearchRoot> {
  if (requested !== undefined && typeof requested !== 'string') throw new ToolInputError('"path" must be a string');
  const asked = requested || '.';
  const root = resolveInside(ctx.workDir, '.');
  const start = resolveInside(ctx.workDir, asked);
  let stat: Stats;
  try {
    stat = await fs.lstat(start);
  } catch {
    throw new ToolInputError(`${asked} does not exist in the working folder`);
  }
  return { root, start, rel: toPosix(path.relative(root, start)), stat };
}

/** The walk itself; `truncated()` says whether it stopped at MAX_WALK_ENTRIES. */
export class Walker {
  private visited = 0;
  private readonly rules = new Map<string, Ignore | null>();
  private readonly door: Door;

  constructor(
    private readonly from: SearchRoot,
    private readonly options: WalkOptions,
    private readonly signal: AbortSignal,
  ) {
    this.door = new Door(from.root);
  }

  get truncated(): boolean {
    return this.visited >= MAX_WALK_ENTRIES;
  }

  async *entries(): AsyncGenerator<WalkEntry> {
    const { start, rel, stat } = this.from;
    if (!stat.isDirectory()) {
      yield { rel, abs: start, kind: stat.isFile() ? 'file' : 'other', depth: 0 };
      return;
    }
    yield* this.folder(start, rel, 0);
  }

  private async *folder(abs: string, rel: string, depth: number): AsyncGenerator<WalkEntry> {
    let dirents: Dirent[];
    try {
      dirents = await fs.readdir(abs, { withFileTypes: true });
    } catch {
      return; // unreadable: skipped, as ripgrep does
    }
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const d of dirents) {
      if (this.signal.aborted) throw new ToolInputError('cancelled');
      if (this.visited >= MAX_WALK_ENTRIES) return;
      if (d.name === '.git' || this.options.skip?.has(d.name)) continue;
      const childRel = rel ? `${rel}/${d.name}` : d.name;
      const kind = d.isSymbolicLink() ? 'link' : d.isDirectory() ? 'dir' : d.isFile() ? 'file' : 'other';
      const kept = kind === 'file' && this.options.keepFile?.(childRel) === true;
      if (this.options.gitignore && !kept && (await this.ignored(childRel, kind === 'dir'))) continue;
      this.visited++;
      const entry: WalkEntry = { rel: childRel, abs: path.join(abs, d.name), kind, depth };
      yield entry;
      if (kind === 'dir' && (this.options.maxDepth === undefined || depth < this.options.maxDepth)) yield* this.folder(entry.abs, childRel, depth + 1);
    }
  }

  /** Checks the .gitignore of every folder from the working folder down to the entry's parent. */
  private async ignored(rel: string, isDir: boolean): Promise<boolean> {
    const parts = rel.split('/');
    let ignored = false;
    for (let i = 0; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      const rules = await this.rulesOf(dir);
      if (!rules) continue;
      const tail = parts.slice(i).join('/') + (isDir ? '/' : '');
      const result = rules.test(tail);
      if (result.ignored) ignored = true;
      else if (result.unignored) ignored = false;
    }
    return ignored;
  }

  private async rulesOf(dir: string): Promise<Ignore | null> {
    const known = this.rules.get(dir);
    if (known !== undefined) return known;
    let rules: Ignore | null = null;
    try {
      // Through the door: a .gitignore that is a link (to a key, say) is not read.
      const handle = await this.door.open(path.join(dir, '.gitignore'), constants.O_RDONLY | constants.O_NONBLOCK);
      let text: string;
      try {
        if (!(await handle.stat()).isFile()) throw new Error('not a file');
        text = await handle.readFile('utf8');
      } finally {
        await handle.close();
      }
      rules = ignore({ allowRelativePaths: true }).add(text);
    } catch {
      // no .gitignore here
    }
    this.rules.set(dir, rules);
    return rules;
  }
}

export function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}
