import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CoverageAccumulator } from '../../src/core/agent/coverage';
import { ObservationBook } from '../../src/core/agent/observations';
import { stableKey, ToolRunner, withDefaults } from '../../src/core/agent/tool-runner';
import { CancelledError, defineTool, type AgentTool } from '../../src/core/agent/types';

/** One tool step: defaults, the repeat cache, validation, and failures as observations. */
function setup(signal = new AbortController().signal) {
  const calls: Record<string, unknown>[] = [];
  const search = defineTool({
    name: 'search',
    description: 'Search.',
    inputSchema: z.object({ query: z.string().min(1), top_k: z.number().int().optional() }),
    defaults: { top_k: 8, unset: undefined },
    async run(input) {
      calls.push(input);
      if (input.query === 'boom') throw new Error('index unavailable.');
      return {
        text: `${input.top_k} results for ${input.query}.`,
        count: 2,
        best_label: 'good',
        citations: [],
        coverage: { searched: ['a.txt'] },
      };
    },
  });
  const list = defineTool({
    name: 'list',
    description: 'List files.',
    inputSchema: z.object({}),
    grammarProperties: {},
    async run() {
      calls.push({});
      return { text: '2 files.', count: 2, citations: [], coverage: { total: 2, listed: ['a.txt', 'b.txt'] } };
    },
  });
  const coverage = new CoverageAccumulator();
  const runner = new ToolRunner(
    [list, search] as AgentTool[],
    new ObservationBook({ passageChars: 500, observationChars: 3000 }),
    coverage,
    signal,
  );
  return { runner, calls, coverage };
}
const step = (action: string, input: Record<string, unknown>) => ({ thought: 't', action, input });

describe('ToolRunner', () => {
  it('remembers each call: the same tool and arguments (with defaults, keys in any order, spaces trimmed) name the step that made it', async () => {
    const { runner, calls } = setup();
    expect(runner.earlierStep(step('search', { query: 'notice period' }))).toBeNull();
    await runner.run(2, step('search', { query: 'notice period' }));
    expect(runner.earlierStep(step('search', { top_k: 8, query: ' notice period ' }))).toBe(2);
    // A different argument is a new call.
    expect(runner.earlierStep(step('search', { query: 'notice period', top_k: 3 }))).toBeNull();
    await runner.run(4, step('search', { query: 'notice period', top_k: 3 }));
    expect(calls).toHaveLength(2);
  });

  it("the turn's defaults fill what the model left out, and are named; the model's own value wins", async () => {
    const { runner, calls } = setup();
    const s = await runner.run(1, step('search', { query: 'fees' }));
    expect(s.input).toEqual({ query: 'fees', top_k: 8 });
    expect(s.defaults).toEqual(['top_k']);
    expect(s.observation).toBe('8 results for fees.');
    const own = await runner.run(2, step('search', { query: 'fees', top_k: 2 }));
    expect(own.defaults).toBeUndefined();
    expect(calls.at(-1)).toEqual({ query: 'fees', top_k: 2 });
  });

  it('invalid arguments are an error observation naming the field; the tool is not run', async () => {
    const { runner, calls } = setup();
    const s = await runner.run(1, step('search', { query: '' }));
    expect(calls).toHaveLength(0);
    expect(s.error).toBe(true);
    expect(s.observation).toMatch(
      /^Error: invalid arguments for search — query: .+\. Fix the arguments and try again\.$/,
    );
    expect(s.summary).toEqual({ tool: 'search', count: 0 });
    // The same bad call is remembered like any other.
    expect(runner.earlierStep(step('search', { query: '' }))).toBe(1);
  });

  it('a tool that fails becomes an observation the model can act on', async () => {
    const { runner } = setup();
    const s = await runner.run(1, step('search', { query: 'boom' }));
    expect(s).toMatchObject({
      error: true,
      observation: 'Error from search: index unavailable. Correct the call and try again.',
      summary: { tool: 'search', count: 0 },
    });
  });

  it('a tool that fails because the turn was cancelled stops the turn', async () => {
    const controller = new AbortController();
    const { runner } = setup(controller.signal);
    controller.abort();
    await expect(runner.run(1, step('search', { query: 'boom' }))).rejects.toBeInstanceOf(CancelledError);
  });

  it("a tool's coverage joins the turn's", async () => {
    const { runner, coverage } = setup();
    await runner.run(1, step('list', {}));
    await runner.run(2, step('search', { query: 'x' }));
    expect(coverage.build({ exhaustive: false, budgetExhausted: false, cancelled: false })).toMatchObject({
      files_total: 2,
      files_listed: 2,
      files_searched: 1,
    });
  });

  it('an argument-less tool is no longer offered once it has run', async () => {
    const { runner } = setup();
    expect(runner.offered().map((t) => t.name)).toEqual(['list', 'search']);
    await runner.run(1, step('search', { query: 'x' }));
    expect(runner.offered().map((t) => t.name)).toEqual(['list', 'search']);
    await runner.run(2, step('list', {}));
    expect(runner.offered().map((t) => t.name)).toEqual(['search']);
  });

  it('stableKey and withDefaults', () => {
    expect(stableKey('s', { b: [' x ', { d: 1, c: 2 }], a: 'y ' })).toBe(
      stableKey('s', { a: 'y', b: ['x', { c: 2, d: 1 }] }),
    );
    expect(stableKey('s', { a: 1 })).not.toBe(stableKey('t', { a: 1 }));
    expect(withDefaults(undefined, { q: 1 })).toEqual({ input: { q: 1 } });
  });
});
