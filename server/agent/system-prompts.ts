// The fixed part of every request: the system prompt (and its lean form for
// small windows), with the working folder and the project's instructions.
import fs from 'node:fs';

const SYSTEM_TEMPLATE = fs.readFileSync(new URL('./system-prompt.md', import.meta.url), 'utf8');
const LEAN_SYSTEM_TEMPLATE = fs.readFileSync(new URL('./system-prompt-lean.md', import.meta.url), 'utf8').trim();

/** `section`: the project instructions' part of the system prompt, if any. */
export function systemPrompts(workDir: string, section: string | undefined): { system: string; lean: string } {
  const template = SYSTEM_TEMPLATE.replaceAll('{{workDir}}', workDir);
  const leanTemplate = LEAN_SYSTEM_TEMPLATE.replaceAll('{{workDir}}', workDir);
  return {
    system: section ? `${template}\n\n${section}` : template,
    lean: section ? `${leanTemplate}\n\n${section}` : leanTemplate,
  };
}
