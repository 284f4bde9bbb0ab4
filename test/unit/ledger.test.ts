import { describe, expect, it } from 'vitest';
import { buildLedger, pathsInCommand, renderLedger } from '../../server/compaction/ledger.js';
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
    expect(pathsInCommand(command)).toEqual({ read, written });
  });
});

describe('the ledger', () => {
  it('records user messages verbatim, files, commands with status and error lines; a very long message becomes a pointer', () => {
    const log = new LogBuilder();
    log.user('the task');
    log.user('please fix src/app.ts');
    log.tools(['a'], true, 'exit code: 0\nok', () => 'cat src/app.ts');
    log.tools(['b'], true, 'exit code: 1\nTraceback (most recent call last):\nValueError: bad input', () => 'python run.py > out.log');
    log.user('x'.repeat(5000));
    const ledger = buildLedger(deriveView(log.events).slice(1));
    expect(ledger.userMessages.map((u) => u.text.slice(0, 20))).toEqual(['please fix src/app.t', 'x'.repeat(20)]);
    expect(ledger.userMessages[1]).toMatchObject({ truncated: true, seq: 9 });
    expect(ledger.filesRead).toEqual(['src/app.ts', 'run.py']);
    expect(ledger.filesWritten).toEqual(['out.log']);
    expect(ledger.commands.map((c) => `${c.command} -> ${c.status}`)).toEqual(['cat src/app.ts -> exit code: 0', 'python run.py > out.log -> exit code: 1']);
    expect(ledger.errors).toEqual(['Traceback (most recent call last):', 'ValueError: bad input']);
    const text = renderLedger(ledger);
    expect(text).toContain('- please fix src/app.ts');
    expect(text).toContain('[event 9, long message, start only]');
  });
});
