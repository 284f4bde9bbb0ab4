// For random tool calls (random tool names; bash commands that are strings,
// arrays or objects; paths with `..`, `./`, `//`, trailing slashes, `.git`
// components in any case, protected names and unicode; random JSON inputs) and
// random sequences of decisions on them, driven through the real ApprovalGate
// on a real event log: a session rule never approves a call that does not
// match exactly a call the user approved for the session, never approves a
// protected path, and rules logged without their scope (as older versions
// wrote them) or for protected paths approve nothing.
//
// "Exactly", computed here independently of the code under test:
// - same tool name;
// - bash: both commands are strings and equal;
// - read_file / write_file / edit_file: both paths are strings naming the same
//   file once normalised against the working folder (which has no links);
// - any other tool: the same JSON input (key order aside).
// A protected path: a `.git` component at any depth (any case), a file named
// .mcp.json, AGENTS.md or CLAUDE.md (any case), or anything outside the folder.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentState, ApprovalDecision, ApprovalRule } from '../../shared/protocol.js';
import { ApprovalGate } from '../../server/agent/approvals.js';
import { Session } from '../../server/agent/session.js';
import type { ToolCall } from '../../server/llm/types.js';
import { EventLog } from '../../server/store/event-log.js';
import { tempDir } from '../helpers/temp-dir.js';

const SEED = Number(process.env.SKEIN_PROPERTY_SEED ?? 21);
const PATH_TOOLS = ['read_file', 'write_file', 'edit_file'];

/** The working folder: a repository with files, no links (the oracle normalises without resolving links). */
const work = fs.realpathSync(tempDir('approval-prop'));
for (const dir of ['.git/hooks', 'src/deep', 'sub/.git', 'é']) fs.mkdirSync(path.join(work, dir), { recursive: true });
for (const file of ['.git/config', 'src/a.ts', 'src/deep/b.ts', 'AGENTS.md', '.mcp.json', 'README.md']) fs.writeFileSync(path.join(work, file), 'x\n');

// ---- the oracle ----

function normalised(p: string): string {
  return path.relative(work, path.resolve(work, p)).split(path.sep).join('/');
}

function isProtected(p: string): boolean {
  const rel = normalised(p);
  const parts = rel.normalize('NFC').toLowerCase().split('/');
  if (rel === '..' || rel.startsWith('../') || path.isAbsolute(rel)) return true;
  return parts.includes('.git') || ['.mcp.json', 'agents.md', 'claude.md'].includes(parts.at(-1)!);
}

function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function exactly(a: Pick<ToolCall, 'name' | 'input'>, b: Pick<ToolCall, 'name' | 'input'>): boolean {
  if (a.name !== b.name) return false;
  if (a.name === 'bash') return typeof a.input.command === 'string' && a.input.command === b.input.command;
  if (PATH_TOOLS.includes(a.name)) {
    const [pa, pb] = [a.input.path, b.input.path];
    return typeof pa === 'string' && typeof pb === 'string' && !pa.includes('\0') && !pb.includes('\0') && normalised(pa) === normalised(pb);
  }
  return sameJson(a.input, b.input);
}

const touchesProtected = (call: Pick<ToolCall, 'name' | 'input'>) => PATH_TOOLS.includes(call.name) && typeof call.input.path === 'string' && isProtected(call.input.path);

// ---- the generators ----

const segment = fc.oneof(
  fc.constantFrom('.', '..', '', '.git', '.GIT', '.Git', 'src', 'Src', 'a.ts', 'deep', 'b.ts', 'sub', 'hooks', 'config', 'AGENTS.md', 'agents.md', 'CLAUDE.md', '.mcp.json', '.MCP.json', 'é', 'e\u0301', 'README.md'),
  fc.string({ minLength: 1, maxLength: 6, unit: 'grapheme' }).filter((s) => !s.includes('/')),
);
const pathArb = fc
  .tuple(fc.constantFrom('', './', '/', `${work}/`), fc.array(segment, { minLength: 1, maxLength: 5 }), fc.constantFrom('', '/', '//'))
  .map(([lead, parts, tail]) => lead + parts.join('/') + tail);
const command = fc.oneof(fc.constantFrom('ls', 'ls ', 'npm test', 'npm test; rm -rf ~', 'touch UNAPPROVED'), fc.string({ maxLength: 12 }), fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }));
const json = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const toolName = fc.oneof(fc.constantFrom('bash', 'write_file', 'edit_file', 'read_file', 'glob', 'update_plan', 'mcp__gh__create_issue', 'mcp__fs__write'), fc.string({ minLength: 1, maxLength: 8 }));

const call = toolName.chain((name): fc.Arbitrary<Pick<ToolCall, 'name' | 'input'>> => {
  if (name === 'bash') return fc.record({ command, extra: fc.option(json, { nil: undefined }) }).map(({ command: c, extra }) => ({ name, input: extra === undefined ? { command: c } : { command: c, timeout: extra } }));
  if (PATH_TOOLS.includes(name)) return fc.record({ path: fc.oneof({ weight: 9, arbitrary: pathArb }, { weight: 1, arbitrary: json }), content: fc.string({ maxLength: 5 }) }).map((input) => ({ name, input }));
  return fc.dictionary(fc.constantFrom('a', 'b', 'path', 'repo', 'title'), json, { maxKeys: 3 }).map((input) => ({ name, input }));
});

/** Rules found in logs: scope-less ones from older versions, protected paths, scopes of the wrong kind. */
const loggedRule: fc.Arbitrary<ApprovalRule> = fc.oneof(
  toolName.map((tool) => ({ tool })),
  fc.constantFrom('.git/config', '.git', 'sub/.git/config', '.mcp.json', 'AGENTS.md', '../x', '.GIT/config').chain((p) => fc.constantFrom('write_file', 'edit_file', 'read_file').map((tool) => ({ tool, path: p }))),
  fc.constantFrom<ApprovalRule>({ tool: 'bash', path: 'src/a.ts' }, { tool: 'write_file', command: 'ls' }, { tool: 'write_file', input: { path: 'src/a.ts', content: 'x' } }),
);

// ---- driving the real gate ----

interface Step {
  call: ToolCall;
  decision: ApprovalDecision;
  /** How it ended: asked (and the decision given) or decided by a rule. */
  by?: 'asked' | 'rule';
  /** Asked, approved for the session, and a rule recorded. */
  recorded?: boolean;
}

async function drive(old: ApprovalRule[], steps: Step[]): Promise<void> {
  const id = `prop-${Math.random().toString(36).slice(2, 8)}`;
  const log = EventLog.create(path.join(tempDir('approval-prop-log'), `${id}.jsonl`), { skein: 1, session: id, createdAt: new Date().toISOString(), model: 'predictable' });
  const session = new Session(id, log, 'predictable');
  for (const rule of old) session.append({ kind: 'approval_decision', callId: 'old', name: rule.tool, decision: 'approve_session', by: 'user', rule });
  let state: AgentState = 'RunningTools';
  const gate = new ApprovalGate({ session, mode: 'always', workDir: work, state: () => state, transition: (to) => void (state = to), stopped: new AbortController().signal });
  for (const step of steps) {
    gate.startAnswer();
    let settled = false;
    const cleared = gate.clear(step.call, new AbortController().signal).finally(() => (settled = true));
    while (!settled) {
      if (gate.waitingFor === step.call.id) {
        step.by = 'asked';
        const before = session.log.all().length;
        gate.decide(step.call.id, step.decision);
        step.recorded = session.log.all().slice(before).some((e) => e.kind === 'approval_decision' && e.rule !== undefined);
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    const clearance = await cleared;
    step.by ??= 'rule';
    if (step.by === 'rule') expect(clearance.run).toBe(true);
  }
}

describe('approval rules (property)', () => {
  it('a session rule approves only a call that matches exactly an approved one, never a protected path; old and protected rules approve nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(loggedRule, { maxLength: 4 }),
        fc.array(call, { minLength: 1, maxLength: 6 }),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom<ApprovalDecision>('approve', 'approve_session', 'approve_session', 'deny')), { minLength: 1, maxLength: 14 }),
        async (old, pool, picks) => {
          // Calls drawn from a small pool, so the same (or an equivalent) call comes back.
          const steps: Step[] = picks.map(([n, decision], i) => ({ call: { id: `c${i}`, ...pool[n % pool.length]! }, decision }));
          await drive(old, steps);
          for (const [i, step] of steps.entries()) {
            const approvedBefore = steps.slice(0, i).filter((s) => s.recorded);
            const covered = approvedBefore.some((s) => exactly(s.call, step.call));
            const what = JSON.stringify({ call: step.call, approved: approvedBefore.map((s) => s.call), old });
            if (step.by === 'rule') {
              // Never wider than what the user approved, never a protected path.
              expect(covered, what).toBe(true);
              expect(touchesProtected(step.call), what).toBe(false);
            } else {
              // And not vacuous: an exact repeat of an approved, unprotected call is not asked again.
              expect(covered && !touchesProtected(step.call), what).toBe(false);
            }
            // A session approval of a protected path records nothing.
            if (step.recorded) expect(touchesProtected(step.call), what).toBe(false);
          }
        },
      ),
      { numRuns: 150, seed: SEED },
    );
  }, 120_000);
});
