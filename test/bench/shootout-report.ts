// The shootout's tables and goal rows: per policy and window, overflows,
// failed runs (stopped at the stall limit), cost with re-reads charged under
// the strict rule (primary) and the lenient one (labelled), each with its
// bootstrap interval against skein, re-reads, the neutral identifier measure,
// real user messages (harness notices apart); per session, every policy's cost.
import type { RunStats } from './survival.js';
import { bootstrapDiff, holmCorrect, shareOf, shareText, verdict, type Interval } from './recall/stats.js';
import type { BenchRow } from './types.js';

export const SKEIN_NAME = 'skein';

/** strict: a re-read is waived only when the lines needed are in view (the primary rule); lenient: a name in view is enough. */
export type RecallRule = 'strict' | 'lenient';
export const RULES: RecallRule[] = ['strict', 'lenient'];

export interface RuleResult {
  rereadUsd: number;
  /** Cost with re-reads charged, failed runs scored at their cost to finish (see scoredCost). */
  totalUsd: number;
  /** policy - skein, summed over sessions, with its paired bootstrap interval (undefined for skein); Holm-corrected by correctAcrossTable. */
  vsSkein?: Interval;
  /** The paired scored costs behind vsSkein (this policy's, skein's; session by session): what the correction resamples again. */
  paired?: { a: number[]; b: number[] };
  rereads: number;
  /** Of the re-reads, the targeted ones (strict only: a name in view without its lines). */
  targeted: number;
  rereadTokens: number;
}

export interface PolicyResult {
  set: string;
  window: number;
  policy: string;
  extrapolated: boolean;
  overflows: number;
  compactions: number;
  /** The model's requests and summaries, without re-reads. */
  baseUsd: number;
  strict: RuleResult;
  lenient: RuleResult;
  idsKept: number;
  idsTotal: number;
  realUserKept: number;
  realUserTotal: number;
  noticeKept: number;
  noticeTotal: number;
  summaryTokens: number;
  sessions: number;
  finished: number;
  /** Runs stopped at the stall limit (not finished): failures, scored at their cost to finish. */
  failed: number;
}

/** The run's own cost with re-reads under a rule (old runs without the strict measure count as lenient nowhere: they are replayed). */
export function costOf(r: RunStats, rule: RecallRule): number {
  return r.costUsd + (rule === 'strict' ? r.meter.strict.rereadUsd : r.meter.rereadUsd);
}

/**
 * A run stopped at the stall limit did not do the task: a failure, never a
 * saving. It is scored at its cost to finish, taken as the dearest cost any
 * policy paid to finish the same session at the same window (never below
 * what the failed run itself spent).
 */
export function scoredCost(r: RunStats, rule: RecallRule, sameSession: readonly RunStats[]): number {
  const own = costOf(r, rule);
  if (r.finished) return own;
  const finishedCosts = sameSession.filter((x) => x.finished && x.file === r.file && x.window === r.window).map((x) => costOf(x, rule));
  return Math.max(own, ...finishedCosts);
}

function pairedCosts(a: number[], b: number[]): Pick<RuleResult, 'vsSkein' | 'paired'> {
  return { vsSkein: bootstrapDiff(a, b), paired: { a, b } };
}

/**
 * Every comparison with skein in the report (each peer, per set, window and
 * rule) is one family: their intervals and verdicts are corrected for how many
 * there are (Holm, recall/stats.ts). Returns the family's size.
 */
export function correctAcrossTable(results: PolicyResult[]): number {
  const family = results.flatMap((r) => RULES.map((rule) => r[rule])).filter((x): x is RuleResult & { paired: NonNullable<RuleResult['paired']> } => x.paired !== undefined);
  holmCorrect(family.map((x) => x.paired)).forEach((interval, i) => (family[i]!.vsSkein = interval));
  return family.length;
}

function ruleResult(rule: RecallRule, runs: RunStats[], skeinRuns: RunStats[], all: RunStats[], isSkein: boolean): RuleResult {
  const sum = (f: (r: RunStats) => number) => runs.reduce((n, r) => n + f(r), 0);
  const scored = (r: RunStats) => scoredCost(r, rule, all);
  const byFile = new Map(skeinRuns.map((r) => [r.file, r]));
  const paired = runs.filter((r) => byFile.has(r.file));
  return {
    rereadUsd: sum((r) => (rule === 'strict' ? r.meter.strict.rereadUsd : r.meter.rereadUsd)),
    totalUsd: sum(scored),
    ...(!isSkein && paired.length && pairedCosts(paired.map(scored), paired.map((r) => scored(byFile.get(r.file)!)))),
    rereads: sum((r) => (rule === 'strict' ? r.meter.strict.rereads : r.meter.rereads)),
    targeted: rule === 'strict' ? sum((r) => r.meter.strict.targeted) : 0,
    rereadTokens: sum((r) => (rule === 'strict' ? r.meter.strict.rereadTokens : r.meter.rereadTokens)),
  };
}

/** `all`: every run of the set at this window (the failure price reads the other policies' runs of the session). */
export function summarise(set: string, window: number, policy: string, extrapolated: boolean, runs: RunStats[], skeinRuns: RunStats[], all: RunStats[] = runs): PolicyResult {
  const sum = (f: (r: RunStats) => number) => runs.reduce((n, r) => n + f(r), 0);
  const isSkein = policy === SKEIN_NAME;
  return {
    set,
    window,
    policy,
    extrapolated,
    overflows: sum((r) => r.overflows),
    compactions: sum((r) => r.compactions),
    baseUsd: sum((r) => r.costUsd),
    strict: ruleResult('strict', runs, skeinRuns, all, isSkein),
    lenient: ruleResult('lenient', runs, skeinRuns, all, isSkein),
    idsKept: sum((r) => r.meter.idsKept),
    idsTotal: sum((r) => r.meter.idsTotal),
    realUserKept: sum((r) => r.meter.realUserKept),
    realUserTotal: sum((r) => r.meter.realUserTotal),
    noticeKept: sum((r) => r.meter.noticeKept),
    noticeTotal: sum((r) => r.meter.noticeTotal),
    summaryTokens: sum((r) => r.meter.summaryTokens),
    sessions: runs.length,
    finished: runs.filter((r) => r.finished).length,
    failed: runs.filter((r) => !r.finished).length,
  };
}

const usd = (n: number) => `$${n.toFixed(2)}`;
const signed = (n: number) => `${n >= 0 ? '+' : '-'}$${Math.abs(n).toFixed(2)}`;

const percent = (x: number) => `${(100 * x).toFixed(x >= 0.9995 ? 2 : 1)}%`;

function intervalText(i: Interval | undefined): string {
  if (!i) return '—';
  const v = verdict(i);
  const level = i.holm ? `${percent(i.level)}, Holm p ${i.holm.adjustedP < 0.001 ? '< 0.001' : i.holm.adjustedP.toFixed(3)}` : `${percent(i.level)}, uncorrected`;
  return `${signed(i.diff)} [${signed(i.lo)}, ${signed(i.hi)}] (${level}) ${v === 'tie' ? 'tie' : v === 'cheaper' ? 'cheaper than skein' : 'dearer than skein'}`;
}

const nameOf = (r: PolicyResult) => (r.policy === SKEIN_NAME ? '**skein**' : r.extrapolated ? `${r.policy}*` : r.policy);

/** The main table: strict recall. */
export function comparisonTable(results: PolicyResult[]): string {
  const lines = [
    '| window | policy | n (sessions) | overflow errors | failed runs (stall limit) | compactions | strict: cost with re-reads (base + re-reads) | strict: vs skein [interval at its Holm level] | strict re-reads: requests, of them targeted (tokens) | identifiers of removed content still in view (neutral) | real user messages in view | harness notices in view | summary tokens |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const s = r.strict;
    lines.push(
      `| ${r.window / 1000}k | ${nameOf(r)} | ${r.sessions} | ${r.overflows} | ${r.failed}/${r.sessions} | ${r.compactions} | ${usd(s.totalUsd)} (${usd(r.baseUsd)} + ${usd(s.rereadUsd)}) | ${intervalText(s.vsSkein)} | ${s.rereads}, ${s.targeted} (${s.rereadTokens.toLocaleString('en-US')}) | ${shareText(r.idsKept, r.idsTotal)} | ${shareText(r.realUserKept, r.realUserTotal)} | ${shareText(r.noticeKept, r.noticeTotal)} | ${r.summaryTokens.toLocaleString('en-US')} |`,
    );
  }
  return lines.join('\n');
}

/** The second column, labelled: the lenient rule (a name in view counts as the lines it names). */
export function lenientTable(results: PolicyResult[]): string {
  const lines = ['| window | policy | n (sessions) | lenient: cost with re-reads (base + re-reads) | lenient: vs skein [interval at its Holm level] | lenient re-reads: requests (tokens) |', '|---|---|---|---|---|---|'];
  for (const r of results) {
    const l = r.lenient;
    lines.push(`| ${r.window / 1000}k | ${nameOf(r)} | ${r.sessions} | ${usd(l.totalUsd)} (${usd(r.baseUsd)} + ${usd(l.rereadUsd)}) | ${intervalText(l.vsSkein)} | ${l.rereads} (${l.rereadTokens.toLocaleString('en-US')}) |`);
  }
  return lines.join('\n');
}

/** One table per window: sessions down, policies across, strict cost with re-reads charged (overflows, failures in brackets). */
export function perSessionTable(runs: RunStats[], window: number, policies: string[]): string {
  const files = [...new Set(runs.map((r) => r.file))].sort();
  const short = (f: string) => f.replace(/^mini-gemini3pro__/, '').replace(/\.jsonl$/, '');
  const lines = [`| ${window / 1000}k: session | ${policies.join(' | ')} |`, `|---|${policies.map(() => '---').join('|')}|`];
  for (const file of files) {
    const cells = policies.map((p) => {
      const r = runs.find((x) => x.window === window && x.policy === p && x.file === file);
      if (!r) return '';
      const notes = [r.overflows ? `${r.overflows} ovf` : '', r.finished ? '' : `failed at the stall limit after $${costOf(r, 'strict').toFixed(3)}`].filter(Boolean).join(', ');
      return `${scoredCost(r, 'strict', runs).toFixed(3)}${notes ? ` (${notes})` : ''}`;
    });
    lines.push(`| ${short(file)} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** A peer run with skein's placeholder and ledger (policies/with-skein-names.ts): shown, kept out of the goals. */
export const WITH_SKEIN_NAMES = " + skein's names";

function costRow(label: string, rule: RecallRule, skein: PolicyResult, peers: PolicyResult[]): BenchRow {
  const clean = peers.filter((r) => r.overflows === 0).sort((a, b) => a[rule].totalUsd - b[rule].totalUsd);
  const cheapest = clean[0];
  const measure = `${label}, ${rule}${rule === 'lenient' ? ' (a name counts as its lines)' : ''}: skein's cost with re-reads vs the cheapest peer with 0 overflows`;
  if (!cheapest) return { bench: 'shootout', measure, value: `${usd(skein[rule].totalUsd)}; no peer had 0 overflows`, goal: '<= cheapest clean peer', met: true };
  // skein - cheapest: the peer's interval mirrored.
  const i = cheapest[rule].vsSkein!;
  const v = verdict({ ...i, diff: -i.diff, lo: -i.hi, hi: -i.lo });
  return {
    bench: 'shootout',
    measure,
    value: `${usd(skein[rule].totalUsd)} vs ${usd(cheapest[rule].totalUsd)} (${cheapest.policy}), n = ${skein.sessions}: ${v === 'cheaper' ? 'cheaper' : v === 'tie' ? 'a tie' : 'dearer'}${i.holm ? ` (Holm-corrected across ${i.holm.m} comparisons, p ${i.holm.adjustedP < 0.001 ? '< 0.001' : i.holm.adjustedP.toFixed(3)})` : v === 'tie' ? ', interval holds 0' : ', interval excludes 0'}`,
    goal: '<= cheapest clean peer (the difference holding after Holm, or a tie stated)',
    met: v !== 'dearer',
  };
}

export function goals(set: string, window: number, results: PolicyResult[]): BenchRow[] {
  const skein = results.find((r) => r.policy === SKEIN_NAME);
  if (!skein) return [{ bench: 'shootout', measure: `${set}, ${window / 1000}k`, value: 'no whole session yet (skein and every peer on the same session)', goal: 'measured', met: false }];
  // Extrapolated rows (a tool at a window it does not support) and peers given skein's names are kept out of the goals.
  const peers = results.filter((r) => r.policy !== SKEIN_NAME && !r.extrapolated && !r.policy.endsWith(WITH_SKEIN_NAMES));
  const label = `${set}, ${window / 1000}k`;
  const idShare = (r: PolicyResult) => shareOf(r.idsKept, r.idsTotal);
  const measured = peers.filter((r) => idShare(r) !== undefined).sort((a, b) => idShare(b)! - idShare(a)!);
  const best = measured[0];
  const skeinIds = idShare(skein);
  return [
    { bench: 'shootout', measure: `${label}: skein's overflow errors / failed runs (stall limit)`, value: `${skein.overflows} / ${skein.failed}`, goal: '0 / 0', met: skein.overflows === 0 && skein.failed === 0 },
    costRow(label, 'strict', skein, peers),
    costRow(label, 'lenient', skein, peers),
    {
      bench: 'shootout',
      measure: `${label}: skein's identifiers of removed content still in view vs the best peer (neutral, names only); real user messages`,
      value: `${shareText(skein.idsKept, skein.idsTotal)} vs ${best ? `${shareText(best.idsKept, best.idsTotal)} (${best.policy})` : 'n/a'}; ${shareText(skein.realUserKept, skein.realUserTotal)}`,
      goal: '>= every peer; real user messages 100%',
      // n/a (skein removed nothing) is not a win: the goal is then not met, and the row says why.
      met: skeinIds !== undefined && (!best || skeinIds >= idShare(best)!) && skein.realUserKept === skein.realUserTotal,
    },
  ];
}
