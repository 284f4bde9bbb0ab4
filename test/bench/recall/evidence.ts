// Strict recall: what a later step needs of an earlier message is the lines
// that hold the identifier it uses (its evidence), not the name. A view that
// shows those lines waives the re-read; a view that shows only the name (a
// cleared result's placeholder, a ledger's list) gives a hint: the model
// knows where to look and pays for a targeted re-read (a grep, a ranged read:
// the lines with two lines of context), cheaper than reading the whole output.
import { tokensOf } from '../../../server/llm/tokens.js';
import { normalise } from './identifiers.js';

/** Lines of context a targeted re-read returns on each side of a line it matched (grep -C2). */
export const TARGETED_CONTEXT_LINES = 2;
/** A line longer than this is evidence as the stretch around the name (a minified or one-line output). */
export const EVIDENCE_MAX_CHARS = 240;

/** A recorded message split into raw lines and their normalised, trimmed forms (prepared once per message). */
export interface MessageLines {
  raw: string[];
  normalised: string[];
}

export function linesOf(text: string): MessageLines {
  const raw = text.split('\n');
  return { raw, normalised: raw.map((l) => normalise(l).trim()) };
}

/** The stretch of a (normalised) line the model needs for `id`: the whole line, or a window around the name when the line is long. */
function evidenceOf(line: string, id: string): string {
  if (line.length <= EVIDENCE_MAX_CHARS) return line;
  const at = line.indexOf(id);
  const side = Math.max(0, Math.floor((EVIDENCE_MAX_CHARS - id.length) / 2));
  return line.slice(Math.max(0, at - side), at + id.length + side).trim();
}

/** The evidence for `id` in a message: every line that holds it (normalised). Empty when no single line holds it. */
export function evidenceFor(lines: MessageLines, id: string): string[] {
  const out: string[] = [];
  for (const l of lines.normalised) if (l.includes(id)) out.push(evidenceOf(l, id));
  return out;
}

export type Waiver = 'in view' | 'hint' | 'absent';

/**
 * Strict: 'in view' only when every line of the evidence is in the (normalised)
 * view; 'hint' when the name is there without its lines; 'absent' otherwise.
 * A message with no line holding the name falls back to the name itself.
 */
export function strictWaiver(normalisedView: string, lines: MessageLines, id: string): Waiver {
  const evidence = evidenceFor(lines, id);
  if (evidence.length ? evidence.every((l) => normalisedView.includes(l)) : normalisedView.includes(id)) return 'in view';
  return normalisedView.includes(id) ? 'hint' : 'absent';
}

/** Tokens a targeted re-read returns: the lines holding `id` with their context (never more than the whole message). */
export function targetedTokens(lines: MessageLines, id: string): number {
  const keep = new Set<number>();
  lines.normalised.forEach((l, i) => {
    if (!l.includes(id)) return;
    for (let k = Math.max(0, i - TARGETED_CONTEXT_LINES); k <= Math.min(lines.raw.length - 1, i + TARGETED_CONTEXT_LINES); k++) keep.add(k);
  });
  const whole = tokensOf(lines.raw.join('\n'));
  if (!keep.size) return whole;
  // Each returned line carries its number, as grep -n and a ranged read print it.
  const text = [...keep].sort((a, b) => a - b).map((k) => `${k + 1}: ${lines.raw[k]}`).join('\n');
  return Math.min(whole, tokensOf(text));
}
