import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { helpText, HelpRequested, InvalidSettingError, loadConfig, SETTINGS } from '../../server/config.js';

describe('config', () => {
  it('has the documented defaults', () => {
    const c = loadConfig([], {});
    expect(c.port).toBe(8420);
    expect(c.host).toBe('127.0.0.1');
    expect(c.dataDir).toBe(path.join(os.homedir(), '.skein'));
    expect(c.workDir).toBe(process.cwd());
    expect(c.model).toBe('predictable');
    expect(c.contextWindow).toBeUndefined();
    expect(c.compactThresholdRatio).toBe(0.85);
    expect(c.maxStepsPerTurn).toBe(200);
    expect(c.maxTurnCostUsd).toBe(0);
    expect(loadConfig([], { SKEIN_MAX_TURN_COST_USD: '2.5', SKEIN_MAX_STEPS_PER_TURN: '1' })).toMatchObject({ maxTurnCostUsd: 2.5, maxStepsPerTurn: 1 });
  });

  it('reads env and lets flags win', () => {
    const c = loadConfig(['--port', '9000', '--compact-threshold-ratio=0.5'], { SKEIN_PORT: '8000', SKEIN_CONTEXT_WINDOW: '16000' });
    expect(c.port).toBe(9000);
    expect(c.contextWindow).toBe(16000);
    expect(c.compactThresholdRatio).toBe(0.5);
  });

  it.each([
    ['SKEIN_COMPACT_THRESHOLD_RATIO', '0', '0 < r <= 1'],
    ['SKEIN_COMPACT_THRESHOLD_RATIO', '1.5', '0 < r <= 1'],
    ['SKEIN_COMPACT_THRESHOLD_RATIO', 'abc', '0 < r <= 1'],
    ['SKEIN_COMPACT_THRESHOLD_RATIO', '-0.2', '0 < r <= 1'],
    ['SKEIN_PORT', '70000', 'from 0 to 65535'],
    ['SKEIN_PORT', '80.5', 'from 0 to 65535'],
    ['SKEIN_CONTEXT_WINDOW', '12', 'from 1000 to'],
    ['SKEIN_CONTEXT_WINDOW', '1e5x', 'from 1000 to'],
    ['SKEIN_MAX_STEPS_PER_TURN', '0', 'from 1 to 100000'],
    ['SKEIN_MAX_STEPS_PER_TURN', '100001', 'from 1 to 100000'],
    ['SKEIN_MAX_TURN_COST_USD', '-1', 'dollars from 0'],
    ['SKEIN_MAX_TURN_COST_USD', 'ten', 'dollars from 0'],
  ])('refuses %s=%s naming the variable and the range', (name, value, range) => {
    let error: unknown;
    try {
      loadConfig([], { [name]: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(InvalidSettingError);
    expect((error as Error).message).toContain(name);
    expect((error as Error).message).toContain(range);
  });

  it('accepts the edge r = 1', () => {
    expect(loadConfig([], { SKEIN_COMPACT_THRESHOLD_RATIO: '1' }).compactThresholdRatio).toBe(1);
  });

  it('refuses unknown flags and answers --help with every setting', () => {
    expect(() => loadConfig(['--bogus', '1'], {})).toThrow(InvalidSettingError);
    expect(() => loadConfig(['--help'], {})).toThrow(HelpRequested);
    for (const s of SETTINGS) expect(helpText()).toContain(s.env);
  });

  it('the settings page (docs/settings.md) lists every setting with its default', () => {
    const page = fs.readFileSync('docs/settings.md', 'utf8');
    for (const s of SETTINGS) {
      const row = page.split('\n').find((line) => line.startsWith(`| \`${s.env}\``));
      expect(row, `${s.env} row in docs/settings.md`).toBeDefined();
      expect(row).toContain(s.defaultText);
    }
  });
});
