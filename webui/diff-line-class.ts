// How a line of the unified diff an approval shows is coloured: added and
// removed lines tinted, hunk headers muted; the file headers (`+++`, `---`)
// and context lines plain.
export type DiffLineClass = 'add' | 'del' | 'hunk' | '';

export function diffLineClass(line: string): DiffLineClass {
  if (line.startsWith('+')) return line.startsWith('+++') ? '' : 'add';
  if (line.startsWith('-')) return line.startsWith('---') ? '' : 'del';
  return line.startsWith('@@') ? 'hunk' : '';
}
