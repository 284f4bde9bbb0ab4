// The shootout's tables and goal rows: per policy and window, overflows, cost
// with re-reads charged and its bootstrap interval against skein, re-reads,
// the neutral identifier measure, real user messages (harness notices apart);
// per session, every policy's cost.
import type { RunStats } from './survival.js';
import { bootstrapDiff, shareOf, shareText, verdict, type Interval } from './recall/stats.js';
import type { BenchRow } from './types.js';

export const SKEIN_NAME = 'skein';

export interface PolicyResult {
  set: string;
  window: number;
  policy: string;
  extrapolated: boolean;
  overflows: number;
  compactions: number;
  /** The model's requests and summaries, without re-reads. */
  baseUsd: number;
  rereadUsd: number;
  totalUsd: number;
  /** policy - skein, summed over sessions, with its paired bootstrap 95% interval (undefined for skein). */
  vsSkein?: Interval;
  rereads: number;
  rereadTokens: number;
  idsKept: number;
  idsTotal: number;
  realUserKept: number;
  realUserTotal: number;
  noticeKept: number;
  noticeTotal: number;
  summaryTokens: number;
  sessions: number;
  finished: number;
}

const total = (r: RunStats) => r.costUsd + r.meter.rereadUsd;

export function summarise(set: string, window: number, policy: string, extrapolated: boolean, runs: RunStats[], skeinRuns: RunStats[]): PolicyResult {
  const sum = (f: (r: RunStats) => number) => runs.reduce((n, r) => n + f(r), 0);
  const byFile = new Map(skeinRuns.map((r) => [r.file, r]));
  const paired = runs.filter((r) => byFile.has(r.file));
  return {
    set,
    window,
    policy,
    extrapolated,
    overflows: sum((r) => r.overflows),
    compactions: sum((r) => r.compactions),
    baseUsd: sum((r) => r.costUsd),
    rereadUsd: sum((r) => r.meter.rereadUsd),
    totalUsd: sum(total),
    ...(policy !== SKEIN_NAME && paired.length && { vsSkein: bootstrapDiff(paired.map(total), paired.map((r) => total(byFile.get(r.file)!))) }),
    rereads: sum((r) => r.meter.rereads),
    rereadTokens: sum((r) => r.meter.rereadTokens),
    idsKept: sum((r) => r.meter.idsKept),
    idsTotal: sum((r) => r.meter.idsTotal),
    realUserKept: sum((r) => r.meter.realUserKept),
    realUserTotal: sum((r) => r.meter.realUserTotal),
    noticeKept: sum((r) => r.meter.noticeKept),
    noticeTotal: sum((r) => r.meter.noticeTotal),
    summaryTokens: sum((r) => r.meter.summaryTokens),
    sessions: runs.length,
    finished: runs.filter((r) => r.finished).length,
  };
}

const usd = (n: number) => `$${n.toFixed(2)}`;
const signed = (n: number) => `${n >= 0 ? '+' : '-'}$${Math.abs(n).toFixed(2)}`;

function intervalText(i: Interval | undefined): string {
  if (!i) return '—';
  const v = verdict(i);
  return `${signed(i.diff)} [${signed(i.lo)}, ${signed(i.hi)}] ${v === 'tie' ? 'tie' : v === 'cheaper' ? 'cheaper than skein' : 'dearer than skein'}`;
}

export function comparisonTable(results: PolicyResult[]): string {
  const lines = [
    '| window | policy | overflow errors | compactions | cost with re-reads (base + re-reads) | vs skein: difference [95% interval] | re-reads: extra requests (tokens) | identifiers of removed content still in view (neutral) | real user messages in view | harness notices in view | summary tokens |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const name = r.policy === SKEIN_NAME ? '**skein**' : r.extrapolated ? `${r.policy}*` : r.policy;
    lines.push(
      `| ${r.window / 1000}k | ${name} | ${r.overflows} | ${r.compactions} | ${usd(r.totalUsd)} (${usd(r.baseUsd)} + ${usd(r.rereadUsd)}) | ${intervalText(r.vsSkein)} | ${r.rereads} (${r.rereadTokens.toLocaleString('en-US')}) | ${shareText(r.idsKept, r.idsTotal)} | ${shareText(r.realUserKept, r.realUserTotal)} | ${shareText(r.noticeKept, r.noticeTotal)} | ${r.summaryTokens.toLocaleString('en-US')} |`,
    );
  }
  return lines.join('\n');
}

/** One table per window: sessions down, policies across, cost with re-reads charged (overflows in brackets). */
export function perSessionTable(runs: RunStats[], window: number, policies: string[]): string {
  const files = [...new Set(runs.map((r) => r.file))].sort();
  const short = (f: string) => f.replace(/^mini-gemini3pro__/, '').replace(/\.jsonl$/, '');
  const lines = [`| ${window / 1000}k: session | ${policies.join(' | ')} |`, `|---|${policies.map(() => '---').join('|')}|`];
  for (const file of files) {
    const cells = policies.map((p) => {
      const r = runs.find((x) => x.window === window && x.policy === p && x.file === file);
      return r ? `${total(r).toFixed(3)}${r.overflows ? ` (${r.overflows} ovf)` : ''}` : '';
    });
    lines.push(`| ${short(file)} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

export function goals(set: string, window: number, results: PolicyResult[]): BenchRow[] {
  const skein = results.find((r) => r.policy === SKEIN_NAME);
  if (!skein) return [{ bench: 'shootout', measure: `${set}, ${window / 1000}k`, value: 'no whole session yet (skein and every peer on the same session)', goal: 'measured', met: false }];
  // Extrapolated rows (a tool at a window it does not support) are kept out of the goals.
  const peers = results.filter((r) => r.policy !== SKEIN_NAME && !r.extrapolated);
  const label = `${set}, ${window / 1000}k`;
  const cheapest = peers.filter((r) => r.overflows === 0).sort((a, b) => a.totalUsd - b.totalUsd)[0];
  const idShare = (r: PolicyResult) => shareOf(r.idsKept, r.idsTotal);
  const measured = peers.filter((r) => idShare(r) !== undefined).sort((a, b) => idShare(b)! - idShare(a)!);
  const best = measured[0];
  const skeinIds = idShare(skein);
  const costRow: BenchRow = cheapest
    ? (() => {
        // skein - cheapest: the peer's interval mirrored.
        const i = cheapest.vsSkein!;
        const v = verdict({ diff: -i.diff, lo: -i.hi, hi: -i.lo });
        return {
          bench: 'shootout',
          measure: `${label}: skein's cost with re-reads vs the cheapest peer with 0 overflows`,
          value: `${usd(skein.totalUsd)} vs ${usd(cheapest.totalUsd)} (${cheapest.policy}): ${v === 'cheaper' ? 'cheaper, interval excludes 0' : v === 'tie' ? 'a tie, interval holds 0' : 'dearer, interval excludes 0'}`,
          goal: '<= cheapest clean peer (interval excluding 0, or a tie stated)',
          met: v !== 'dearer',
        };
      })()
    : { bench: 'shootout', measure: `${label}: skein's cost with re-reads`, value: `${usd(skein.totalUsd)}; no peer had 0 overflows`, goal: '<= cheapest clean peer', met: true };
  return [
    { bench: 'shootout', measure: `${label}: skein's overflow errors`, value: String(skein.overflows), goal: '0', met: skein.overflows === 0 },
    costRow,
    {
      bench: 'shootout',
      measure: `${label}: skein's identifiers of removed content still in view vs the best peer (neutral); real user messages`,
      value: `${shareText(skein.idsKept, skein.idsTotal)} vs ${best ? `${shareText(best.idsKept, best.idsTotal)} (${best.policy})` : 'n/a'}; ${shareText(skein.realUserKept, skein.realUserTotal)}`,
      goal: '>= every peer; real user messages 100%',
      // n/a (skein removed nothing) is not a win: the goal is then not met, and the row says why.
      met: skeinIds !== undefined && (!best || skeinIds >= idShare(best)!) && skein.realUserKept === skein.realUserTotal,
    },
  ];
}
