// The user's decisions on project files (a working folder's .mcp.json), kept
// in <data dir>/trust.json (mode 0600, replaced atomically). Each decision
// names the sha256 of the content the user saw: a file that changed since is
// undecided again. The content last trusted is kept too, so a change can be
// shown as a diff. The file is read afresh on every use: `skein trust` writes
// it without a server, and a running server sees the change at its next check.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const TRUST_FILE = 'trust.json';

export type TrustDecision = 'trusted' | 'ignored';

export interface FileDecision {
  decision: TrustDecision;
  /** sha256 (hex) of the content decided on. */
  sha256: string;
  decidedAt: string;
  /** The content last trusted (kept through later "ignore" decisions), for the diff when it changes. */
  trusted?: { sha256: string; content: string; at: string };
}

interface StoreFile {
  version: 1;
  /** Real path of the folder -> file name inside it (".mcp.json") -> decision. */
  folders: Record<string, Record<string, FileDecision>>;
}

export class TrustStoreError extends Error {
  override readonly name = 'TrustStoreError';
}

export function sha256(content: string | Buffer): string {
  return crypto.createHash('sha256').update(content).digest('hex');
}

/** The folder's real path: a symlink and its target share one decision. */
export function folderKey(folder: string): string {
  try {
    return fs.realpathSync(path.resolve(folder));
  } catch {
    return path.resolve(folder);
  }
}

export class TrustStore {
  readonly file: string;

  constructor(dataDir: string) {
    this.file = path.join(dataDir, TRUST_FILE);
  }

  get(folder: string, name: string): FileDecision | undefined {
    return this.read().folders[folderKey(folder)]?.[name];
  }

  /** Every decision, by folder. */
  all(): Record<string, Record<string, FileDecision>> {
    return this.read().folders;
  }

  /** Records a decision for `content`; trusting keeps the content for later diffs. */
  decide(folder: string, name: string, content: string, decision: TrustDecision, now = new Date()): FileDecision {
    const data = this.read();
    const key = folderKey(folder);
    const hash = sha256(content);
    const previous = data.folders[key]?.[name];
    const at = now.toISOString();
    const entry: FileDecision = {
      decision,
      sha256: hash,
      decidedAt: at,
      ...(decision === 'trusted' ? { trusted: { sha256: hash, content, at } } : previous?.trusted && { trusted: previous.trusted }),
    };
    data.folders[key] = { ...data.folders[key], [name]: entry };
    this.write(data);
    return entry;
  }

  /** Forgets every decision on the folder's file; true when there was one. */
  revoke(folder: string, name: string): boolean {
    const data = this.read();
    const key = folderKey(folder);
    const files = data.folders[key];
    if (!files?.[name]) return false;
    delete files[name];
    if (!Object.keys(files).length) delete data.folders[key];
    this.write(data);
    return true;
  }

  private read(): StoreFile {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, folders: {} };
      throw new TrustStoreError(`cannot read ${this.file}: ${(err as Error).message}`);
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      // Nothing is trusted from a file that cannot be read: the user is asked again (and it is rewritten whole).
      throw new TrustStoreError(`${this.file} is not valid JSON: fix it or delete it (every project file is then untrusted)`);
    }
    const folders = (data as Partial<StoreFile> | null)?.folders;
    if (typeof folders !== 'object' || folders === null || Array.isArray(folders)) throw new TrustStoreError(`${this.file}: expected {"version": 1, "folders": {...}}`);
    return { version: 1, folders };
  }

  private write(data: StoreFile): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
    try {
      fs.writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      fs.renameSync(tmp, this.file);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw new TrustStoreError(`cannot write ${this.file}: ${(err as Error).message}`);
    }
  }
}
