// A tool call in a few words, for the ledger and for a cleared result's
// placeholder: what was searched or listed, where, and how.
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The search tools described; undefined for any other tool (callers fall back to name + JSON input). */
export function describeSearchCall(name: string, input: Record<string, unknown>): string | undefined {
  const str = (key: string) => (typeof input[key] === 'string' && input[key] !== '' ? (input[key] as string) : undefined);
  const where = str('path') ?? '.';
  switch (name) {
    case 'grep': {
      const options = [
        str('glob') && `glob ${str('glob')}`,
        str('output_mode') && str('output_mode') !== 'lines' && `${str('output_mode')} mode`,
        typeof input.context === 'number' && input.context > 0 && `context ${input.context}`,
        input.ignore_case === true && 'ignoring case',
      ].filter(Boolean);
      return `grep /${clip(str('pattern') ?? '', 200)}/ in ${where}${options.length ? ` (${options.join(', ')})` : ''}`;
    }
    case 'glob':
      return `glob ${clip(str('pattern') ?? '', 200)} in ${where}`;
    case 'list':
      return `list ${where}${typeof input.depth === 'number' ? ` (depth ${input.depth})` : ''}`;
    default:
      return undefined;
  }
}
