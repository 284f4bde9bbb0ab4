// A fork is not an error (issue 23): forking after a finished turn copies a
// session that simply waits; forking inside a turn closes that turn with a
// plain "forked here" note, in the timeline and in the Markdown export.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { authHeaders } from '../helpers/auth.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { converse, eventsOf, newSession, openPage, sessionId } from '../helpers/ui.js';

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

async function forkAt(page: Page, id: string, seq: number): Promise<string> {
  const row = page.locator(`skein-timeline .row[data-seq="${seq}"]`);
  await row.hover();
  await row.locator('summary').click();
  await row.getByRole('menuitem', { name: 'Fork from here' }).click();
  await page.waitForURL((url) => !url.pathname.endsWith(id));
  return sessionId(page);
}

async function markdown(id: string): Promise<string> {
  const res = await fetch(`${server.url}/api/sessions/${id}/export?format=md`, { headers: authHeaders(server.url) });
  expect(res.status).toBe(200);
  return res.text();
}

describe('forking', () => {
  it('after a finished turn: no note and no error; inside a turn: a plain "forked here", in the export too', async () => {
    const { page, errors } = await openPage(browser, server.url);
    const id = await newSession(page);
    await converse(page, server.url, 'echo: first words here');
    await converse(page, server.url, 'bash: echo mid-turn');
    const events = await eventsOf(server.url, id);

    const answer = events.find((e) => e.kind === 'agent')!;
    const after = await forkAt(page, id, answer.seq);
    await page.locator('skein-agent-message', { hasText: 'first words here' }).waitFor();
    const afterEvents = await eventsOf(server.url, after);
    expect(afterEvents.filter((e) => e.kind === 'error')).toEqual([]);
    expect(afterEvents.at(-1)).toMatchObject({ kind: 'state', to: 'WaitingForUserInput' });
    expect(await page.locator('skein-error-message').count()).toBe(0);
    expect(await page.getByText('Forked here').count()).toBe(0);
    expect(await page.getByText(/interrupted|server restarted/i).count()).toBe(0);

    await page.goto(page.url().replace(after, id));
    await page.getByText('connected', { exact: true }).waitFor();
    const call = events.find((e) => e.kind === 'tool_call')!;
    const inside = await forkAt(page, id, call.seq);
    await page.getByText('Forked here: the turn this point cut ends here.').waitFor();
    const insideEvents = await eventsOf(server.url, inside);
    expect(insideEvents.filter((e) => e.kind === 'error')).toEqual([]);
    expect(insideEvents.slice(-2)).toMatchObject([{ kind: 'state', to: 'Cancelled', reason: 'forked here' }, { kind: 'state', to: 'WaitingForUserInput' }]);
    // A point between a call and its result: the call is answered "not run: forked here".
    const byApi = await api<{ id: string }>(server.url, `/api/sessions/${id}/fork`, { body: { seq: call.seq } });
    const cut = await eventsOf(server.url, byApi.body.id);
    expect(cut.find((e) => e.kind === 'tool_result')).toMatchObject({ output: 'not run: forked here', isError: true });
    expect(cut.filter((e) => e.kind === 'error')).toEqual([]);
    expect(await page.locator('skein-error-message').count()).toBe(0);
    expect(await page.getByText(/interrupted|server restarted/i).count()).toBe(0);

    const md = await markdown(inside);
    expect(md).toContain('Forked here: the turn this point cut ends here.');
    expect(md).not.toMatch(/Error|interrupted/);
    expect(await markdown(after)).not.toMatch(/Error|interrupted|Forked here/);
    expect(errors).toEqual([]);
    await page.close();
  });
});
