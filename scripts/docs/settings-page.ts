// The settings table of docs/settings.md, from the settings table in code
// (server/config/settings.ts): one row per setting, in the table's order.
import { SETTINGS } from '../../server/config.js';

const cell = (text: string) => text.replaceAll('|', '\\|');

export function settingsTable(): string {
  const rows = SETTINGS.map((s) => `| \`${s.env}\` | \`${s.flag}\` | ${cell(s.defaultText)} | ${cell(s.description)} |`);
  return ['| variable | flag | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
