// search_history: the agent reads back anything in its session's log, even
// what compaction folded into a summary or cleared from its view, and the full
// outputs that were capped when they arrived. Read-only.
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import type { SkeinEvent } from '../../shared/protocol.js';
import type { Tool, ToolResult } from './tool.js';

/** Kinds searched when `kinds` is not given (state and usage are bookkeeping). */
const DEFAULT_KINDS = ['user', 'agent', 'tool_call', 'tool_result', 'compaction', 'error', 'status', 'model', 'instructions'];
const ALL_KINDS = [...DEFAULT_KINDS, 'state', 'usage'];
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/** The whole answer stays below this, whatever was asked. */
export const MAX_OUTPUT_CHARS = 12_000;
/** One event returned by a seq range, clipped to this (head and tail). */
const EVENT_CHARS = 1500;
const LINE_CHARS = 240;
const CONTEXT_LINES = 2;
const MAX_QUERY_CHARS = 1000;
/** A regular expression that runs longer than this over the log is stopped. */
const REGEX_TIMEOUT_MS = 2000;

export const searchHistoryTool: Tool = {
  readOnly: true,
  spec: {
    name: 'search_history',
    description:
      "Search this session's whole history, including what was compacted: folded spans (summaries name their seq range as events A-B), " +
      'cleared tool results, and the saved full outputs of capped results. Give a query, a seq range, or both. ' +
      'Returns matching events as short excerpts (seq, kind, tool name, a few lines of context), newest last. ' +
      'A fromSeq/toSeq range without a query returns those events themselves (clipped; state and usage events only when listed in kinds). Read-only.',
    inputSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          description: 'Text to find: matched case-insensitively as a plain substring, unless "regex" is true.',
        },
        regex: {
          type: 'boolean',
          description:
            'Read "query" as a JavaScript regular expression: the pattern alone (case-sensitive), or /pattern/flags with flags i, m, s, u, e.g. /def \\w+_cache/i.',
        },
        fromSeq: { type: 'integer', minimum: 1, description: 'First event seq to look at (inclusive)' },
        toSeq: { type: 'integer', minimum: 1, description: 'Last event seq to look at (inclusive)' },
        kinds: {
          type: 'array',
          items: { type: 'string', enum: ALL_KINDS },
          description: `Event kinds to look at (default: ${DEFAULT_KINDS.join(', ')})`,
        },
        session: { type: 'string', description: 'Search the log of a child session this one started with the task tool (its id, given in the task result) instead of this one' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: `Most events returned, newest kept (default ${DEFAULT_LIMIT})` },
      },
    },
  },
  async run(input, ctx) {
    if (!ctx.history) return { output: 'search_history is not available here', isError: true };
    if (input.session !== undefined) {
      // A child session this one started with `task`: its log, read the same way.
      const { session, ...rest } = input;
      const events = typeof session === 'string' ? ctx.childHistory?.(session) : undefined;
      if (!events) return { output: `search_history: ${JSON.stringify(session)} is not a child session of this one`, isError: true };
      return searchHistory(events, rest, { readRoots: [] });
    }
    return searchHistory(ctx.history(), input, { readRoots: ctx.readRoots ?? [] });
  },
};

interface Params {
  matcher?: Matcher;
  query?: string;
  fromSeq: number;
  toSeq: number;
  kinds: Set<string>;
  limit: number;
}

/** Finds where a query occurs in many texts at once: [first match index, match count] per text. */
type Matcher = (texts: readonly string[]) => [number, number][];

class BadInput extends Error {}

/** The search itself, on any log (the tool, tests and the survival bench call it). */
export function searchHistory(events: readonly SkeinEvent[], input: Record<string, unknown>, options: { readRoots: readonly string[] }): ToolResult {
  let params: Params;
  try {
    params = parseParams(input, events.length);
  } catch (err) {
    if (err instanceof BadInput) return { output: err.message, isError: true };
    throw err;
  }
  const candidates = events.filter((e) => e.seq >= params.fromSeq && e.seq <= params.toSeq && params.kinds.has(e.kind));
  if (!params.matcher) return listRange(candidates, params);
  // The agent's own searches echo earlier matches: leave them out of a query.
  const searchCalls = new Set(events.flatMap((e) => (e.kind === 'tool_call' && e.name === 'search_history' ? [e.callId] : [])));
  const docs: { event: SkeinEvent; text: string; where?: string }[] = [];
  for (const e of candidates) {
    if ((e.kind === 'tool_call' || e.kind === 'tool_result') && searchCalls.has(e.callId)) continue;
    const text = textOf(e);
    if (text) docs.push({ event: e, text });
    const saved = e.kind === 'tool_result' ? savedOutput(e.output, options.readRoots) : undefined;
    if (saved) docs.push({ event: e, text: saved.text, where: `in the saved full output ${saved.file}` });
  }
  let found: [number, number][];
  try {
    found = params.matcher(docs.map((d) => d.text));
  } catch (err) {
    return { output: err instanceof BadInput ? err.message : `search_history failed: ${String(err)}`, isError: true };
  }
  const hits = docs.flatMap((d, i) => (found[i]![1] > 0 ? [{ ...d, at: found[i]![0], count: found[i]![1] }] : []));
  // One event may match in its text and in its saved output: keep both, they are different places.
  const shown = hits.slice(-params.limit);
  const range = `events ${params.fromSeq}-${params.toSeq}`;
  if (!hits.length) return { output: `No match for ${params.query} in ${range}.`, isError: false };
  const header =
    hits.length > shown.length
      ? `${hits.length} matches for ${params.query} in ${range}; showing the newest ${shown.length} (pass toSeq=${shown[0]!.event.seq - 1} for older ones, or narrow the query). Newest last.`
      : `${hits.length} match${hits.length === 1 ? '' : 'es'} for ${params.query} in ${range}, newest last.`;
  const blocks = shown.map((h) => {
    const more = h.count > 1 ? `\n    (+${h.count - 1} more match${h.count === 2 ? '' : 'es'} in this ${h.where ? 'output' : 'event'})` : '';
    return `${label(h.event, events)}${h.where ? ` — ${h.where}` : ''}\n${excerpt(h.text, h.at)}${more}`;
  });
  return { output: fit(header, blocks), isError: false };
}

function parseParams(input: Record<string, unknown>, lastSeq: number): Params {
  const integer = (field: string): number | undefined => {
    const v = input[field];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new BadInput(`"${field}" must be an integer of at least 1`);
    return v;
  };
  const fromSeq = integer('fromSeq');
  const toSeq = integer('toSeq');
  const limit = integer('limit');
  if (limit !== undefined && limit > MAX_LIMIT) throw new BadInput(`"limit" must be at most ${MAX_LIMIT}`);
  if (fromSeq !== undefined && toSeq !== undefined && fromSeq > toSeq) throw new BadInput(`"fromSeq" (${fromSeq}) is after "toSeq" (${toSeq})`);
  let kinds = new Set(DEFAULT_KINDS);
  if (input.kinds !== undefined) {
    if (!Array.isArray(input.kinds) || input.kinds.some((k) => typeof k !== 'string' || !ALL_KINDS.includes(k))) {
      throw new BadInput(`"kinds" must be a list of event kinds from: ${ALL_KINDS.join(', ')}`);
    }
    kinds = new Set(input.kinds as string[]);
  }
  let query: string | undefined;
  if (input.query !== undefined) {
    if (typeof input.query !== 'string' || input.query === '') throw new BadInput('"query" must be a non-empty string');
    if (input.query.length > MAX_QUERY_CHARS) throw new BadInput(`"query" is longer than ${MAX_QUERY_CHARS} characters`);
    query = input.query;
  }
  if (input.regex !== undefined && typeof input.regex !== 'boolean') throw new BadInput('"regex" must be true or false');
  const regex = input.regex === true;
  if (regex && query === undefined) throw new BadInput('"regex" needs a "query"');
  if (query === undefined && fromSeq === undefined && toSeq === undefined) {
    throw new BadInput('give a "query", a "fromSeq"/"toSeq" range, or both');
  }
  return {
    ...(query !== undefined && { matcher: regex ? regexMatcher(query) : substringMatcher(query), query: regex ? `regex ${query}` : JSON.stringify(query) }),
    fromSeq: fromSeq ?? 1,
    toSeq: toSeq ?? Math.max(1, lastSeq),
    kinds,
    limit: limit ?? DEFAULT_LIMIT,
  };
}

/** `/pattern/flags`, or a bare pattern. */
const REGEX_LITERAL = /^\/([\s\S]+)\/([a-z]*)$/;

function substringMatcher(query: string): Matcher {
  const needle = query.toLowerCase();
  return (texts) =>
    texts.map((text) => {
      const lower = text.toLowerCase();
      let at = lower.indexOf(needle);
      const first = at;
      let count = 0;
      while (at >= 0 && count < 1000) {
        count++;
        at = lower.indexOf(needle, at + needle.length);
      }
      return [first, count];
    });
}

function regexMatcher(query: string): Matcher {
  const literal = REGEX_LITERAL.exec(query);
  const [pattern, flags] = literal ? [literal[1]!, literal[2]!] : [query, ''];
  const bad = [...flags].find((f) => !'imsu'.includes(f));
  if (bad) throw new BadInput(`invalid regular expression ${query}: flag "${bad}" is not allowed (use i, m, s, u)`);
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, `${[...new Set(flags)].join('')}g`);
  } catch (err) {
    throw new BadInput(`invalid regular expression ${query}: ${err instanceof Error ? err.message : String(err)}`);
  }
  // Run in a context with a deadline: a pattern that backtracks without end must not hang the server.
  return (texts) => {
    const context = vm.createContext({ texts, regex, out: [] as [number, number][] });
    try {
      vm.runInContext(COUNT_MATCHES, context, { timeout: REGEX_TIMEOUT_MS });
    } catch (err) {
      if (/timed out/i.test(String(err))) throw new BadInput(`the regular expression ${query} took over ${REGEX_TIMEOUT_MS / 1000} s on this history; make it simpler`);
      throw err;
    }
    return context.out as [number, number][];
  };
}

const COUNT_MATCHES = `
for (const text of texts) {
  regex.lastIndex = 0;
  let first = -1, count = 0, m;
  while (count < 1000 && (m = regex.exec(text)) !== null) {
    if (first < 0) first = m.index;
    count++;
    if (m[0] === '') regex.lastIndex++;
  }
  out.push([first, count]);
}`;

/** What a query is matched against, per event kind. */
function textOf(e: SkeinEvent): string | undefined {
  switch (e.kind) {
    case 'user':
    case 'agent':
    case 'status':
    case 'instructions':
      return e.text;
    case 'tool_call':
      return [e.name, ...Object.entries(e.input).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)].join('\n');
    case 'tool_result':
      return e.output;
    case 'compaction':
      return [e.summary, e.instructions, e.error].filter((t): t is string => typeof t === 'string').join('\n') || undefined;
    case 'error':
      return e.message;
    case 'model':
      return `model ${e.from} -> ${e.to}`;
    case 'state':
      return `${e.from} -> ${e.to}: ${e.reason}`;
    case 'usage':
      return JSON.stringify(e.gauge);
  }
}

/**
 * The full output a capped result was saved to: the path is the one written in
 * the result, read only when it lies in the session's outputs folder (a
 * command could print a look-alike note naming any file).
 */
function savedOutput(output: string, roots: readonly string[]): { file: string; text: string } | undefined {
  const named = /full output is saved at (.+?): read it/.exec(output)?.[1] ?? /full output is saved at (\S+)/.exec(output)?.[1];
  if (!named) return undefined;
  const file = path.resolve(named);
  if (!roots.some((root) => file.startsWith(path.resolve(root) + path.sep))) return undefined;
  try {
    return { file, text: fs.readFileSync(file, 'utf8') };
  } catch {
    return undefined;
  }
}

function label(e: SkeinEvent, events: readonly SkeinEvent[]): string {
  if (e.kind === 'tool_call') return `#${e.seq} tool_call ${e.name}`;
  if (e.kind === 'tool_result') {
    const call = events.find((c) => c.kind === 'tool_call' && c.callId === e.callId);
    return `#${e.seq} tool_result ${e.name}${call ? ` (call #${call.seq})` : ''}${e.isError ? ' [error]' : ''}`;
  }
  if (e.kind === 'compaction') return `#${e.seq} compaction ${e.phase}${e.coversSeq ? ` (folds events ${e.coversSeq[0]}-${e.coversSeq[1]})` : ''}`;
  return `#${e.seq} ${e.kind}`;
}

/** The lines around character `at`, numbered, the matching line marked. */
function excerpt(text: string, at: number): string {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < lineStart; i = text.indexOf('\n', i + 1)) line++;
  // Only the neighbourhood is split into lines: outputs can be megabytes.
  let from = lineStart;
  for (let k = 0; k < CONTEXT_LINES && from > 0; k++) from = text.lastIndexOf('\n', from - 2) + 1;
  let to = text.indexOf('\n', at);
  for (let k = 0; k < CONTEXT_LINES && to >= 0; k++) to = text.indexOf('\n', to + 1);
  const lines = text.slice(from, to < 0 ? undefined : to).split('\n');
  const firstLine = line - (text.slice(from, lineStart).split('\n').length - 1);
  const width = String(firstLine + lines.length).length;
  return lines
    .map((l, i) => {
      const n = firstLine + i;
      const mark = n === line ? '>' : ' ';
      const shown = n === line ? around(l, at - lineStart) : clip(l, LINE_CHARS);
      return `  ${mark}${String(n).padStart(width)}| ${shown}`;
    })
    .join('\n');
}

/** A long line clipped around column `col`. */
function around(line: string, col: number): string {
  if (line.length <= LINE_CHARS) return line;
  const start = Math.max(0, Math.min(col - LINE_CHARS / 3, line.length - LINE_CHARS));
  return `${start > 0 ? '…' : ''}${line.slice(start, start + LINE_CHARS)}${start + LINE_CHARS < line.length ? '…' : ''}`;
}

/** A seq range without a query: the events themselves, clipped. */
function listRange(candidates: readonly SkeinEvent[], params: Params): ToolResult {
  const range = `events ${params.fromSeq}-${params.toSeq}`;
  if (!candidates.length) return { output: `No events of the kinds asked for in ${range}.`, isError: false };
  const shown = candidates.slice(-params.limit);
  const header =
    shown.length < candidates.length
      ? `${candidates.length} events in ${range}; showing the newest ${shown.length} (pass toSeq=${shown[0]!.seq - 1} for older ones). Oldest first.`
      : `${candidates.length} event${candidates.length === 1 ? '' : 's'} in ${range}, oldest first.`;
  const blocks = shown.map((e) => {
    const text = textOf(e) ?? '';
    const body = text.length > EVENT_CHARS ? `${text.slice(0, (EVENT_CHARS * 2) / 3)}\n[... ${text.length - EVENT_CHARS} characters clipped ...]\n${text.slice(-EVENT_CHARS / 3)}` : text;
    return `${label(e, candidates)}\n${body.replace(/^/gm, '    ')}`;
  });
  return { output: fit(header, blocks), isError: false };
}

/** Header and blocks within MAX_OUTPUT_CHARS: the oldest blocks go first, and the header says so. */
function fit(header: string, blocks: string[]): string {
  let kept = blocks;
  let size = kept.reduce((n, b) => n + b.length + 2, header.length);
  while (kept.length > 1 && size > MAX_OUTPUT_CHARS - 200) {
    size -= kept[0]!.length + 2;
    kept = kept.slice(1);
  }
  const dropped = blocks.length - kept.length;
  const note = dropped ? `\n(${dropped} older result${dropped === 1 ? '' : 's'} left out to keep this answer short: narrow the query or the seq range.)` : '';
  return clip([header + note, ...kept].join('\n\n'), MAX_OUTPUT_CHARS);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

