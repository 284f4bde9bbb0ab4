// The user's decisions on a project's .mcp.json (server/trust/store.ts) and
// the file as the user is asked about it (server/trust/project-files.ts): a
// decision is pinned to the exact content, a symlinked folder shares its
// target's decision, a changed file is asked about again with a diff, and a
// file that is a link, not a file, too large or broken never parses as trusted.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { folderKey, sha256, TRUST_FILE, TrustStore, TrustStoreError } from '../../server/trust/store.js';
import { inspectProjectFile, readGated, shown } from '../../server/trust/project-files.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
function temp(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skein-trust-'));
  made.push(dir);
  return dir;
}

const MCP = JSON.stringify({ mcpServers: { tool: { command: 'node', args: ['server.js', '${HOME}'], env: { A: '1' } }, web: { type: 'http', url: 'https://example.test/mcp', headers: { authorization: 'Bearer ${SECRET}' } } } });
const T0 = new Date('2026-01-02T03:04:05.000Z');
const T1 = new Date('2026-01-03T03:04:05.000Z');

describe('TrustStore', () => {
  it('starts with no decisions and no file; sha256 is the hex digest', () => {
    const store = new TrustStore(path.join(temp(), 'data'));
    expect(store.get('/anywhere', '.mcp.json')).toBeUndefined();
    expect(store.all()).toEqual({});
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('records a trusted decision with the content, in a 0600 file inside a 0700 folder, and reads it back by the folder real path', () => {
    const data = path.join(temp(), 'data');
    const folder = temp();
    const link = path.join(temp(), 'link');
    fs.symlinkSync(folder, link);
    const store = new TrustStore(data);
    const entry = store.decide(link, '.mcp.json', MCP, 'trusted', T0);
    expect(entry).toEqual({ decision: 'trusted', sha256: sha256(MCP), decidedAt: T0.toISOString(), trusted: { sha256: sha256(MCP), content: MCP, at: T0.toISOString() } });
    expect(store.get(folder, '.mcp.json')).toEqual(entry);
    expect(store.get(link, '.mcp.json')).toEqual(entry);
    expect(store.get(folder, 'other.json')).toBeUndefined();
    expect(Object.keys(store.all())).toEqual([fs.realpathSync(folder)]);
    expect(fs.statSync(path.join(data, TRUST_FILE)).mode & 0o777).toBe(0o600);
    expect(fs.statSync(data).mode & 0o777).toBe(0o700);
    expect(JSON.parse(fs.readFileSync(path.join(data, TRUST_FILE), 'utf8'))).toEqual({ version: 1, folders: { [fs.realpathSync(folder)]: { '.mcp.json': entry } } });
    // No temporary file is left next to it.
    expect(fs.readdirSync(data)).toEqual([TRUST_FILE]);
  });

  it('"ignored" keeps the content last trusted (for the diff) and a fresh ignore has none', () => {
    const store = new TrustStore(temp());
    const folder = temp();
    const fresh = store.decide(folder, '.mcp.json', 'x', 'ignored', T0);
    expect(fresh).toEqual({ decision: 'ignored', sha256: sha256('x'), decidedAt: T0.toISOString() });
    store.decide(folder, '.mcp.json', MCP, 'trusted', T0);
    const ignored = store.decide(folder, '.mcp.json', `${MCP} `, 'ignored', T1);
    expect(ignored).toEqual({ decision: 'ignored', sha256: sha256(`${MCP} `), decidedAt: T1.toISOString(), trusted: { sha256: sha256(MCP), content: MCP, at: T0.toISOString() } });
  });

  it('a decision on one file leaves the folder’s other files as they were', () => {
    const store = new TrustStore(temp());
    const folder = temp();
    const a = store.decide(folder, 'a.json', 'a', 'trusted', T0);
    store.decide(folder, 'b.json', 'b', 'ignored', T0);
    expect(store.get(folder, 'a.json')).toEqual(a);
    expect(store.get(folder, 'b.json')?.decision).toBe('ignored');
  });

  it('revoke forgets one file’s decision, the folder once it has none, and says whether there was one', () => {
    const data = temp();
    const store = new TrustStore(data);
    const folder = temp();
    expect(store.revoke(folder, '.mcp.json')).toBe(false);
    store.decide(folder, '.mcp.json', MCP, 'trusted', T0);
    store.decide(folder, 'b.json', 'b', 'trusted', T0);
    expect(store.revoke(folder, '.mcp.json')).toBe(true);
    expect(store.get(folder, '.mcp.json')).toBeUndefined();
    expect(store.get(folder, 'b.json')).toBeDefined();
    expect(store.revoke(folder, '.mcp.json')).toBe(false);
    expect(store.revoke(folder, 'b.json')).toBe(true);
    expect(store.all()).toEqual({});
    expect(JSON.parse(fs.readFileSync(path.join(data, TRUST_FILE), 'utf8'))).toEqual({ version: 1, folders: {} });
  });

  it('a broken or wrong-shaped trust.json trusts nothing: every use says which file and what to do', () => {
    const data = temp();
    const file = path.join(data, TRUST_FILE);
    const store = new TrustStore(data);
    for (const [text, words] of [
      ['{not json', /trust\.json is not valid JSON: fix it or delete it/],
      ['null', /expected \{"version": 1, "folders": \{\.\.\.\}\}/],
      ['{"version":1}', /expected/],
      ['{"version":1,"folders":[]}', /expected/],
      ['{"version":1,"folders":"x"}', /expected/],
      ['{"version":1,"folders":null}', /expected/],
    ] as const) {
      fs.writeFileSync(file, text);
      expect(() => store.get('/x', '.mcp.json'), text).toThrow(expect.objectContaining({ name: 'TrustStoreError' }));
      expect(() => store.get('/x', '.mcp.json'), text).toThrow(words);
      expect(() => store.decide('/x', '.mcp.json', 'c', 'trusted'), text).toThrow(words);
      // Unchanged: a broken file is never overwritten by a decision made on top of nothing.
      expect(fs.readFileSync(file, 'utf8')).toBe(text);
    }
  });

  it('an unreadable trust.json or data folder is a TrustStoreError naming the file', () => {
    const data = temp();
    fs.mkdirSync(path.join(data, TRUST_FILE));
    const store = new TrustStore(data);
    expect(() => store.all()).toThrow(/cannot read .*trust\.json: EISDIR/);
    const blocked = path.join(temp(), 'file');
    fs.writeFileSync(blocked, '');
    const under = new TrustStore(blocked);
    expect(() => under.decide(temp(), '.mcp.json', 'c', 'trusted')).toThrow(TrustStoreError);
  });

  it('a write that fails leaves no temporary file and names the file', () => {
    const data = temp();
    const store = new TrustStore(data);
    store.decide(temp(), '.mcp.json', 'c', 'trusted');
    // The rename target is a folder now: the write fails after the temporary file was written.
    fs.rmSync(path.join(data, TRUST_FILE));
    fs.mkdirSync(path.join(data, TRUST_FILE));
    fs.writeFileSync(path.join(data, TRUST_FILE, 'x'), '');
    const other = new TrustStore(data);
    expect(() => (other as unknown as { write(d: unknown): void }).write({ version: 1, folders: {} })).toThrow(/cannot write .*trust\.json/);
    expect(fs.readdirSync(data)).toEqual([TRUST_FILE]);
  });

  it('a link planted at the temporary file’s name is not written through: the decision fails and the link’s target is untouched', () => {
    const store = new TrustStore(temp());
    const victim = path.join(temp(), 'victim');
    fs.writeFileSync(victim, 'keep');
    const spy = vi.spyOn(crypto, 'randomBytes').mockReturnValue(Buffer.alloc(4) as never);
    try {
      fs.symlinkSync(victim, `${store.file}.${process.pid}.00000000.tmp`);
      expect(() => store.decide(temp(), '.mcp.json', 'c', 'trusted')).toThrow(/cannot write .*trust\.json: EEXIST/);
    } finally {
      spy.mockRestore();
    }
    expect(fs.readFileSync(victim, 'utf8')).toBe('keep');
    expect(fs.existsSync(store.file)).toBe(false);
  });

  it('a data folder where no file can be made is a TrustStoreError naming the file (no other error escapes)', () => {
    // /proc/self exists, and nothing can be created in it: the temporary file is never made.
    const store = new TrustStore('/proc/self');
    expect(() => store.decide(temp(), '.mcp.json', 'c', 'trusted')).toThrow(TrustStoreError);
    expect(() => store.decide(temp(), '.mcp.json', 'c', 'trusted')).toThrow(/cannot write \/proc\/self\/trust\.json: ENOENT/);
  });

  it('folderKey is the real path, and the resolved path of a folder that does not exist', () => {
    const folder = temp();
    const link = path.join(temp(), 'l');
    fs.symlinkSync(folder, link);
    expect(folderKey(link)).toBe(fs.realpathSync(folder));
    expect(folderKey('/no/such/folder/../x')).toBe('/no/such/x');
  });
});

describe('inspectProjectFile', () => {
  it('no .mcp.json (or a folder that is a file): nothing to ask about', () => {
    const folder = temp();
    expect(inspectProjectFile(folder, undefined)).toBeUndefined();
    const file = path.join(folder, 'f');
    fs.writeFileSync(file, '');
    expect(inspectProjectFile(file, undefined)).toBeUndefined();
  });

  it('an undecided file: status untrusted, the servers exactly as written (never ${VAR}-expanded), a shadowed name marked', () => {
    const folder = temp();
    fs.writeFileSync(path.join(folder, '.mcp.json'), MCP);
    const inspected = inspectProjectFile(folder, undefined, new Set(['web']))!;
    expect(inspected).toMatchObject({ folder: fs.realpathSync(folder), file: '.mcp.json', path: path.join(fs.realpathSync(folder), '.mcp.json'), sha256: sha256(MCP), status: 'untrusted', content: MCP });
    expect(inspected.servers).toEqual([
      { name: 'tool', transport: 'stdio', command: 'node', args: ['server.js', '${HOME}'], env: { A: '1' } },
      { name: 'web', transport: 'http', url: 'https://example.test/mcp', headerNames: ['authorization'], shadowed: true },
    ]);
    expect('error' in inspected).toBe(false);
    expect(inspected.diff).toBeUndefined();
    expect(inspected.parsed?.get('tool')).toMatchObject({ type: 'stdio', command: 'node' });
    const seen = shown(inspected);
    expect('parsed' in seen).toBe(false);
    expect(seen.servers).toEqual(inspected.servers);
  });

  it('the status follows the decision on this exact content: trusted, ignored, changed (with a diff from the content trusted)', () => {
    const folder = temp();
    const at = path.join(folder, '.mcp.json');
    fs.writeFileSync(at, MCP);
    const store = new TrustStore(temp());
    expect(inspectProjectFile(folder, store.decide(folder, '.mcp.json', MCP, 'trusted'))?.status).toBe('trusted');
    expect(inspectProjectFile(folder, store.decide(folder, '.mcp.json', MCP, 'trusted'))?.diff).toBeUndefined();
    const changed = MCP.replace('server.js', 'evil.js');
    fs.writeFileSync(at, changed);
    const inspected = inspectProjectFile(folder, store.get(folder, '.mcp.json'))!;
    expect(inspected.status).toBe('changed');
    expect(inspected.diff).toContain('-');
    expect(inspected.diff).toContain('evil.js');
    expect(inspectProjectFile(folder, store.decide(folder, '.mcp.json', changed, 'ignored'))?.status).toBe('ignored');
    // Ignored on top of a trusted version: still the diff from what was trusted.
    expect(inspectProjectFile(folder, store.get(folder, '.mcp.json'))?.diff).toContain('evil.js');
  });

  it('a FIFO in its place is refused without waiting for a writer; a path that cannot be opened is an error, not "no file"', () => {
    const folder = temp();
    execFileSync('mkfifo', [path.join(folder, '.mcp.json')]);
    const fifo = inspectProjectFile(folder, undefined)!;
    expect(fifo.error).toMatch(/\.mcp\.json is not a regular file/);
    expect(fifo.parsed).toBeUndefined();
    const long = inspectProjectFile(path.join(temp(), 'x'.repeat(300)), undefined)!;
    expect(long.error).toMatch(/^cannot read .*\.mcp\.json: ENAMETOOLONG$/);
    expect(long.servers).toEqual([]);
    expect(long.content).toBe('');
  });

  it('a regular file that opens but whose read fails is an error naming the file and the code, with nothing read', () => {
    // The kernel's /proc/self/mem is a regular file that opens; reading it at address 0 fails with EIO.
    expect(fs.lstatSync('/proc/self/mem').isFile()).toBe(true);
    expect(readGated('/proc/self/mem')).toEqual({ content: '', error: 'cannot read /proc/self/mem: EIO' });
  });

  it('leaves no descriptor open on the file it read, or on one it refused', () => {
    const folder = temp();
    const at = path.join(folder, '.mcp.json');
    fs.writeFileSync(at, MCP);
    const big = temp();
    fs.writeFileSync(path.join(big, '.mcp.json'), ' '.repeat(256 * 1024 + 1));
    expect(inspectProjectFile(folder, undefined)?.status).toBe('untrusted');
    expect(inspectProjectFile(big, undefined)?.error).toMatch(/not read/);
    const open = fs.readdirSync('/proc/self/fd').map((fd) => {
      try {
        return fs.readlinkSync(path.join('/proc/self/fd', fd));
      } catch {
        return '';
      }
    });
    expect(open.filter((p) => p.endsWith('.mcp.json'))).toEqual([]);
  });

  it('a file that does not parse: shown with the parser’s reason and no servers, never parsed', () => {
    const folder = temp();
    fs.writeFileSync(path.join(folder, '.mcp.json'), '{"mcpServers": {"x": {"type": "sse", "url": "http://a"}}}');
    const inspected = inspectProjectFile(folder, undefined)!;
    expect(inspected.error).toMatch(/old SSE transport/);
    expect(inspected.servers).toEqual([]);
    expect(inspected.parsed).toBeUndefined();
  });

  it('a symlink is shown as an error and not followed; a folder or a file over 256 KiB is not read', () => {
    const folder = temp();
    const target = path.join(temp(), 'real.json');
    fs.writeFileSync(target, MCP);
    fs.symlinkSync(target, path.join(folder, '.mcp.json'));
    const linked = inspectProjectFile(folder, undefined)!;
    expect(linked.error).toMatch(/is a symbolic link: skein does not follow it/);
    expect(linked.content).toBe('');
    expect(linked.servers).toEqual([]);
    expect(linked.parsed).toBeUndefined();

    const dirFolder = temp();
    fs.mkdirSync(path.join(dirFolder, '.mcp.json'));
    const dir = inspectProjectFile(dirFolder, undefined)!;
    expect(dir.error).toMatch(/is not a regular file/);
    // Nothing but the reason is shown of a file that is not read: its content is empty, and so is what its hash names.
    expect(dir.content).toBe('');
    expect(dir.sha256).toBe(sha256(''));

    const big = temp();
    const padded = JSON.stringify({ mcpServers: {}, pad: 'x'.repeat(256 * 1024) });
    fs.writeFileSync(path.join(big, '.mcp.json'), padded);
    const large = inspectProjectFile(big, undefined)!;
    expect(large.error).toMatch(new RegExp(`is ${Buffer.byteLength(padded)} bytes \\(more than ${256 * 1024}\\): not read`));
    expect(large.parsed).toBeUndefined();
    expect(large.content).toBe('');
    // Exactly at the limit it is read.
    const edge = temp();
    const exact = JSON.stringify({ mcpServers: {} }).padEnd(256 * 1024, ' ');
    fs.writeFileSync(path.join(edge, '.mcp.json'), exact);
    expect(inspectProjectFile(edge, undefined)?.error).toBeUndefined();
  });
});
