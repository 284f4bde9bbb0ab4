// Headless Chromium from Debian, driven by playwright-core.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { childrenNamed, trackPid } from './run-registry.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const OUTPUT_DIR = path.resolve('test-output');

export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: install it with apt-get install -y chromium (or set CHROMIUM_PATH)`);
  const before = new Set(childrenNamed('chromium'));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  // Recorded until it is closed: one a test forgot is named at the end of the run (and killed).
  const forget = childrenNamed('chromium')
    .filter((pid) => !before.has(pid))
    .map((pid) => trackPid(pid, 'chromium'));
  browser.once('disconnected', () => forget.forEach((f) => f()));
  return browser;
}

export function screenshotPath(name: string): string {
  fs.mkdirSync(OUTPUT_DIR, { recursive: true });
  return path.join(OUTPUT_DIR, `${name}.png`);
}
