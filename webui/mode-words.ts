// What the mode picker says about the session's mode: its title (the mode's
// one name and what it means, then the slash command), empty for a mode this
// page does not know (a newer server's).
import { MODE_INFO } from '../shared/modes.js';

export function modePickerTitle(mode: string): string {
  const current = MODE_INFO.find((m) => m.id === mode);
  return current ? `${current.name}: ${current.description}\nAlso: /mode <name>` : '';
}
