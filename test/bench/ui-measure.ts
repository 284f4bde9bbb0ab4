// The UI bench: a session of thousands of events, written straight into a
// server's data dir as a JSONL log, opened in headless Chromium. Measures the
// first screen (navigation start to the history on screen), a jump to the
// top, a scroll sweep, and the JS heap and DOM size. The e2e test
// (test/e2e/long-session.test.ts) runs it and writes the numbers to
// test/bench/results/ui.json; the bench runner can call measureUi().
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { AgentState, Gauge, NewEvent, SkeinEvent } from '../../shared/protocol.js';
import { withToken } from '../helpers/auth.js';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, tempDir } from '../helpers/server.js';

export const RESULTS_FILE = path.resolve('test/bench/results/ui.json');

export interface UiMeasurement {
  events: number;
  /** Timeline rows once the whole history is loaded (after Home). */
  rows: number;
  /** Events the page held at its first screen (the tail page; earlier pages load on scrolling up). */
  loadedAtFirstScreen: number;
  /** Navigation start to the history on screen (the app's `skein:first-screen` mark), ms. */
  firstScreenMs: number;
  /** Of which: navigation start to the history fetched and parsed (`skein:history-loaded`), ms. */
  historyLoadedMs: number;
  /** From Home on the timeline to the first event's row on screen (fetching every earlier page), ms. */
  scrollToTopMs: number;
  /** Scrolling up from the end, one screen per frame (150 frames): frame times, ms. */
  sweep: { frames: number; p50: number; p95: number; max: number };
  /** A reader flicking up with the mouse wheel (60 ticks of 400 px): frame times while it scrolls, ms. */
  wheel: { frames: number; p50: number; p95: number; max: number };
  /** Used JS heap after a forced GC (CDP Runtime.getHeapUsage), bytes. */
  jsHeapUsedBytes: number;
  /** Elements in the document, shadow roots included. */
  domElements: number;
  /** Timeline rows in the DOM at the end (the window, not the whole log). */
  renderedRows: number;
  chromium: string;
  cpus: number;
  date: string;
}

/** Writes a realistic session of about `target` events (turns with tool calls, markdown answers, compactions). Returns its id and events. */
export function writeLongSession(dataDir: string, target = 5000, id = 'long-session'): { id: string; events: SkeinEvent[] } {
  const events: SkeinEvent[] = [];
  let clock = Date.parse('2026-01-05T09:00:00Z');
  const add = (e: NewEvent) => {
    clock += 1500;
    const full = { seq: events.length + 1, ts: new Date(clock).toISOString(), ...e } as SkeinEvent;
    events.push(full);
    return full;
  };
  const window = 200_000;
  let context = 6_000;
  let cost = 0;
  let foldFrom = 2; // the first user message is never folded
  const state = (from: AgentState, to: AgentState, reason: string) => add({ kind: 'state', from, to, reason });
  const usage = (added: number): Gauge => {
    const read = context;
    context += added;
    cost += added * 3e-6 + read * 3e-7;
    return { contextTokens: context, contextWindow: window, ratio: context / window, thresholdRatio: 0.85, model: 'predictable', totalCostUsd: cost,
      input: Math.min(added, 400), cacheRead: read, cacheWrite: Math.max(0, added - 400) };
  };
  for (let t = 1; events.length < target; t++) {
    add({ kind: 'user', text: t % 5 === 0 ? `Turn ${t}: the test in src/module${t % 17}.ts fails with\n\n    TypeError: cannot read 'id'\n\nplease fix it` : `Turn ${t}: run the tests for module${t % 17} and fix what fails` });
    state('WaitingForUserInput', 'SendingToLLM', 'sending the conversation');
    state('SendingToLLM', 'ProcessingLLMResponse', 'tool_use');
    add({ kind: 'usage', gauge: usage(900 + (t % 7) * 120) });
    add({ kind: 'agent', text: '', model: 'predictable', endOfTurn: false });
    const callId = `call_${t}`;
    add({ kind: 'tool_call', callId, name: 'bash', input: { command: `npm test -- src/module${t % 17}.test.ts` } });
    state('ProcessingLLMResponse', 'RunningTools', '1 tool call');
    const lines = 3 + ((t * 7) % 38);
    const output = [`exit code: ${t % 4 === 0 ? 1 : 0}`, ...Array.from({ length: lines }, (_, i) => `  ✓ module${t % 17} case ${i} (${(i * 3) % 50} ms)`)].join('\n');
    add({ kind: 'tool_result', callId, name: 'bash', output, isError: t % 4 === 0, durationMs: 200 + ((t * 37) % 3000) });
    state('RunningTools', 'SendingToLLM', 'sending the conversation');
    state('SendingToLLM', 'ProcessingLLMResponse', 'end_turn');
    add({ kind: 'usage', gauge: usage(300 + lines * 12) });
    add({
      kind: 'agent', model: 'predictable', endOfTurn: true,
      text: `The tests for **module${t % 17}** ${t % 4 === 0 ? 'failed' : 'pass'}. Changes:\n\n- checked \`src/module${t % 17}.ts\`\n- ${lines} cases ran\n\n\`\`\`ts\nexport function fix${t}(input: string): number {\n  return input.length * ${t}; // turn ${t}\n}\n\`\`\``,
    });
    if (context >= 0.85 * window) {
      state('ProcessingLLMResponse', 'Compacting', 'threshold compaction');
      add({ kind: 'compaction', phase: 'started', trigger: 'threshold' });
      const last = events.length - 4;
      const before = context;
      context = Math.round(window * 0.3);
      add({
        kind: 'compaction', phase: 'finished', trigger: 'threshold', strategy: 'summarize', tokensBefore: before, tokensAfter: context,
        messagesBefore: 300, messagesAfter: 24, coversSeq: [foldFrom, last], durationMs: 4200,
        summary: `## Summary\n### User messages, verbatim\n- user: Turn ${t}: run the tests\n### Tool calls\n- ran: npm test (${t} times)`,
      });
      foldFrom = last + 1;
      add({ kind: 'usage', gauge: { ...usage(0), estimated: true } });
      state('Compacting', 'EndOfTurn', 'compaction finished');
    } else {
      state('ProcessingLLMResponse', 'EndOfTurn', 'the model finished its answer');
    }
    state('EndOfTurn', 'WaitingForUserInput', 'the model finished its answer');
  }
  const file = path.join(dataDir, 'sessions', `${id}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const header = { skein: 1, session: id, createdAt: events[0]!.ts, model: 'predictable' };
  fs.writeFileSync(file, [header, ...events].map((x) => JSON.stringify(x)).join('\n') + '\n');
  return { id, events };
}

/** Opens the session in a fresh page and measures it. The page is left open for further checks. */
export async function measureOpenAndScroll(browser: Browser, base: string, id: string, events: number): Promise<{ page: Page; measurement: UiMeasurement }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  // Run through tsx, esbuild names inner functions with a `__name` helper the page does not have.
  await page.addInitScript('globalThis.__name ??= (f) => f');
  await page.goto(withToken(`${base}/s/${id}`));
  await page.waitForFunction(() => performance.getEntriesByName('skein:first-screen').length > 0, undefined, { timeout: 60_000 });
  const [firstScreenMs, historyLoadedMs] = await page.evaluate(() =>
    ['skein:first-screen', 'skein:history-loaded'].map((name) => performance.getEntriesByName(name)[0]?.startTime ?? -1),
  );
  const loadedAtFirstScreen = await page.evaluate(() => (document.querySelector('skein-app') as unknown as { eventSeqs(): number[] }).eventSeqs().length);
  const sweep = await page.evaluate(
    () =>
      new Promise<{ frames: number; p50: number; p95: number; max: number }>((resolve) => {
        const timeline = document.querySelector('skein-app')!.shadowRoot!.querySelector('skein-timeline')!;
        timeline.scrollTop = timeline.scrollHeight;
        const times: number[] = [];
        let last = performance.now();
        let frames = 0;
        const step = () => {
          const now = performance.now();
          if (frames > 0) times.push(now - last);
          last = now;
          if (++frames > 150 || timeline.scrollTop === 0) {
            times.sort((a, b) => a - b);
            const at = (q: number) => Math.round((times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0) * 10) / 10;
            resolve({ frames: times.length, p50: at(0.5), p95: at(0.95), max: at(1) });
            return;
          }
          // What Page Up does: the key (the timeline follows the bottom until the reader moves), then the scroll.
          timeline.dispatchEvent(new KeyboardEvent('keydown', { key: 'PageUp', bubbles: true, composed: true }));
          timeline.scrollTop -= timeline.clientHeight;
          requestAnimationFrame(step);
        };
        requestAnimationFrame(step);
      }),
  );
  const wheel = await wheelFrames(page);
  const scrollToTopMs = await page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const timeline = document.querySelector('skein-app')!.shadowRoot!.querySelector('skein-timeline')!;
        const t0 = performance.now();
        timeline.dispatchEvent(new KeyboardEvent('keydown', { key: 'Home', bubbles: true, composed: true }));
        const check = () => {
          const first = timeline.shadowRoot!.querySelector('.row[data-seq="1"]');
          if (first && timeline.scrollTop === 0 && first.getBoundingClientRect().bottom > 0) requestAnimationFrame(() => resolve(performance.now() - t0));
          else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      }),
  );
  const rows = await page.evaluate(() => (document.querySelector('skein-app')!.shadowRoot!.querySelector('skein-timeline') as unknown as { rows: unknown[] }).rows.length);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const heap = await cdp.send('Runtime.getHeapUsage');
  await cdp.detach();
  const dom = await page.evaluate(() => {
    let count = 0;
    const walk = (root: Document | ShadowRoot) => {
      for (const el of root.querySelectorAll('*')) {
        count++;
        if (el.shadowRoot) walk(el.shadowRoot);
      }
    };
    walk(document);
    const timeline = document.querySelector('skein-app')!.shadowRoot!.querySelector('skein-timeline')!;
    return { count, rows: timeline.shadowRoot!.querySelectorAll('.row').length };
  });
  return {
    page,
    measurement: {
      events,
      rows,
      loadedAtFirstScreen,
      firstScreenMs: Math.round(firstScreenMs!),
      historyLoadedMs: Math.round(historyLoadedMs!),
      scrollToTopMs: Math.round(scrollToTopMs * 10) / 10,
      sweep,
      wheel,
      jsHeapUsedBytes: heap.usedSize,
      domElements: dom.count,
      renderedRows: dom.rows,
      chromium: browser.version(),
      cpus: os.cpus().length,
      date: new Date().toISOString(),
    },
  };
}

/** Frame times, recorded in the page, while Playwright turns the mouse wheel over the timeline. */
async function wheelFrames(page: Page): Promise<UiMeasurement['wheel']> {
  await page.evaluate(() => {
    const timeline = document.querySelector('skein-app')!.shadowRoot!.querySelector('skein-timeline')!;
    timeline.scrollTop = timeline.scrollHeight;
    const w = window as unknown as { frameTimes: number[]; recording: boolean };
    w.frameTimes = [];
    w.recording = true;
    let last = performance.now();
    const tick = (now: number) => {
      w.frameTimes.push(now - last);
      last = now;
      if (w.recording) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const box = (await page.locator('skein-timeline').boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  for (let i = 0; i < 60; i++) await page.mouse.wheel(0, -400);
  const times = await page.evaluate(() => {
    const w = window as unknown as { frameTimes: number[]; recording: boolean };
    w.recording = false;
    return w.frameTimes.slice(1).sort((a, b) => a - b);
  });
  const at = (q: number) => Math.round((times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0) * 10) / 10;
  return { frames: times.length, p50: at(0.5), p95: at(0.95), max: at(1) };
}

export function writeUiResults(measurement: UiMeasurement): void {
  fs.mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
  fs.writeFileSync(RESULTS_FILE, JSON.stringify(measurement, null, 2) + '\n');
}

/** Self-contained run for the bench runner: own data dir, server and browser. Needs the UI built (`npm run build`). */
export async function measureUi(options: { events?: number } = {}): Promise<UiMeasurement> {
  const dataDir = tempDir('ui-bench');
  const { id, events } = writeLongSession(dataDir, options.events ?? 5000);
  const server = await startTestServer({}, { dataDir });
  const browser = await launchBrowser();
  try {
    const { measurement } = await measureOpenAndScroll(browser, server.url, id, events.length);
    writeUiResults(measurement);
    return measurement;
  } finally {
    await browser.close();
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

// `npx tsx test/bench/ui-measure.ts [events]` runs it alone (after `npm run build`).
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const measurement = await measureUi({ events: Number(process.argv[2]) || 5000 });
  console.log(JSON.stringify(measurement, null, 2));
}
