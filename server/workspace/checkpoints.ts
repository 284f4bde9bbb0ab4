// Checkpoints of the working folder, taken before each tool call that may
// write (write_file, edit_file, bash, MCP tools), so a rewind can put the
// files back as they were at any event. In a git folder a checkpoint is a
// commit under refs/skein/checkpoints/<session>, built with an index of its
// own (GIT_INDEX_FILE): the user's index, branch and stash are never touched.
// Elsewhere the file tools' targets are copied before they change (bash and
// MCP tools cannot be followed there, and the preview says so):
// plain-checkpoints.ts, through the door to the host.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Door, readNoFollow } from '../host/door.js';
import { plainCheckpoint, plainPreview, plainRewind, type PlainEntry } from './plain-checkpoints.js';
import { entriesAfter, parseJournal, parseNameStatus, parseTouched, untrackedNote, type CheckpointEntry } from './checkpoint-entries.js';
import { git, GitError, hardenedWith, withVariables, workTreeBatch, type WorkTreeBatch } from './git.js';
import type { RewindPreview } from '../../shared/protocol.js';

type Entry = CheckpointEntry;

/** Each file a rewind changes (restored, deleted, recreated), the diff and notes: the wire's RewindPreview. */
export type { RewindPreview };

const IDENTITY = { GIT_AUTHOR_NAME: 'skein', GIT_AUTHOR_EMAIL: 'skein@localhost', GIT_COMMITTER_NAME: 'skein', GIT_COMMITTER_EMAIL: 'skein@localhost' };

export { writesFiles } from './checkpoint-entries.js';

export class Checkpoints {
  /** One entry per line, appended: a checkpoint costs the same in a session's first call and its ten-thousandth. */
  private readonly journal: string;
  /** Where earlier versions kept the whole list, rewritten at each checkpoint: still read, never written. */
  private readonly legacyFile: string;

  constructor(
    /** The session's own folder (beside its log). */
    private readonly dir: string,
    private readonly workDir: string,
    private readonly sessionId: string,
  ) {
    this.journal = path.join(dir, 'checkpoints.jsonl');
    this.legacyFile = path.join(dir, 'checkpoints.json');
  }

  private entries(): Entry[] {
    const entries: Entry[] = [];
    try {
      entries.push(...(JSON.parse(fs.readFileSync(this.legacyFile, 'utf8')) as Entry[]));
    } catch {
      /* none, or unreadable: the journal holds the rest */
    }
    let text = '';
    try {
      text = fs.readFileSync(this.journal, 'utf8');
    } catch {
      return entries;
    }
    return [...entries, ...parseJournal(text)];
  }

  private async add(entry: Entry): Promise<void> {
    await fs.promises.mkdir(this.dir, { recursive: true });
    await fs.promises.appendFile(this.journal, `${JSON.stringify(entry)}\n`);
  }

  private get ref(): string {
    return `refs/skein/checkpoints/${this.sessionId}`;
  }

  /** Takes a checkpoint before the tool call logged at `seq`. */
  async before(tool: string, input: Record<string, unknown>, seq: number): Promise<void> {
    // One hardening for the whole checkpoint: 8 programs in a repository without submodules, where each command hardened on its own took 21.
    const batch = await workTreeBatch(this.workDir);
    if (batch) {
      const tree = await this.snapshotTree(batch);
      const parent = (await git(this.workDir, ['rev-parse', '--verify', '--quiet', this.ref], [0, 1], batch.hardening)).stdout.trim();
      const commit = (await git(this.workDir, ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', `skein checkpoint before event ${seq}`], [0], withVariables(batch.hardening, IDENTITY))).stdout.trim();
      await git(this.workDir, ['update-ref', this.ref, commit], [0], batch.hardening);
      await this.add({ seq, commit });
      return;
    }
    await this.add(plainCheckpoint(this.workDir, this.store, tool, input, seq));
  }

  /**
   * After the call at `seq` ran (bash, an MCP tool): the files it changed,
   * from its checkpoint to the folder now, kept in touched.jsonl. The Changes
   * of a session sharing its folder lists these (and its file tools'
   * targets), not what other sessions changed meanwhile.
   */
  async afterCall(seq: number): Promise<void> {
    const before = this.entries().find((e) => e.seq === seq);
    if (!before || !('commit' in before)) return;
    const batch = await workTreeBatch(this.workDir);
    if (!batch) return;
    const now = await this.snapshotTree(batch);
    const files = (await git(this.workDir, ['diff', '--name-only', '-z', '--no-renames', before.commit, now], [0], batch.hardening)).stdout.split('\0').filter(Boolean);
    if (!files.length) return;
    await fs.promises.mkdir(this.dir, { recursive: true });
    await fs.promises.appendFile(path.join(this.dir, 'touched.jsonl'), `${JSON.stringify({ seq, files })}\n`);
  }

  /** Every file the calls followed by `afterCall` changed (relative to the repository's top). */
  touched(): string[] {
    let text = '';
    try {
      text = fs.readFileSync(path.join(this.dir, 'touched.jsonl'), 'utf8');
    } catch {
      return [];
    }
    return parseTouched(text);
  }

  /** The tree of the folder as it is now, through a copy of the user's index (theirs is only read). */
  private async snapshotTree({ hardening, gitDir }: WorkTreeBatch): Promise<string> {
    const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'skein-index-'));
    const index = path.join(temp, 'index');
    try {
      // The user's index is $GIT_DIR/index: the batch pins GIT_DIR and never passes GIT_INDEX_FILE on.
      const userIndex = path.join(gitDir, 'index');
      const userBytes = readNoFollow(userIndex);
      if (userBytes) fs.writeFileSync(index, userBytes);
      const withIndex = withVariables(hardening, { GIT_INDEX_FILE: index });
      await git(this.workDir, ['add', '-A', '--', '.'], [0], withIndex);
      return (await git(this.workDir, ['write-tree'], [0], withIndex)).stdout.trim();
    } finally {
      fs.rmSync(temp, { recursive: true, force: true });
    }
  }

  /** The first checkpoint after `seq`: the folder as it was at `seq` (undefined: nothing written since). */
  private after(seq: number): Entry[] {
    return entriesAfter(this.entries(), seq);
  }

  async preview(seq: number): Promise<RewindPreview> {
    const later = this.after(seq);
    if (!later.length) return { files: [], diff: '', notes: ['Nothing was written after this point: the files are as they were.'] };
    const first = later[0]!;
    if ('commit' in first) {
      const batch = await workTreeBatch(this.workDir);
      if (!batch) throw new GitError(`${this.workDir} is no longer in a git work tree: its checkpoints cannot be compared or rewound`);
      const now = await this.snapshotTree(batch);
      const status = (await git(this.workDir, ['diff', '--name-status', '--no-renames', '--relative', now, first.commit, '--', '.'])).stdout;
      const files = parseNameStatus(status);
      const diff = (await git(this.workDir, ['diff', '--no-renames', '--relative', now, first.commit, '--', '.'])).stdout;
      return { files, diff, notes: [] };
    }
    const preview = plainPreview(this.workDir, later.filter((e): e is PlainEntry => 'files' in e), this.store);
    const note = untrackedNote(later);
    if (note) preview.notes.unshift(note);
    return preview;
  }

  /** Where a folder outside git keeps its copies. */
  private get store(): string {
    return path.join(this.dir, 'checkpoints');
  }

  /** Puts the files back as they were at `seq`, byte for byte; returns the paths it changed. */
  async rewind(seq: number): Promise<string[]> {
    const later = this.after(seq);
    if (!later.length) return [];
    const first = later[0]!;
    const { files } = await this.preview(seq);
    if ('commit' in first) {
      const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'skein-index-'));
      const env = { GIT_INDEX_FILE: path.join(temp, 'index') };
      try {
        await git(this.workDir, ['read-tree', `${first.commit}^{tree}`], [0], await hardenedWith(this.workDir, env));
        // Through the door: a parent folder swapped for a link since the preview is refused, not deleted through.
        const door = new Door(this.workDir);
        for (const f of files) if (f.change === 'delete') door.remove(f.path);
        const restore = files.filter((f) => f.change !== 'delete').map((f) => f.path);
        if (restore.length) await git(this.workDir, ['checkout-index', '-f', '--', ...restore], [0], await hardenedWith(this.workDir, env));
      } finally {
        fs.rmSync(temp, { recursive: true, force: true });
      }
      return files.map((f) => f.path);
    }
    plainRewind(this.workDir, later.filter((e): e is PlainEntry => 'files' in e), this.store);
    return files.map((f) => f.path);
  }
}
