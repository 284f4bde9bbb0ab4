// A new session's id: its creation time (sorts by age), then random hex.
import crypto from 'node:crypto';

export function newId(): string {
  const now = new Date();
  return `${now.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${crypto.randomBytes(3).toString('hex')}`;
}
