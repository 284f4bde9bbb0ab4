// What "Approve for this session" covers, exactly, and the paths it never covers.
//
// A rule is scoped by the kind of tool:
// - bash: the exact command string (as Codex CLI: approving `npm test` must
//   not approve `npm test; rm -rf ~`);
// - a built-in tool whose input requires a `path` (write_file, edit_file,
//   read_file): that one file, compared after resolving it the way the tool
//   will (`./a`, `a/../a`, symbolic links, trailing slashes; case as the
//   working folder's filesystem treats it);
// - any other tool, MCP tools included: the exact input (an MCP tool's input
//   means what its server decides; only an identical call is known to be the
//   same).
// A rule without its scope (`{tool: "bash"}` or `{tool: "write_file"}`, as
// older versions logged them) matches nothing. A protected path (`.git` at any
// depth, `.mcp.json`, instruction files, anything outside the working folder)
// is never covered: a call to one always asks.
import fs from 'node:fs';
import path from 'node:path';
import type { ApprovalRule } from '../../shared/protocol.js';
import type { ToolCall } from '../llm/types.js';
import { canonicalJson } from '../tools/input-schema.js';
import { resolveInside } from '../tools/paths.js';
import { TOOLS } from '../tools/registry.js';
import { INSTRUCTION_FILES } from './project-instructions.js';

type Call = Pick<ToolCall, 'name' | 'input'>;

export type RuleScope = 'command' | 'path' | 'input';

/** File names a session rule never covers, wherever they are (compared case-insensitively). */
export const PROTECTED_FILE_NAMES: readonly string[] = ['.mcp.json', ...INSTRUCTION_FILES];
/** Folder names a session rule never covers anything under, at any depth. */
export const PROTECTED_FOLDER_NAMES: readonly string[] = ['.git'];

/** How a rule for `tool` is scoped. */
export function scopeOf(tool: string): RuleScope {
  if (tool === 'bash') return 'command';
  const builtIn = TOOLS.find((t) => t.spec.name === tool);
  const required = builtIn?.spec.inputSchema.required;
  return Array.isArray(required) && required.includes('path') ? 'path' : 'input';
}

/** The rule a session approval of `call` would record, and why none would cover later calls (a protected path). */
export interface RuleOffer {
  rule: ApprovalRule;
  /** Set when approving for the session records nothing: the next such call asks again. */
  alwaysAsks?: string;
}

export function offerFor(call: Call, workDir: string): RuleOffer {
  switch (scopeOf(call.name)) {
    case 'command': {
      const command = call.input.command;
      // Only ever from a string: anything else (refused by the schema before) has no scope, and matches nothing.
      return typeof command === 'string' ? { rule: { tool: call.name, command } } : { rule: { tool: call.name }, alwaysAsks: '"command" is not a string' };
    }
    case 'path': {
      const target = targetOf(call, workDir);
      if (!target.ok) return { rule: { tool: call.name }, alwaysAsks: target.why };
      const why = protectedWhy(target.path);
      return why ? { rule: { tool: call.name, path: target.path }, alwaysAsks: why } : { rule: { tool: call.name, path: target.path } };
    }
    case 'input':
      return { rule: { tool: call.name, input: call.input } };
  }
}

export function ruleFor(call: Call, workDir: string): ApprovalRule {
  return offerFor(call, workDir).rule;
}

/** Whether `rule` covers `call` (see the top of this file for what "exactly" is). */
export function ruleMatches(rule: ApprovalRule, call: Call, workDir: string): boolean {
  if (rule.tool !== call.name) return false;
  switch (scopeOf(call.name)) {
    case 'command':
      return typeof rule.command === 'string' && typeof call.input.command === 'string' && rule.command === call.input.command;
    case 'path': {
      if (typeof rule.path !== 'string' || protectedWhy(rule.path)) return false;
      const target = targetOf(call, workDir);
      if (!target.ok || protectedWhy(target.path)) return false;
      return caseInsensitive(workDir) ? rule.path.toLowerCase() === target.path.toLowerCase() : rule.path === target.path;
    }
    case 'input':
      return rule.input !== undefined && canonicalJson(rule.input) === canonicalJson(call.input);
  }
}

/** Why a path (relative to the working folder, `/`-separated) is never covered by a rule; undefined when it may be. */
export function protectedWhy(relative: string): string | undefined {
  // NFC and lower case: on a filesystem that folds either, `.GIT` is `.git`; elsewhere asking once more costs little.
  const parts = relative.normalize('NFC').toLowerCase().split('/');
  if (parts[0] === '..' || path.isAbsolute(relative)) return `${relative} is outside the working folder`;
  const folder = parts.slice(0, -1).find((p) => PROTECTED_FOLDER_NAMES.includes(p)) ?? (PROTECTED_FOLDER_NAMES.includes(parts.at(-1)!) ? parts.at(-1) : undefined);
  if (folder) return `${relative} is inside ${folder}/, which a session approval never covers`;
  const file = parts.at(-1)!;
  if (PROTECTED_FILE_NAMES.some((n) => n.toLowerCase() === file)) return `${relative} is a protected file (${PROTECTED_FILE_NAMES.join(', ')}), which a session approval never covers`;
  return undefined;
}

type Target = { ok: true; path: string } | { ok: false; why: string };

/** The file a path tool's call acts on, relative to the working folder's real path (links resolved, as the tool resolves them). */
function targetOf(call: Call, workDir: string): Target {
  const requested = call.input.path;
  if (typeof requested !== 'string') return { ok: false, why: '"path" is not a string' };
  try {
    const real = resolveInside(workDir, requested);
    const relative = path.relative(fs.realpathSync(workDir), real).split(path.sep).join('/');
    return { ok: true, path: relative || '.' };
  } catch (err) {
    return { ok: false, why: err instanceof Error ? err.message : String(err) };
  }
}

const caseFolding = new Map<string, boolean>();

/** Whether the working folder's filesystem treats `A` and `a` as one name (tried once per folder on its own name). */
export function caseInsensitive(workDir: string): boolean {
  let known = caseFolding.get(workDir);
  if (known !== undefined) return known;
  known = false;
  try {
    const real = fs.realpathSync(workDir);
    const base = path.basename(real);
    const flipped = [...base].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
    if (flipped !== base) {
      const a = fs.statSync(real);
      const b = fs.statSync(path.join(path.dirname(real), flipped), { throwIfNoEntry: false });
      known = b !== undefined && a.ino === b.ino && a.dev === b.dev;
    }
  } catch {
    known = false;
  }
  caseFolding.set(workDir, known);
  return known;
}
