// The deterministic ledger: built without an LLM from the folded span, so it
// cannot invent anything. User messages verbatim; every path touched, with
// how and how often; commands with their exit status, repeats collapsed with
// a count; each distinct error line with its first and last occurrence.
// Carried forward: the ledger of an earlier summary that gets folded again is
// merged in, deduplicated. It is held to a token budget, spent by recency and
// by kind; what does not fit is counted and stays reachable with search_history.
import { parsePlan, PLAN_TOOL } from '../../shared/plan.js';
import { INSTRUCTIONS_NOTE_OPEN, isSkeinNote, type Ledger } from '../../shared/protocol.js';
import { tokensOf } from '../llm/tokens.js';
import { pathsInCommand } from './command-paths.js';
import { savedMessagePointer } from './large-message.js';
import { folderOf, renderLedger } from './ledger-render.js';
import { identifiersIn } from './identifiers.js';
import { describeSearchCall } from './tool-descriptions.js';
import type { SourcedMessage } from './types.js';

export { pathsInCommand, renderLedger };

/** Share of the compaction target the ledger may take. */
export const LEDGER_BUDGET_SHARE = 0.15;
/** The budget when no target is given. */
export const DEFAULT_LEDGER_TOKENS = 2000;
const COMMAND_CHARS = 300;
/** First pass: each kind gets this share of the budget, newest first; the rest goes by recency alone. */
const SHARES = { paths: 0.3, errors: 0.15, commands: 0.55 } as const;
/**
 * Share of the budget the identifiers of the folded span may take (before the
 * other kinds share the rest): the names a later step most often needs again
 * are in the agent's own words and in the outputs it read, not in its commands.
 */
export const IDENTIFIER_SHARE = 0.4;
/** Identifiers per token of the budget, roughly: a name and its comma are about 4 tokens. */
const CHARS_PER_TOKEN = 3;
/** Names that are skein's own wording (placeholders, summaries), not the work's. */
const OWN_WORDS = new Set(['search_history', 'fromSeq', 'toSeq', 'compact_history', 'update_plan']);

const HOW_BY_TOOL: Record<string, string> = { read_file: 'r', write_file: 'w', edit_file: 'e' };
/** File tools are recorded by their paths; listing them as commands too would say it twice. */
const PATH_ONLY_TOOLS = new Set(['read_file', 'write_file', 'edit_file']);
/** Reading the log is not work on the project. */
const SKIPPED_TOOLS = new Set(['search_history', PLAN_TOOL]);

export function ledgerBudget(targetTokens: number): number {
  return Math.max(200, Math.floor(LEDGER_BUDGET_SHARE * targetTokens));
}

export function emptyLedger(): Ledger {
  return { userMessages: [], filesRead: [], filesWritten: [], commands: [], errors: [], omitted: { commands: 0, errors: 0, files: 0 }, paths: [], errorLines: [] };
}

type PathEntry = NonNullable<Ledger['paths']>[number];
type ErrorEntry = NonNullable<Ledger['errorLines']>[number];
type CommandEntry = Ledger['commands'][number];

/** What a ledger holds while it is built: maps, so repeats merge. */
class Builder {
  readonly users: Ledger['userMessages'] = [];
  readonly paths = new Map<string, PathEntry>();
  readonly commands = new Map<string, CommandEntry>();
  readonly errors = new Map<string, ErrorEntry>();
  readonly omitted: Ledger['omitted'] = { commands: 0, errors: 0, files: 0 };
  /** Identifiers, each at the latest place it was named (a Map keeps insertion order: re-inserted when named again). */
  readonly names = new Map<string, number>();
  /** The latest plan and changed instructions seen so far (folded messages come in order). */
  plan: Ledger['plan'];
  instructions: Ledger['instructions'];

  touch(path: string, how: string, seq: number, count = 1): void {
    const p = this.paths.get(path);
    if (!p) this.paths.set(path, { path, how, count, seq });
    else {
      for (const h of how) if (!p.how.includes(h)) p.how += h;
      p.count += count;
      p.seq = Math.max(p.seq, seq);
    }
  }

  command(c: CommandEntry): void {
    const earlier = this.commands.get(c.command);
    if (!earlier) this.commands.set(c.command, { ...c, count: c.count ?? 1, firstSeq: c.firstSeq ?? c.seq });
    else {
      const later = c.seq >= earlier.seq;
      earlier.count = (earlier.count ?? 1) + (c.count ?? 1);
      earlier.firstSeq = Math.min(earlier.firstSeq ?? earlier.seq, c.firstSeq ?? c.seq);
      if (later) Object.assign(earlier, { seq: c.seq, status: c.status });
    }
  }

  error(e: ErrorEntry): void {
    const earlier = this.errors.get(e.text);
    if (!earlier) this.errors.set(e.text, { ...e });
    else {
      earlier.count += e.count;
      earlier.firstSeq = Math.min(earlier.firstSeq, e.firstSeq);
      earlier.lastSeq = Math.max(earlier.lastSeq, e.lastSeq);
    }
  }

  name(text: string, seq: number): void {
    // The whole text's names (the budget picks the newest later); 1 MB of them is already far past any budget.
    for (const id of identifiersIn(text, 1_000_000).ids) {
      if (OWN_WORDS.has(id)) continue;
      this.names.delete(id);
      this.names.set(id, seq);
    }
  }

  /** An earlier summary's ledger, folded again. */
  merge(earlier: Ledger, seq: number): void {
    // Its names are older than anything folded after it: oldest first, so newer ones move past them.
    for (const id of [...(earlier.identifiers ?? [])].reverse()) if (!this.names.has(id)) this.names.set(id, seq);
    this.users.push(...earlier.userMessages);
    if (earlier.paths) for (const p of earlier.paths) this.touch(p.path, p.how, p.seq, p.count);
    else {
      for (const f of earlier.filesRead) this.touch(f, 'r', 0);
      for (const f of earlier.filesWritten) this.touch(f, 'w', 0);
    }
    for (const c of earlier.commands) this.command(c);
    if (earlier.errorLines) for (const e of earlier.errorLines) this.error(e);
    else for (const text of earlier.errors) this.error({ text, firstSeq: 0, lastSeq: 0, count: 1 });
    this.omitted.commands += earlier.omitted.commands;
    this.omitted.errors += earlier.omitted.errors;
    this.omitted.files += earlier.omitted.files;
    if (earlier.plan) this.plan = earlier.plan;
    if (earlier.instructions) this.instructions = earlier.instructions;
    if (earlier.omitted.userMessages) this.omitted.userMessages = (this.omitted.userMessages ?? 0) + earlier.omitted.userMessages;
  }

  ledger(): Ledger {
    const bySeq = <T extends { seq?: number; lastSeq?: number }>(list: T[]) => list.sort((a, b) => (a.seq ?? a.lastSeq ?? 0) - (b.seq ?? b.lastSeq ?? 0));
    return withFileLists({
      userMessages: this.users,
      filesRead: [],
      filesWritten: [],
      commands: bySeq([...this.commands.values()]),
      errors: [],
      omitted: { ...this.omitted },
      paths: bySeq([...this.paths.values()]),
      errorLines: bySeq([...this.errors.values()]),
      identifiers: [...this.names.keys()].reverse(),
      ...(this.plan && { plan: this.plan }),
      ...(this.instructions && { instructions: this.instructions }),
    });
  }
}

/** The ledger of `folded`, merged after the ledgers of any earlier summaries inside it, within `budgetTokens`. */
export function buildLedger(folded: readonly SourcedMessage[], budgetTokens = DEFAULT_LEDGER_TOKENS): Ledger {
  const b = new Builder();
  const results = new Map<string, SourcedMessage>();
  for (const m of folded) if (m.role === 'tool' && m.toolCallId) results.set(m.toolCallId, m);
  for (const m of folded) {
    if (m.summaryOf) {
      if (m.summaryOf.ledger) b.merge(m.summaryOf.ledger, m.seq);
      continue;
    }
    // The agent's words and calls, and the outputs it read (a cleared one by the names its placeholder lists).
    if (m.role === 'assistant' || m.role === 'tool') b.name([m.content, ...(m.toolCalls ?? []).map((c) => JSON.stringify(c.input))].join('\n'), m.seq);
    if (m.content.startsWith(INSTRUCTIONS_NOTE_OPEN)) {
      // Changed project instructions are kept whole (the latest), not as a user message.
      b.instructions = { seq: m.seq, text: m.content };
      continue;
    }
    if (m.role === 'user' && !isSkeinNote(m.content)) {
      // Whole, line breaks and all; one saved as a file (too large for the window) by its pointer line.
      b.users.push({ seq: m.seq, text: savedMessagePointer(m.content) ?? m.content });
    }
    for (const call of m.toolCalls ?? []) {
      if (call.name === PLAN_TOOL) {
        // A valid plan is exactly one the tool accepted: the latest replaces the one before.
        const parsed = parsePlan(call.input);
        if (parsed.ok) b.plan = { seq: m.seq, ...parsed.plan };
      }
      if (SKIPPED_TOOLS.has(call.name)) continue;
      const result = results.get(call.id);
      const seq = result?.seq ?? m.seq;
      const status = result ? statusOf(result.content) : 'no result';
      for (const path of pathsOfInput(call.input)) b.touch(path, howByTool(call.name), seq);
      const command = typeof call.input.command === 'string' ? call.input.command : undefined;
      if (command) {
        const named = pathsInCommand(command);
        for (const p of named.read) {
          b.touch(p, named.written.includes(p) ? 'w' : named.listed.includes(p) ? 'l' : named.grepped.includes(p) ? 'g' : 'r', seq);
        }
      }
      if (!PATH_ONLY_TOOLS.has(call.name) || !result || isErrorStatus(status)) {
        const described = command ?? describeSearchCall(call.name, call.input) ?? `${call.name} ${JSON.stringify(call.input)}`;
        b.command({ seq, command: clip(described, COMMAND_CHARS), status });
      }
      if (result && isErrorStatus(status)) for (const text of errorLines(result.content)) b.error({ text, firstSeq: seq, lastSeq: seq, count: 1 });
    }
  }
  return withinBudget(b.ledger(), budgetTokens);
}

type UserEntry = Ledger['userMessages'][number];

/**
 * A ledger made for a tight spot: a smaller budget (default: half) for paths,
 * commands and errors. A user's words are never cut: every message stays
 * whole. With `boundUsers` (overflow recovery: a small window, a session of
 * many later messages) the user messages are held to half the budget, newest
 * first: each stays whole while it fits, else it becomes a pointer to its
 * event (its size, and the search_history call that finds any line of it);
 * only when not even the pointers fit are the oldest counted and left to
 * search_history, so the ledger cannot outgrow the window it serves.
 */
export function leanerLedger(l: Ledger, budget = Math.floor((l.budgetTokens ?? DEFAULT_LEDGER_TOKENS) / 2), boundUsers = false): Ledger {
  if (!boundUsers) return withinBudget(l, budget);
  const cost = (u: UserEntry) => tokensOf(u.text) + 8;
  const userBudget = Math.floor(budget / 2);
  // A pointer is some fifty tokens: a message shorter than its pointer stays itself.
  const shorter = (u: UserEntry) => (cost(pointerTo(u)) < cost(u) ? pointerTo(u) : u);
  let used = 0;
  const kept: UserEntry[] = [];
  let counted = 0;
  for (let i = l.userMessages.length - 1; i >= 0; i--) {
    const u = l.userMessages[i]!;
    const entry = used + cost(u) <= userBudget ? u : shorter(u);
    // A pointer carried from an earlier lean ledger is held to the bound too: else every fold adds
    // its own and the ledger outgrows the small window it serves.
    if (used + cost(entry) > userBudget) {
      counted = i + 1;
      break;
    }
    used += cost(entry);
    kept.unshift(entry);
  }
  // The oldest (the task, when a small window folded the first message) keeps at least its pointer, past the bound.
  if (counted > 0) {
    kept.unshift(shorter(l.userMessages[0]!));
    counted--;
  }
  const omitted = counted ? { ...l.omitted, userMessages: (l.omitted.userMessages ?? 0) + counted } : l.omitted;
  return withinBudget({ ...l, userMessages: kept, omitted }, budget);
}

/** A user message too long for a lean ledger, by its event: never a cut-off start that reads as the whole. */
function pointerTo(u: UserEntry): UserEntry {
  if (u.pointer || u.truncated) return u;
  const lines = u.text.split('\n').length;
  const text =
    `[event ${u.seq}, long message of ${u.text.length.toLocaleString('en-US')} characters in ${lines} line${lines === 1 ? '' : 's'}, ` +
    `not repeated here for room: search_history {"fromSeq": ${u.seq}, "toSeq": ${u.seq}, "query": "…"} finds any line of it]`;
  return { seq: u.seq, text, pointer: true };
}

interface Item {
  kind: keyof typeof SHARES;
  seq: number;
  /** Tokens it adds to the rendered ledger (counted once, when first needed). */
  cost: () => number;
  /** A cheap lower bound of `cost`. */
  floor: number;
  index: number;
}

function lazy(kind: Item['kind'], seq: number, index: number, chars: number, count: () => number): Item {
  let cost: number | undefined;
  return { kind, seq, index, floor: Math.floor(chars / 8), cost: () => (cost ??= count()) };
}

/**
 * Keeps what fits in `budget` tokens: user messages always; then each kind
 * (paths, errors, commands) its share, newest first; then whatever else fits,
 * newest first. What is left out is counted in `omitted`.
 */
export function withinBudget(l: Ledger, budget: number): Ledger {
  const paths = l.paths ?? [];
  const errorLines = l.errorLines ?? [];
  const users = tokensOf(l.userMessages.map((u) => u.text).join('\n')) + 8 * l.userMessages.length;
  const identifiers = newestNames(l.identifiers ?? [], Math.floor(IDENTIFIER_SHARE * budget));
  const room = Math.max(budget - users - 60 - identifiers.tokens, Math.floor(budget * 0.25));
  const items: Item[] = [
    ...pathCosts(paths).map((cost, index) => ({ kind: 'paths' as const, seq: paths[index]!.seq, cost: () => cost, floor: cost, index })),
    ...errorLines.map((e, index) => lazy('errors', e.lastSeq, index, e.text.length, () => tokensOf(e.text) + 10)),
    ...l.commands.map((c, index) =>
      lazy('commands', c.seq, index, c.command.length, () => tokensOf(c.command) + (isErrorStatus(c.status) ? tokensOf(c.status) + 2 : 0) + 4),
    ),
  ];
  const newestFirst = [...items].sort((a, b) => b.seq - a.seq || b.index - a.index);
  const taken = new Set<Item>();
  // Counting tokens is the slow part: an item whose cheap lower bound does not fit is never counted.
  const fits = (item: Item, left: number) => item.floor <= left && item.cost() <= left;
  let used = 0;
  for (const kind of Object.keys(SHARES) as (keyof typeof SHARES)[]) {
    let spent = 0;
    for (const item of newestFirst) {
      if (item.kind !== kind || !fits(item, SHARES[kind] * room - spent)) continue;
      spent += item.cost();
      taken.add(item);
    }
    used += spent;
  }
  for (const item of newestFirst) {
    if (taken.has(item) || !fits(item, room - used)) continue;
    used += item.cost();
    taken.add(item);
  }
  const keep = (kind: Item['kind']) => new Set([...taken].filter((i) => i.kind === kind).map((i) => i.index));
  const [keptPaths, keptErrors, keptCommands] = [keep('paths'), keep('errors'), keep('commands')];
  return withFileLists({
    ...l,
    ...(l.identifiers && { identifiers: identifiers.kept }),
    commands: l.commands.filter((_, i) => keptCommands.has(i)),
    paths: paths.filter((_, i) => keptPaths.has(i)),
    errorLines: errorLines.filter((_, i) => keptErrors.has(i)),
    omitted: {
      commands: l.omitted.commands + l.commands.length - keptCommands.size,
      errors: l.omitted.errors + errorLines.length - keptErrors.size,
      files: l.omitted.files + paths.length - keptPaths.size,
      ...(l.omitted.userMessages && { userMessages: l.omitted.userMessages }),
    },
    budgetTokens: budget,
  });
}

/** The newest identifiers that fit in `tokens` (counted by characters: tokenising hundreds of names one by one is slow). */
function newestNames(ids: readonly string[], tokens: number): { kept: string[]; tokens: number } {
  const kept: string[] = [];
  let chars = 0;
  for (const id of ids) {
    if (chars + id.length + 2 > tokens * CHARS_PER_TOKEN) break;
    chars += id.length + 2;
    kept.push(id);
  }
  // What they really add to the rendered ledger (their heading too): the others' room is what is left.
  return { kept, tokens: kept.length ? tokensOf(kept.join(', ')) + 20 : 0 };
}

/** What each path adds to the rendered trie: its name, and its folder's line the first time. */
function pathCosts(paths: readonly PathEntry[]): number[] {
  const seen = new Set<string>();
  return paths.map((p) => {
    const dir = folderOf(p.path);
    const name = p.path.slice(dir.length);
    const own = Math.ceil((name.length + (p.how === 'r' ? 0 : p.how.length + 3) + (p.count > 1 ? 4 : 0) + 2) / 3);
    if (seen.has(dir)) return own;
    seen.add(dir);
    return own + Math.ceil(dir.length / 3) + 3;
  });
}

/** filesRead / filesWritten / errors (the fields older clients read) follow paths and errorLines. */
function withFileLists(l: Ledger): Ledger {
  const paths = l.paths ?? [];
  return {
    ...l,
    filesRead: paths.filter((p) => !/[we]/.test(p.how)).map((p) => p.path),
    filesWritten: paths.filter((p) => /[we]/.test(p.how)).map((p) => p.path),
    errors: (l.errorLines ?? []).map((e) => e.text),
  };
}

function pathsOfInput(input: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (typeof input.path === 'string' && input.path) out.push(input.path);
  if (Array.isArray(input.paths)) for (const p of input.paths) if (typeof p === 'string' && p) out.push(p);
  return out;
}

function howByTool(name: string): string {
  return HOW_BY_TOOL[name] ?? (/list|^ls$|glob/.test(name) ? 'l' : /grep|search|find/.test(name) ? 'g' : 'r');
}

/** The status line tools put first ("exit code: 0", "killed: ...", "bash failed: ..."), else ok. */
function statusOf(output: string): string {
  const first = output.split('\n', 1)[0] ?? '';
  if (/^(exit code: -?\d+|killed: .*|\w+ failed: .*|interrupted: .*|cancelled.*)$/.test(first)) return clip(first, 120);
  const returncode = /<returncode>(-?\d+)<\/returncode>/.exec(output.slice(0, 200));
  return returncode ? `exit code: ${returncode[1]}` : 'ok';
}

function isErrorStatus(status: string): boolean {
  return !(status === 'ok' || status === 'exit code: 0');
}

/** Lines that look like errors, verbatim (a few per result; they are near the end, so only the tail is read). */
function errorLines(output: string): string[] {
  const tail = output.length > 4000 ? output.slice(-4000) : output;
  const lines = tail.split('\n').filter((l) => /(error|exception|traceback|failed|fatal|not found|denied)/i.test(l));
  const picked = (lines.length ? lines : [output.split('\n', 1)[0] ?? '']).slice(-3);
  return picked.map((l) => clip(l.trim(), 300));
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
