import { describe, expect, it } from 'vitest';
import { buildLedger, leanerLedger, pathsInCommand, renderLedger, withinBudget } from '../../server/compaction/ledger.js';
import { pathsInLedgerText } from '../../server/compaction/ledger-render.js';
import { tokensOf } from '../../server/llm/tokens.js';
import { deriveView } from '../../server/compaction/view.js';
import { LogBuilder } from '../helpers/events.js';

describe('paths in shell commands', () => {
  it.each([
    ["cat <<'EOF' > reproduce_issue.py\nimport x\nEOF", ['reproduce_issue.py'], ['reproduce_issue.py']],
    ["sed -i 's/a/b/' requests/models.py && python reproduce_issue.py", ['requests/models.py', 'reproduce_issue.py'], ['requests/models.py']],
    ['grep -n foo src/a.ts | head', ['src/a.ts'], []],
    ['echo hi >out.txt', ['out.txt'], ['out.txt']],
    ['cat a.txt | tee -a log.txt', ['a.txt', 'log.txt'], ['log.txt']],
    ["python -c 'print(1.5)'", [], []],
    ['pip install foo==1.2.3 && ls -la', [], []],
    ['cat "docs/README.md"', ['docs/README.md'], []],
  ])('%s', (command, read, written) => {
    expect(pathsInCommand(command)).toMatchObject({ read, written });
  });

  it('folders named to a listing or search command count as listed or grepped', () => {
    expect(pathsInCommand('ls -la /testbed/django/db/ && grep -rn "def foo" src/app lib/x.py && find tests/ -name "*.py"')).toEqual({
      read: ['/testbed/django/db/', 'src/app', 'lib/x.py', 'tests/'],
      written: [],
      listed: ['/testbed/django/db/', 'tests/'],
      grepped: ['src/app', 'lib/x.py'],
    });
    // A sed expression or a URL is not a folder: only listing and search commands name folders.
    expect(pathsInCommand("sed -n 's/a/b/p' x.txt; curl http://example.com/a/b").read).toEqual(['x.txt']);
  });
});

describe('the ledger', () => {
  it('records user messages whole (a long one too, line breaks and all), files, commands with status and error lines', () => {
    const log = new LogBuilder();
    log.user('the task');
    log.user('please fix src/app.ts');
    log.tools(['a'], true, 'exit code: 0\nok', () => 'cat src/app.ts');
    log.tools(['b'], true, 'exit code: 1\nTraceback (most recent call last):\nValueError: bad input', () => 'python run.py > out.log');
    log.user(`${'x'.repeat(5000)}\nsecond line`);
    const ledger = buildLedger(deriveView(log.events).slice(1));
    expect(ledger.userMessages.map((u) => u.text.slice(0, 20))).toEqual(['please fix src/app.t', 'x'.repeat(20)]);
    expect(ledger.userMessages[1]).toEqual({ text: `${'x'.repeat(5000)}\nsecond line`, seq: 9 });
    expect(renderLedger(ledger)).toContain(`~~~\n${'x'.repeat(5000)}\nsecond line\n~~~`);
    expect(ledger.filesRead).toEqual(['src/app.ts', 'run.py']);
    expect(ledger.filesWritten).toEqual(['out.log']);
    expect(ledger.commands.map((c) => `${c.command} -> ${c.status}`)).toEqual(['cat src/app.ts -> exit code: 0', 'python run.py > out.log -> exit code: 1']);
    expect(ledger.errors).toEqual(['Traceback (most recent call last):', 'ValueError: bad input']);
    const text = renderLedger(ledger);
    expect(text).toContain('- please fix src/app.ts');
    expect(text).not.toContain('start only');
  });

  it('keeps every path touched as a trie, one line per folder, with how and how often; paths survive a second compaction deduplicated', () => {
    const log = new LogBuilder();
    log.user('the task');
    log.user('start');
    log.tools(['a'], true, 'exit code: 0\nok', () => 'cat src/app/main.ts src/app/util.ts && ls -la src/lib/');
    log.agent('', false);
    log.add({ kind: 'tool_call', callId: 'r', name: 'read_file', input: { path: 'src/app/main.ts' } });
    log.result('r', 'text');
    log.agent('', false);
    log.add({ kind: 'tool_call', callId: 'w', name: 'edit_file', input: { path: 'src/app/main.ts', old: 'a', new: 'b' } });
    log.result('w', 'replaced 1 occurrence');
    log.tools(['g'], true, 'exit code: 0\nhit', () => 'grep -rn TODO docs/guide/intro.md');
    const first = buildLedger(deriveView(log.events).slice(1));
    const text = renderLedger(first);
    expect(text).toContain('- src/app/: util.ts, main.ts (re×3)'); // most recently touched last
    expect(text).toContain('- src/: lib/ (l)');
    expect(text).toContain('- docs/guide/: intro.md (g)');
    expect(first.commands.map((c) => c.command)).toEqual(['cat src/app/main.ts src/app/util.ts && ls -la src/lib/', 'grep -rn TODO docs/guide/intro.md']);
    expect([...pathsInLedgerText(text)].sort()).toEqual(['docs/guide/intro.md', 'src/app/main.ts', 'src/app/util.ts', 'src/lib/'].sort());
    // The next compaction folds the first summary again with more work: one entry per path, counts added.
    log.compaction([2, log.events.length], 'first part');
    log.user('more');
    log.tools(['b'], true, 'exit code: 0\nok', () => 'python src/app/main.ts');
    const view = deriveView(log.events);
    expect(view[1]!.summaryOf).toBeDefined();
    view[1] = { ...view[1]!, summaryOf: { ...view[1]!.summaryOf!, ledger: first } };
    const second = buildLedger(view.slice(1));
    expect(second.paths!.filter((p) => p.path === 'src/app/main.ts')).toEqual([{ path: 'src/app/main.ts', how: 're', count: 4, seq: expect.any(Number) }]);
    expect(second.paths!.at(-1)!.path).toBe('src/app/main.ts');
    expect(second.paths).toHaveLength(4);
  });

  it('collapses repeated identical commands with a count and the latest status; keeps first and last occurrence of each distinct error', () => {
    const log = new LogBuilder();
    log.user('the task');
    for (let i = 0; i < 3; i++) log.tools([`t${i}`], true, `exit code: 1\nE   AssertionError: expected 3\nFAILED tests/test_x.py::test_a`, () => 'pytest tests/test_x.py');
    log.tools(['other'], true, 'exit code: 2\nerror: unknown flag --frob', () => 'tool --frob');
    log.tools(['last'], true, 'exit code: 0\nall passed', () => 'pytest tests/test_x.py');
    const ledger = buildLedger(deriveView(log.events).slice(1));
    expect(ledger.commands).toEqual([
      { seq: 13, command: 'tool --frob', status: 'exit code: 2', count: 1, firstSeq: 13 },
      { seq: 16, command: 'pytest tests/test_x.py', status: 'exit code: 0', count: 4, firstSeq: 4 },
    ]);
    expect(ledger.errorLines).toEqual([
      { text: 'E   AssertionError: expected 3', firstSeq: 4, lastSeq: 10, count: 3 },
      { text: 'FAILED tests/test_x.py::test_a', firstSeq: 4, lastSeq: 10, count: 3 },
      { text: 'error: unknown flag --frob', firstSeq: 13, lastSeq: 13, count: 1 },
    ]);
    const text = renderLedger(ledger);
    expect(text).toContain('- `pytest tests/test_x.py` ×4'); // exit code 0 goes without saying
    expect(text).toContain('- `tool --frob` -> exit code: 2');
    expect(text).toContain('- E   AssertionError: expected 3 (events 4 … 10, ×3)');
    expect(text).toContain('- error: unknown flag --frob (event 13)');
  });

  it('stays within its token budget, newest first; what does not fit is counted and pointed to search_history', () => {
    const log = new LogBuilder();
    log.user('the task');
    log.user('go');
    for (let i = 0; i < 200; i++) log.tools([`c${i}`], true, i % 10 ? 'exit code: 0\nok' : `exit code: 1\nerror number ${i}`, () => `python scripts/step_${i}.py --flag value-${i}`);
    const full = buildLedger(deriveView(log.events).slice(1), 100_000);
    expect(full.commands).toHaveLength(200);
    expect(full.paths).toHaveLength(200);
    const small = withinBudget(full, 1500);
    const text = renderLedger(small);
    expect(tokensOf(text)).toBeLessThanOrEqual(1500);
    expect(small.commands.at(-1)!.command).toBe('python scripts/step_199.py --flag value-199');
    expect(small.paths!.at(-1)!.path).toBe('scripts/step_199.py');
    expect(small.commands.length + small.omitted.commands).toBe(200);
    expect(small.paths!.length + small.omitted.files).toBe(200);
    expect(small.errorLines!.length + small.omitted.errors).toBe(20);
    expect(small.userMessages.map((u) => u.text)).toEqual(['go']);
    expect(text).toContain(`- (${small.omitted.commands} older commands not shown; search_history finds them)`);
    expect(text).toContain(`- (${small.omitted.files} more paths not shown; search_history finds them)`);
    // Every kind gets a share: recent errors and paths are not crowded out by commands.
    expect(small.errorLines!.length).toBeGreaterThan(0);
    expect(small.paths!.length).toBeGreaterThan(small.commands.length);
  });

  it('a lean ledger in overflow recovery (a small window) holds the user messages to half its budget: the newest stay, the older are counted, and a second fold keeps counting', () => {
    const log = new LogBuilder();
    log.user('the task');
    for (let i = 0; i < 40; i++) log.user(`Please always provide EXACTLY ONE action in triple backticks, found ${i} actions. ${'Format it as shown in the example. '.repeat(12)}`);
    const full = buildLedger(deriveView(log.events).slice(1), 100_000);
    expect(full.userMessages).toHaveLength(40);
    expect(leanerLedger(full, 300).userMessages).toHaveLength(40);
    const lean = leanerLedger(full, 300, true);
    const text = renderLedger(lean);
    // Half the budget, and past it only the oldest's pointer (the task, when a small window folded the first message).
    const [oldest, ...rest] = lean.userMessages;
    expect(oldest).toMatchObject({ seq: full.userMessages[0]!.seq, pointer: true });
    expect(tokensOf(rest.map((u) => u.text).join('\n')) + 8 * rest.length).toBeLessThanOrEqual(150);
    expect(lean.userMessages.length).toBeGreaterThan(0);
    expect(lean.userMessages.at(-1)!.text).toContain('found 39 actions');
    expect(lean.userMessages.length + lean.omitted.userMessages!).toBe(40);
    expect(text).toContain(`- (${lean.omitted.userMessages} older user messages not shown; search_history finds them)`);
    expect(tokensOf(text)).toBeLessThan(tokensOf(renderLedger(full)) / 5);
    // Folded again (a summary inside the next fold), the count carries over.
    const again = leanerLedger(buildLedger([{ role: 'user', content: 'x', seq: 1, summaryOf: { summary: 's', ledger: lean, covers: [1, 2] } } as never], 100_000), 300, true);
    expect(again.userMessages.length + again.omitted.userMessages!).toBe(40);
  });

  it('does not record status notes as user messages', () => {
    const log = new LogBuilder();
    log.user('the task');
    log.user('real');
    log.add({ kind: 'status', text: '<skein-status>context 50%</skein-status>', reason: '50%', contextTokens: 1, contextWindow: 2, costUsd: 0, calls: 1 });
    expect(buildLedger(deriveView(log.events).slice(1)).userMessages.map((u) => u.text)).toEqual(['real']);
  });
});
