// Every numeric and on/off setting takes one written form only: loose forms
// that Number() or a lenient reader would take (`1e3`, `0x10`, ` 12 `, `ON`,
// `1`, an empty value) stop the start with the variable's (or flag's) name.
import { describe, expect, it } from 'vitest';
import { InvalidSettingError, loadConfig, SETTINGS } from '../../server/config.js';
import { formOf, type ValueForm } from '../../server/config/parse.js';

const LOOSE: Record<ValueForm, string[]> = {
  integer: ['1e3', '0x10', '0o7', '0b1', ' 12 ', '12 ', ' 12', '+12', '12.0', '1_000', '1,000', '', ' ', 'Infinity', '٣', '12abc'],
  decimal: ['1e-1', '5e-1', '0x1', ' 0.5', '0.5 ', '.5', '5.', '+0.5', '0,5', '', ' ', 'Infinity', 'NaN', '1_0'],
  'on-off': ['ON', 'On', 'OFF', '1', '0', 'true', 'false', 'yes', 'no', ' on', 'off ', '', ' '],
};

/** A value of the right form for each, so the test shows the same setting takes it. */
const GOOD: Record<ValueForm, (name: string) => string> = {
  // The lowest value its message allows, as plain digits.
  integer: (name) => /from (\d+) to/.exec(refusal([], { [name]: 'x' })!.allowed)![1]!,
  decimal: () => '0.5',
  'on-off': () => 'on',
};

function refusal(argv: string[], env: NodeJS.ProcessEnv): InvalidSettingError | undefined {
  try {
    loadConfig(argv, env);
    return undefined;
  } catch (err) {
    if (err instanceof InvalidSettingError) return err;
    throw err;
  }
}

const typed = SETTINGS.flatMap((s) => {
  const form = formOf(s.parse);
  return form ? [{ env: s.env, flag: s.flag, form }] : [];
});

describe('strict setting values', () => {
  it('knows the form of every numeric and on/off setting', () => {
    // The table walks these: a setting that forgot its form would escape it.
    expect(typed.filter((s) => s.form === 'on-off').map((s) => s.env)).toEqual(
      expect.arrayContaining(['SKEIN_WORKTREE', 'SKEIN_AUTH', 'SKEIN_COMPACT_PREFLIGHT', 'SKEIN_COMPACT_CLEAR_STALE', 'SKEIN_COMPACT_PROVIDER', 'SKEIN_STATUS_UPDATES', 'SKEIN_SANDBOX_NETWORK']),
    );
    expect(typed.filter((s) => s.form === 'decimal').map((s) => s.env).sort()).toEqual(['SKEIN_COMPACT_TARGET_RATIO', 'SKEIN_COMPACT_THRESHOLD_RATIO', 'SKEIN_MAX_TURN_COST_USD']);
    expect(typed.filter((s) => s.form === 'integer').length).toBeGreaterThanOrEqual(17);
    for (const s of SETTINGS) if (/_MS$|_PORT$|_MAX$|_LIMIT$|_WINDOW$|_CONTEXT$|_TOKENS$|_CALLS$|_RESULTS$|_TURN$|_PARALLEL$/.test(s.env)) expect(formOf(s.parse), s.env).toBe('integer');
  });

  for (const { env, flag, form } of typed) {
    it(`${env} / ${flag} (${form}) refuses every loose form and takes the plain one`, () => {
      for (const value of LOOSE[form]) {
        const fromEnv = refusal([], { [env]: value });
        expect(fromEnv, `${env}=${JSON.stringify(value)}`).toBeInstanceOf(InvalidSettingError);
        expect(fromEnv!.message).toContain(env);
        const fromFlag = refusal([`${flag}=${value}`], {});
        expect(fromFlag, `${flag}=${JSON.stringify(value)}`).toBeInstanceOf(InvalidSettingError);
        expect(fromFlag!.message).toContain(flag);
      }
      expect(refusal([], { [env]: GOOD[form](env), SKEIN_HOST: '127.0.0.1' }), `${env}=${GOOD[form](env)}`).toBeUndefined();
    });
  }

  it('an empty value of any setting is refused with its name and what it takes, never read as the default', () => {
    for (const s of SETTINGS) {
      const err = refusal([], { [s.env]: '' });
      expect(err, s.env).toBeInstanceOf(InvalidSettingError);
      expect(err!.message).toContain(s.env);
      expect(err!.allowed.length).toBeGreaterThan(3);
    }
  });

  it('the message says the plain form', () => {
    expect(refusal([], { SKEIN_PORT: '1e3' })!.message).toBe('SKEIN_PORT="1e3" is invalid: expected an integer from 0 to 65535, in plain digits');
    expect(refusal([], { SKEIN_AUTH: 'ON' })!.message).toBe('SKEIN_AUTH="ON" is invalid: expected on or off (lower case)');
    expect(loadConfig([], { SKEIN_COMPACT_THRESHOLD_RATIO: '0.7', SKEIN_PORT: '1000', SKEIN_WORKTREE: 'on', SKEIN_MAX_TURN_COST_USD: '3' })).toMatchObject({ compactThresholdRatio: 0.7, port: 1000, worktreeDefault: true, maxTurnCostUsd: 3 });
  });
});
