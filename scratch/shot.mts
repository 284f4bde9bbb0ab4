import { startTestServer } from '../test/helpers/server.ts';
import { launchBrowser } from '../test/helpers/browser.ts';
const s = await startTestServer({ SKEIN_CONTEXT_WINDOW: '4000' });
const b = await launchBrowser();
const p = await b.newPage({ viewport: { width: 1200, height: 800 } });
p.on('console', (m) => console.log('console:', m.text()));
p.on('pageerror', (e) => console.log('pageerror:', e.message));
await p.goto(s.url);
const box = p.getByRole('textbox', { name: 'Message' });
for (const t of ['hello', 'bash: echo hi; ls -la', 'big: 1200', 'big: 1200', 'echo: **done**']) {
  await box.fill(t); await box.press('Enter');
  await p.waitForTimeout(700);
}
await p.screenshot({ path: 'scratch/a.png' });
console.log(await p.getByRole('meter').getAttribute('aria-valuenow'));
await b.close(); await s.close();
