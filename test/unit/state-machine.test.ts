import { describe, expect, it } from 'vitest';
import { AGENT_STATES, type AgentState } from '../../shared/protocol.js';
import { IllegalTransitionError, StateMachine, TRANSITIONS } from '../../server/agent/state-machine.js';

const LEGAL: [AgentState, AgentState][] = [
  ['WaitingForUserInput', 'SendingToLLM'],
  ['WaitingForUserInput', 'Compacting'],
  ['SendingToLLM', 'ProcessingLLMResponse'],
  ['SendingToLLM', 'Compacting'],
  ['SendingToLLM', 'Cancelled'],
  ['SendingToLLM', 'Error'],
  ['ProcessingLLMResponse', 'SendingToLLM'],
  ['ProcessingLLMResponse', 'RunningTools'],
  ['ProcessingLLMResponse', 'Compacting'],
  ['ProcessingLLMResponse', 'EndOfTurn'],
  ['ProcessingLLMResponse', 'Error'],
  ['RunningTools', 'SendingToLLM'],
  ['RunningTools', 'Compacting'],
  ['RunningTools', 'Cancelled'],
  ['RunningTools', 'Error'],
  ['RunningTools', 'WaitingForApproval'],
  ['WaitingForApproval', 'RunningTools'],
  ['WaitingForApproval', 'Cancelled'],
  ['WaitingForApproval', 'Error'],
  ['Compacting', 'SendingToLLM'],
  ['Compacting', 'EndOfTurn'],
  ['Compacting', 'WaitingForUserInput'],
  ['Compacting', 'Cancelled'],
  ['Compacting', 'Error'],
  ['EndOfTurn', 'WaitingForUserInput'],
  ['Cancelled', 'WaitingForUserInput'],
  ['Error', 'WaitingForUserInput'],
];

describe('agent state machine', () => {
  it('table is exactly the documented one', () => {
    const table = Object.entries(TRANSITIONS).flatMap(([from, tos]) => tos.map((to) => [from, to]));
    expect(table.sort()).toEqual([...LEGAL].sort());
  });

  it.each(LEGAL)('allows %s -> %s and records it', (from, to) => {
    const seen: string[] = [];
    const machine = new StateMachine(from, (f, t, reason) => seen.push(`${f}>${t}:${reason}`));
    machine.transition(to, 'test');
    expect(machine.state).toBe(to);
    expect(seen).toEqual([`${from}>${to}:test`]);
  });

  it('throws on every transition not in the table and stays put', () => {
    let illegal = 0;
    for (const from of AGENT_STATES) {
      for (const to of AGENT_STATES) {
        if (LEGAL.some(([f, t]) => f === from && t === to)) continue;
        const seen: string[] = [];
        const machine = new StateMachine(from, () => seen.push('event'));
        expect(() => machine.transition(to, 'bug')).toThrow(IllegalTransitionError);
        expect(machine.state).toBe(from);
        expect(seen).toEqual([]);
        illegal++;
      }
    }
    expect(illegal).toBe(AGENT_STATES.length ** 2 - LEGAL.length);
  });

  it('names the illegal move, e.g. waiting straight to running tools', () => {
    const machine = new StateMachine('WaitingForUserInput', () => {});
    expect(() => machine.transition('RunningTools', 'x')).toThrow('illegal agent transition WaitingForUserInput -> RunningTools');
  });
});

describe('WaitingForApproval', () => {
  it('is entered only from RunningTools and left only to RunningTools, Cancelled or Error', () => {
    const into = AGENT_STATES.filter((s) => TRANSITIONS[s].includes('WaitingForApproval'));
    expect(into).toEqual(['RunningTools']);
    expect([...TRANSITIONS.WaitingForApproval].sort()).toEqual(['Cancelled', 'Error', 'RunningTools']);
    // A decision never skips the tools: straight to the model is a bug.
    const machine = new StateMachine('WaitingForApproval', () => {});
    expect(() => machine.transition('SendingToLLM', 'x')).toThrow('illegal agent transition WaitingForApproval -> SendingToLLM');
    expect(() => new StateMachine('ProcessingLLMResponse', () => {}).transition('WaitingForApproval', 'x')).toThrow(IllegalTransitionError);
  });
});

describe('a transition the log refuses', () => {
  it('leaves the state where the log has it', () => {
    const machine = new StateMachine('WaitingForUserInput', () => {
      throw new Error('ENOSPC');
    });
    expect(() => machine.transition('SendingToLLM', 'x')).toThrow('ENOSPC');
    expect(machine.state).toBe('WaitingForUserInput');
  });
});
