// The names skein keeps of what leaves the model's view: a cleared result's
// placeholder lists the identifiers its output held (skein's clearing only:
// the event's clearedIndex), and the ledger lists those of a folded span,
// newest first, carried across folds and held to its share of the budget.
import { describe, expect, it } from 'vitest';
import { identifiersIn } from '../../server/compaction/identifiers.js';
import { buildLedger, IDENTIFIER_SHARE, renderLedger, withinBudget } from '../../server/compaction/ledger.js';
import { clearToolResults } from '../../server/compaction/strategies/clear-tool-results.js';
import { measure, type CompactionContext, type Draft } from '../../server/compaction/pipeline.js';
import { deriveView, INDEX_MAX_CHARS, INDEX_SHARE } from '../../server/compaction/view.js';
import { tokensOf } from '../../server/llm/tokens.js';
import { LogBuilder } from '../helpers/events.js';

const TRACEBACK = [
  'Traceback (most recent call last):',
  '  File "django/db/models/query.py", line 412, in get_prefetch_queryset',
  '    ReverseOneToOneDescriptor.get_prefetch_queryset(instances)',
  'sqlite3.OperationalError: no such table: auth_user',
  'lint: pylint/lint/run.py:88: C0301 line too long',
].join('\n');

describe('identifiers of an output', () => {
  it('takes paths (with their line), dotted, snake_case and CamelCase symbols and error codes, in order of first appearance', () => {
    const { ids, more } = identifiersIn(TRACEBACK, 10_000);
    expect(ids).toEqual([
      'django/db/models/query.py',
      // get_prefetch_queryset is inside the dotted name below.
      'ReverseOneToOneDescriptor.get_prefetch_queryset',
      'sqlite3.OperationalError',
      'auth_user',
      'pylint/lint/run.py:88',
      'C0301',
    ]);
    expect(more).toBe(0);
  });

  it('a name inside a longer one already listed is not listed again (the file of a path, the attribute of a dotted name)', () => {
    const { ids } = identifiersIn('see query.py and django/db/models/query.py; OperationalError from sqlite3.OperationalError', 10_000);
    expect(ids).not.toContain('query.py');
    expect(ids).not.toContain('OperationalError');
    expect(ids).toContain('django/db/models/query.py');
  });

  it('stays within its characters and counts the rest', () => {
    const text = Array.from({ length: 100 }, (_, i) => `def handler_${i}_end(): pass`).join('\n');
    const { ids, more } = identifiersIn(text, 200);
    expect(ids.join(', ').length).toBeLessThanOrEqual(200);
    expect(ids[0]).toBe('handler_0_end');
    expect(ids.length + more).toBe(100);
  });
});

function clearingDraft(index: boolean) {
  const log = new LogBuilder();
  log.user('fix it');
  for (let i = 0; i < 5; i++) log.tools([`c${i}`], true, `${TRACEBACK}\n${'x'.repeat(2000)}`, () => `python run_${i}.py`);
  const messages = deriveView(log.events);
  const ctx = { base: { system: '', tools: [] }, contextWindow: 100_000, targetTokens: 10, force: true, level: 0 } as unknown as CompactionContext;
  const draft: Draft = { messages, tokens: measure(messages, ctx), strategies: [] };
  return clearToolResults(1, { index }).run(draft, ctx);
}

describe('a cleared result names what its output held', () => {
  it("skein's clearing lists the output's identifiers in the placeholder, within its share of the output", async () => {
    const cleared = await clearingDraft(true);
    const placeholders = cleared.messages.filter((m) => m.clearedChars !== undefined);
    expect(placeholders).toHaveLength(4);
    expect(cleared.clearedIndex).toBe(true);
    for (const m of placeholders) {
      expect(m.content).toContain('Names in it: django/db/models/query.py, ReverseOneToOneDescriptor.get_prefetch_queryset, sqlite3.OperationalError, auth_user, pylint/lint/run.py:88, C0301.');
      const names = /Names in it: (.*?)\. search_history/.exec(m.content)![1]!;
      expect(names.length).toBeLessThanOrEqual(Math.min(INDEX_MAX_CHARS, INDEX_SHARE * m.clearedChars!));
    }
  });

  it('the view derived from the log again shows the same placeholders (the event carries clearedIndex)', async () => {
    const log = new LogBuilder();
    log.user('fix it');
    for (let i = 0; i < 3; i++) log.tools([`c${i}`], true, `${TRACEBACK}\n${'x'.repeat(2000)}`);
    log.add({ kind: 'compaction', phase: 'finished', trigger: 'strategy', strategy: 'clear_stale_results', summary: 's', clearedThroughSeq: 5, clearedIndex: true, tokensBefore: 0, tokensAfter: 0, messagesBefore: 0, messagesAfter: 0 });
    const view = deriveView(log.events);
    expect(view[2]!.content).toContain('Names in it: django/db/models/query.py');
    // An event without it (a peer's clearing, or a log of an older version) keeps the plain placeholder.
    const plain = deriveView(log.events.map((e) => (e.kind === 'compaction' ? { ...e, clearedIndex: undefined } : e)));
    expect(plain[2]!.content).toMatch(/^\[tool result cleared to save context \(event 4\)/);
    expect(plain[2]!.content).not.toContain('Names in it');
  });

  it('without the index (a peer emulation) the placeholder only names the call', async () => {
    const cleared = await clearingDraft(false);
    expect(cleared.clearedIndex).toBe(false);
    expect(cleared.messages.filter((m) => m.clearedChars !== undefined).every((m) => !m.content.includes('Names in it'))).toBe(true);
  });
});

describe("the ledger's names", () => {
  it("lists the names of the agent's words and the outputs it read, newest first, and skips skein's own words", () => {
    const log = new LogBuilder();
    log.user('fix it');
    log.agent('The bug is in parse_header_value, see requests/utils.py.', false);
    log.tools(['a'], true, 'def unquote_header_value(value): ...\nsearch_history is not a name of the work');
    const ledger = buildLedger(deriveView(log.events).slice(1), 10_000);
    // Newest message first (within one message, from its end).
    expect(ledger.identifiers).toEqual(['unquote_header_value', 'requests/utils.py', 'parse_header_value']);
    expect(renderLedger(ledger)).toContain('unquote_header_value, requests/utils.py, parse_header_value');
  });

  it('carries an earlier ledger\'s names into the next fold, behind the newer ones', () => {
    const earlier = { ...buildLedger([], 10_000), identifiers: ['old_name', 'shared_name'] };
    const log = new LogBuilder();
    log.user('fix it');
    log.agent('now shared_name and new_name', false);
    const folded = [{ role: 'user' as const, content: 'x', seq: 1, summaryOf: { summary: 's', ledger: earlier, covers: [1, 1] as [number, number] } }, ...deriveView(log.events).slice(1)];
    expect(buildLedger(folded, 10_000).identifiers).toEqual(['new_name', 'shared_name', 'old_name']);
  });

  it('holds the names to their share of the budget, keeping the newest, and the whole ledger within the budget', () => {
    const log = new LogBuilder();
    log.user('fix it');
    for (let i = 0; i < 300; i++) log.agent(`looking at module_${i}.function_number_${i} in src/pkg_${i}/file_${i}.py`, false);
    const full = buildLedger(deriveView(log.events).slice(1), 100_000);
    const small = withinBudget(full, 1500);
    expect(small.identifiers!.slice(0, 2)).toEqual(['src/pkg_299/file_299.py', 'module_299.function_number_299']);
    expect(tokensOf(small.identifiers!.join(', '))).toBeLessThanOrEqual(IDENTIFIER_SHARE * 1500);
    expect(small.identifiers!.length).toBeLessThan(full.identifiers!.length);
    expect(tokensOf(renderLedger(small))).toBeLessThanOrEqual(1500);
  });
});
