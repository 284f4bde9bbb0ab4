// Slash commands in the composer (issue 23): completion from `/`, and what
// /clear, /fork, /rewind, /export, /model, /help and /compact do, and Edit
// and resend on a user message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { SessionSnapshot } from '../../shared/protocol.js';
import { launchBrowser } from '../helpers/browser.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { contrastViolations, converse, eventsOf, newSession, openPage, send, sessionId, waitForEvents } from '../helpers/ui.js';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const snapshot = async (id: string) => (await api<SessionSnapshot>(server.url, `/api/sessions/${id}`)).body;

describe('slash commands', () => {
  it('complete from /, and /help, /model, /export, /fork, /clear and /compact do what they say', async () => {
    const { page, errors } = await openPage(browser, server.url);
    const id = await newSession(page);
    await converse(page, server.url, 'echo: before the commands');
    const box = page.getByRole('textbox', { name: 'Message' });

    await box.fill('/');
    const options = page.getByRole('listbox', { name: 'Commands' }).getByRole('option');
    expect((await options.locator('code').allTextContents())).toEqual(['/compact', '/clear', '/model', '/mode', '/fork', '/rewind', '/export', '/help']);
    await box.fill('/he');
    await box.press('Tab');
    expect(await box.inputValue()).toBe('/help ');
    await box.press('Enter');
    const info = page.getByTestId('command-info');
    await expect.poll(() => info.textContent()).toMatch(/\/clear: start a new session in the same folder[\s\S]*\/export: download/);
    expect(await contrastViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await contrastViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });

    await send(page, '/model no-such-model');
    await expect.poll(() => info.textContent()).toMatch(/No model no-such-model\. \/model <name> switches to one of: .*predictable/);

    const download = page.waitForEvent('download');
    await send(page, '/export');
    expect((await download).suggestedFilename()).toBe(`${id}.md`);

    const last = (await eventsOf(server.url, id)).at(-1)!.seq;
    await send(page, '/fork');
    await page.waitForURL((url) => !url.pathname.endsWith(id));
    const fork = await sessionId(page);
    expect((await snapshot(fork)).forkOf).toEqual({ session: id, seq: last });
    await page.locator('skein-agent-message', { hasText: 'before the commands' }).waitFor();

    await send(page, '/clear');
    await page.waitForURL((url) => !url.pathname.endsWith(fork));
    const cleared = await sessionId(page);
    await page.getByText('Say something to start').waitFor();
    expect((await snapshot(cleared)).workspace?.folder).toBe((await snapshot(id)).workspace?.folder);

    // No command of its own: a message that starts with a path is sent as it is.
    await converse(page, server.url, '/usr/bin is where it lives');
    expect((await eventsOf(server.url, cleared)).some((e) => e.kind === 'user' && e.text === '/usr/bin is where it lives')).toBe(true);
    await send(page, '/compact');
    await waitForEvents(server.url, cleared, (es) => es.some((e) => e.kind === 'compaction' && e.phase === 'finished'));

    // /rewind: the preview of a rewind to just before the last message.
    const lastUser = (await eventsOf(server.url, cleared)).filter((e) => e.kind === 'user').at(-1)!;
    await send(page, '/rewind');
    await page.getByRole('dialog').getByText(`Rewind the files to event ${lastUser.seq - 1}?`).waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();

    // Edit and resend on a user message: forked just before it, its text back in the box.
    await converse(page, server.url, 'echo: a message to edit');
    const message = (await eventsOf(server.url, cleared)).find((e) => e.kind === 'user' && e.text === 'echo: a message to edit')!;
    const row = page.locator(`skein-timeline .row[data-seq="${message.seq}"]`);
    await row.hover();
    await row.locator('summary').click();
    await row.getByRole('menuitem', { name: 'Edit and resend' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith(cleared));
    const edited = await sessionId(page);
    expect((await snapshot(edited)).forkOf).toEqual({ session: cleared, seq: message.seq - 1, edit: true });
    await expect.poll(() => box.inputValue()).toBe('echo: a message to edit');
    expect((await eventsOf(server.url, edited)).some((e) => e.kind === 'user' && e.text === 'echo: a message to edit')).toBe(false);
    await converse(page, server.url, 'echo: edited and resent');
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);
});
