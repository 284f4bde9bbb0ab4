// A strict parser of Prometheus' text exposition format (version 0.0.4):
// prom-client writes the format but has no parser. Anything a scraper would
// refuse or misread throws: a sample before its TYPE, a malformed line or
// escape, a duplicate series, a histogram whose buckets are not cumulative or
// whose +Inf bucket is not its count.
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}
export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function parseValue(raw: string, line: number): number {
  if (raw === '+Inf') return Infinity;
  if (raw === '-Inf') return -Infinity;
  if (raw === 'NaN') return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw)) throw new Error(`line ${line}: bad value ${JSON.stringify(raw)}`);
  return Number(raw);
}

function parseLabels(text: string, line: number): { labels: Record<string, string>; rest: string } {
  const labels: Record<string, string> = {};
  let i = 1; // after '{'
  for (;;) {
    if (text[i] === '}') return { labels, rest: text.slice(i + 1) };
    const eq = text.indexOf('=', i);
    const name = text.slice(i, eq);
    if (eq < 0 || !LABEL.test(name)) throw new Error(`line ${line}: bad label name ${JSON.stringify(name)}`);
    if (name in labels) throw new Error(`line ${line}: label ${name} given twice`);
    if (text[eq + 1] !== '"') throw new Error(`line ${line}: label value must be quoted`);
    let value = '';
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] !== '\\') {
        value += text[j];
        continue;
      }
      const next = text[++j];
      if (next === 'n') value += '\n';
      else if (next === '\\' || next === '"') value += next;
      else throw new Error(`line ${line}: bad escape \\${next ?? ''}`);
    }
    if (j >= text.length) throw new Error(`line ${line}: unterminated label value`);
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',') i++;
    else if (text[i] !== '}') throw new Error(`line ${line}: expected , or } after a label`);
  }
}

/** The family a sample belongs to (histogram samples carry _bucket, _sum, _count). */
function familyOf(name: string, families: Map<string, Family>): Family | undefined {
  if (families.has(name)) return families.get(name);
  const base = name.replace(/_(bucket|sum|count)$/, '');
  const f = families.get(base);
  return f && (f.type === 'histogram' || f.type === 'summary') ? f : undefined;
}

export function parsePrometheusText(text: string): Map<string, Family> {
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a newline');
  const families = new Map<string, Family>();
  const series = new Set<string>();
  const lines = text.split('\n').slice(0, -1);
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw);
    if (meta) {
      const [, kind, name, rest] = meta as unknown as [string, string, string, string];
      if (!NAME.test(name)) throw new Error(`line ${line}: bad metric name ${name}`);
      const family = families.get(name) ?? { name, type: 'untyped', help: '', samples: [] };
      if (kind === 'TYPE') {
        if (families.get(name)?.samples.length) throw new Error(`line ${line}: TYPE of ${name} after its samples`);
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest)) throw new Error(`line ${line}: bad type ${rest}`);
        family.type = rest as Family['type'];
      } else family.help = rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      families.set(name, family);
      return;
    }
    if (raw.startsWith('#')) return;
    const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(raw)?.[0];
    if (!name) throw new Error(`line ${line}: not a sample: ${raw}`);
    let rest = raw.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith('{')) ({ labels, rest } = parseLabels(rest, line));
    const parts = rest.trim().split(/\s+/);
    if (!rest.startsWith(' ') || parts.length < 1 || parts.length > 2) throw new Error(`line ${line}: expected " value [timestamp]": ${raw}`);
    const value = parseValue(parts[0]!, line);
    const family = familyOf(name, families);
    if (!family || family.type === 'untyped') throw new Error(`line ${line}: sample ${name} has no TYPE line before it`);
    if (family.type === 'counter' && !(value >= 0)) throw new Error(`line ${line}: counter ${name} is ${value}`);
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (series.has(key)) throw new Error(`line ${line}: series ${key} given twice`);
    series.add(key);
    family.samples.push({ name, labels, value });
  });
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;
}

function checkHistogram(f: Family): void {
  const groups = new Map<string, Sample[]>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  for (const [key, samples] of groups) {
    const buckets = samples.filter((s) => s.name === `${f.name}_bucket`);
    const count = samples.find((s) => s.name === `${f.name}_count`);
    if (!count || !samples.some((s) => s.name === `${f.name}_sum`)) throw new Error(`${f.name}${key}: _sum or _count missing`);
    const les = buckets.map((b) => parseValue(b.labels.le ?? '', 0));
    if (les.at(-1) !== Infinity) throw new Error(`${f.name}${key}: no +Inf bucket`);
    for (let i = 1; i < buckets.length; i++) {
      if (!(les[i]! > les[i - 1]!) || buckets[i]!.value < buckets[i - 1]!.value) throw new Error(`${f.name}${key}: buckets not increasing and cumulative`);
    }
    if (buckets.at(-1)!.value !== count.value) throw new Error(`${f.name}${key}: +Inf bucket ${buckets.at(-1)!.value} != count ${count.value}`);
  }
}

/** The sum of a family's samples named `sample` (default: the family's own name) whose labels include `match`. */
export function total(families: Map<string, Family>, family: string, match: Record<string, string> = {}, sample = family): number {
  const f = families.get(family);
  if (!f) throw new Error(`no metric ${family}`);
  return f.samples.filter((s) => s.name === sample && Object.entries(match).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);
}
