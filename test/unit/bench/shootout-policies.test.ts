// SKEIN_SHOOTOUT_POLICIES: a shootout process that re-measures only the
// policies that changed (merged with the others' runs by shootout-merge.ts).
import { describe, expect, it } from 'vitest';
import { policiesOf } from '../../bench/shootout.js';

const names = (list: ReturnType<typeof policiesOf>) => list.map((make) => make(200_000).name);

describe('the shootout policies a process runs', () => {
  it("every peer, every peer with skein's placeholder and ledger, and skein, without the variable", () => {
    const peers = ['sketch', 'Claude Code', 'Codex', 'Goose', 'OpenHands', 'Cline SDK', 'OpenCode', 'observation masking'];
    expect(names(policiesOf(undefined))).toEqual([...peers, ...peers.map((p) => `${p} + skein's names`), 'skein']);
  });

  it('a part, by name, whatever the case, in the shootout order', () => {
    expect(names(policiesOf('skein, goose'))).toEqual(['Goose', 'skein']);
    // Claude Code by its name at a window it runs, which also covers its extrapolated rows.
    expect(names(policiesOf('claude code'))).toEqual(['Claude Code']);
  });

  it('an unknown name is refused with the names it may take', () => {
    expect(() => policiesOf('skein,gooose')).toThrow(/SKEIN_SHOOTOUT_POLICIES: unknown gooose; one or more of sketch, claude code, codex/);
  });
});
