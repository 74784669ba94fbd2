import { describe, expect, it } from 'vitest';
import {
  advance,
  BUDGET_RAN_OUT_ANSWER,
  clampMaxSteps,
  decide,
  INITIAL_POLICY_STATE,
  mustAnswer,
  type PolicyState,
  type TurnRules,
} from '../../src/core/agent/policies';
import { FINAL, type ParsedStep } from '../../src/core/agent/prompt';

/** The loop's policy as pure decisions: what happens to the step the model asked for. */
const TOOLS = ['findFiles', 'retrieve', 'grepCase', 'readFile'];
const rules = (over: Partial<TurnRules> = {}): TurnRules => ({ maxSteps: 5, exhaustive: false, tools: TOOLS, ...over });
const state = (over: Partial<PolicyState> = {}): PolicyState => ({ ...INITIAL_POLICY_STATE, ...over });
const answer = (text: string, thought = 'I can answer.'): ParsedStep => ({
  thought,
  action: FINAL,
  input: { answer: text },
});
const search: ParsedStep = { thought: 'Search.', action: 'retrieve', input: { query: 'notice' } };
const afterInventory = state({ toolSteps: 1, inventoryTaken: true });

describe('policies – findFiles first', () => {
  it('an answer before the inventory is replaced by findFiles (the thought is kept)', () => {
    const d = decide(rules(), state(), answer('I know this already.', 'No need to look.'));
    expect(d).toEqual({
      kind: 'run',
      action: { thought: 'No need to look.', action: 'findFiles', input: {} },
      policy: 'findFiles first: the inventory is taken before answering',
    });
  });

  it('a first search runs findFiles instead, and names the call that was not run', () => {
    const d = decide(rules(), state(), search);
    expect(d.kind).toBe('run');
    if (d.kind !== 'run') return;
    expect(d.action).toEqual({ thought: 'Search.', action: 'findFiles', input: {} });
    expect(d.policy).toBe('findFiles first: ran findFiles instead of retrieve');
    expect(d.requested).toBe(search);
  });

  it('once the inventory is taken, calls run as asked', () => {
    expect(decide(rules(), afterInventory, search)).toEqual({ kind: 'run', action: search });
  });

  it('without a findFiles tool there is no inventory to insist on', () => {
    const noFind = rules({ tools: ['retrieve'] });
    expect(decide(noFind, state(), search)).toEqual({ kind: 'run', action: search });
    expect(decide(noFind, state(), answer('Done.'))).toMatchObject({ kind: 'answer', answer: 'Done.' });
  });

  it('running findFiles takes the inventory and uses one step of the budget', () => {
    const d = decide(rules(), state(), search);
    const next = advance(state(), d);
    expect(next).toMatchObject({ toolSteps: 1, inventoryTaken: true });
    // A search after the inventory does not change it back.
    expect(advance(next, decide(rules(), next, search))).toMatchObject({ toolSteps: 2, inventoryTaken: true });
  });
});

describe('policies – answers', () => {
  it('an answer after the inventory is accepted, trimmed, and keeps a note already on the step', () => {
    expect(decide(rules(), afterInventory, answer('  Sixty days.  '))).toEqual({
      kind: 'answer',
      answer: 'Sixty days.',
      policy: undefined,
      budgetExhausted: false,
    });
    const salvaged = decide(
      rules(),
      afterInventory,
      answer('Sixty da'),
      'the reply was cut off; the part of the answer that was written is kept',
    );
    expect(salvaged).toMatchObject({
      kind: 'answer',
      policy: 'the reply was cut off; the part of the answer that was written is kept',
    });
  });

  it('an unknown tool is an error observation listing the tools, and uses a step', () => {
    const d = decide(rules(), afterInventory, { thought: 'x', action: 'deleteEverything', input: {} });
    expect(d).toEqual({
      kind: 'unknown-tool',
      observation: `Error: there is no tool named "deleteEverything". Available tools: findFiles, retrieve, grepCase, readFile, or ${FINAL}.`,
    });
    expect(advance(afterInventory, d).toolSteps).toBe(2);
  });
});

describe('policies – exhaustive questions', () => {
  const every = rules({ exhaustive: true });

  it('an answer before the whole case was searched is sent back once, asking for grepCase', () => {
    const d = decide(every, afterInventory, answer('He saw Dr. Park once.'));
    expect(d.kind).toBe('send-back');
    if (d.kind !== 'send-back') return;
    expect(d.observation).toMatch(/search the whole case with grepCase/);
    expect(d.policy).toBe('exhaustive question: grepCase required before answering');
    const next = advance(afterInventory, d);
    expect(next).toMatchObject({ nudgedExhaustive: true, toolSteps: 2 });
    // Only once: the second early answer is accepted.
    expect(decide(every, next, answer('Once.'))).toMatchObject({ kind: 'answer', answer: 'Once.' });
  });

  it('after a whole-case search the answer is accepted at once', () => {
    expect(decide(every, { ...afterInventory, wholeCaseSearched: true }, answer('Four visits.'))).toMatchObject({
      kind: 'answer',
      answer: 'Four visits.',
    });
  });

  it('without grepCase among the tools, the answer is not sent back', () => {
    expect(
      decide(rules({ exhaustive: true, tools: ['findFiles', 'retrieve'] }), afterInventory, answer('x')),
    ).toMatchObject({ kind: 'answer' });
  });

  it('a question that does not ask for every occurrence is never sent back', () => {
    expect(decide(rules(), afterInventory, answer('x'))).toMatchObject({ kind: 'answer' });
  });
});

describe('policies – step budget', () => {
  it('max steps is 1–5, default 5', () => {
    expect([clampMaxSteps(undefined), clampMaxSteps(0), clampMaxSteps(3), clampMaxSteps(12)]).toEqual([5, 1, 3, 5]);
  });

  it('the step after the budget must be the answer', () => {
    expect(mustAnswer(rules({ maxSteps: 2 }), state({ toolSteps: 1 }))).toBe(false);
    expect(mustAnswer(rules({ maxSteps: 2 }), state({ toolSteps: 2 }))).toBe(true);
  });

  it('a forced answer is accepted (even before the inventory or a whole-case search) and says the budget ran out', () => {
    const spent = state({ toolSteps: 2 });
    const d = decide(rules({ maxSteps: 2, exhaustive: true }), spent, answer('Some visits.'));
    expect(d).toEqual({
      kind: 'answer',
      answer: 'Some visits.',
      policy: 'step budget of 2 reached: answer forced from what was found',
      budgetExhausted: true,
    });
  });

  it('a tool asked for when the budget is spent gets an honest "budget ran out" answer', () => {
    const d = decide(rules({ maxSteps: 1 }), state({ toolSteps: 1, inventoryTaken: true }), search);
    expect(d).toEqual({
      kind: 'out-of-budget',
      answer: BUDGET_RAN_OUT_ANSWER,
      policy: 'step budget of 1 reached and the model asked for retrieve; no answer was produced',
    });
    expect(BUDGET_RAN_OUT_ANSWER).toMatch(/step budget ran out/);
  });
});
