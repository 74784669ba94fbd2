import { textReplyModel } from '../helpers/mock-model';
import { describe, expect, it } from 'vitest';
import { agentToolsFor } from '../../src/core/agent/agent-tools';
import { runAgent, type RunAgentOptions } from '../../src/core/agent/loop';
import {
  CLAUSE_READ_SECTION,
  FORMAT_STOP,
  offTopicNote,
  REPEATED_CALL_STOP,
  SEARCH_BEFORE_ANSWER,
} from '../../src/core/agent/policies';
import { ScriptedLanguageModel, ModelScript } from '../../src/core/agent/scripted';
import { CitationLedger } from '../../src/core/domain/citation-ledger';
import { openCaseTools } from '../../src/core/tools/index';
import { caseDocumentSource } from '../../src/core/tools/source';
import { useIngestedCase } from './helpers';

/**
 * The loop's policy with a deterministic scripted model over a real ingested case: real
 * ingest, real LanceDB full-text search, real tools and citation records.
 */
const c = useIngestedCase();

async function run(script: unknown, question: string, extra: Partial<RunAgentOptions> = {}) {
  const ledger = new CitationLedger();
  const tools = agentToolsFor(await openCaseTools(c.engine, c.caseId, { ledger }));
  const docs = caseDocumentSource(await c.engine.openCases.open(c.caseId));
  const model = new ScriptedLanguageModel(ModelScript.parse(script));
  const result = await runAgent({
    model,
    format: 'json',
    tools,
    question,
    citations: ledger,
    sourceText: async (f, v) => (await docs.readText(f, v))?.text ?? null,
    ...extra,
  });
  return { result, model, ledger };
}

const FIND = { thought: 'See what the case holds.', action: 'findFiles', action_input: {} };
const SEARCH = {
  thought: 'Search for the termination clause.',
  action: 'retrieve',
  action_input: { query: 'terminate convenience written notice' },
};

describe('runAgent – policy', () => {
  it('findFiles first – a first retrieval is replaced by the inventory', async () => {
    const { result } = await run(
      { steps: [SEARCH, SEARCH, { final: 'Sixty days [cite:{{cite}}].' }] },
      'What notice is needed to terminate?',
    );
    expect(result.steps[0]!.action).toBe('findFiles');
    expect(result.steps[0]!.policy).toMatch(/findFiles first/);
    expect(result.steps[0]!.observation).toMatch(/contracts\/msa\.txt/);
    expect(result.steps[1]!.action).toBe('retrieve');
    expect(result.coverage.files_total).toBe(4);
  });

  it('findFiles first – an immediate final answer is set aside; the inventory and the search run one after the other, with no model call between', async () => {
    const { result, model } = await run(
      { steps: [{ final: 'I know this already.' }, { final: 'Now from the files.' }, { final: 'Never asked for.' }] },
      'What notice is needed to terminate?',
    );
    expect(result.steps.map((s) => s.action)).toEqual(['findFiles', 'retrieve', 'final_answer']);
    expect(result.steps.map((s) => s.index)).toEqual([1, 2, 3]);
    expect(result.steps[1]).toMatchObject({
      input: { query: 'What notice is needed to terminate?' },
      policy: SEARCH_BEFORE_ANSWER,
      timing: { model_ms: 0 },
    });
    expect(model.calls).toHaveLength(2);
    expect(result.calls).toBe(2);
    expect(result.answer).toBe('Now from the files.');
  });

  it('search first – an answer proposed after the inventory but before any search becomes a retrieve of the question', async () => {
    const { result } = await run(
      { steps: [FIND, { final: 'final_answer' }, { final: 'Sixty days [cite:{{cite}}].' }] },
      'What notice is needed to terminate?',
    );
    expect(result.steps.map((s) => s.action)).toEqual(['findFiles', 'retrieve', 'final_answer']);
    expect(result.steps[1]).toMatchObject({
      input: { query: 'What notice is needed to terminate?' },
      policy: SEARCH_BEFORE_ANSWER,
    });
    expect(result.steps[1]!.summary!.count).toBeGreaterThan(0);
  });

  it('max steps – after the budget the next step must be the answer, constrained to final_answer', async () => {
    const { result, model } = await run(
      {
        steps: [
          FIND,
          SEARCH,
          { ...SEARCH, action_input: { query: 'material breach cure' } },
          { final: 'Sixty days [cite:{{cite}}].' },
        ],
      },
      'What notice ends the MSA?',
      { maxSteps: 2 },
    );
    expect(result.steps.map((s) => s.action)).toEqual(['findFiles', 'retrieve', 'final_answer']);
    const last = result.steps[2]!;
    expect(last.policy).toMatch(/step budget of 2 reached/);
    expect(result.coverage.budget_exhausted).toBe(true);
    // The third model call (the forced answer) was given a schema that only allows final_answer.
    const forced = model.calls[2]!.responseFormat;
    expect(forced?.type).toBe('json');
    expect(JSON.stringify(forced)).not.toMatch(/"retrieve"/);
    expect(JSON.stringify(model.calls[1]!.responseFormat)).toMatch(/"retrieve"/);
    // findFiles takes no constrained arguments: once called it can only repeat, so the grammar stops offering it.
    expect(JSON.stringify(model.calls[0]!.responseFormat)).toMatch(/"findFiles"/);
    expect(JSON.stringify(model.calls[1]!.responseFormat)).not.toMatch(/"findFiles"/);
  });

  it('max steps – a model that still asks for a tool gets an honest "budget ran out" answer', async () => {
    const { result } = await run({ steps: [FIND, SEARCH] }, 'What notice ends the MSA?', { maxSteps: 1 });
    // Step 1: findFiles (the model asked for it). Step 2 is forced; the script offers a tool call.
    expect(result.steps).toHaveLength(2);
    expect(result.steps[1]!.kind).toBe('final');
    expect(result.answer).toMatch(/step budget ran out/);
    expect(result.grounded).toBe(false);
  });

  it('tool errors – bad regex, unknown file and invalid arguments become observations; the turn goes on', async () => {
    const { result } = await run(
      {
        steps: [
          FIND,
          { thought: 'grep', action: 'grepCase', action_input: { pattern: '(unclosed' } },
          { thought: 'read', action: 'readFile', action_input: { file_id: 'no-such-file' } },
          { thought: 'search', action: 'retrieve', action_input: {} },
          { thought: 'grep again', action: 'grepCase', action_input: { pattern: 'sixty \\(60\\) days' } },
          { final: 'Sixty days [cite:{{cite:1}}].' },
        ],
      },
      'What notice ends the MSA?',
    );
    const [, bad, unknown, invalid, good] = result.steps;
    expect(bad!.error).toBe(true);
    expect(bad!.observation).toMatch(/Error from grepCase/);
    expect(unknown!.error).toBe(true);
    expect(unknown!.observation).toMatch(/No file with id "no-such-file"/);
    expect(invalid!.error).toBe(true);
    expect(invalid!.observation).toMatch(/query/);
    expect(good!.error).toBeUndefined();
    expect(good!.summary).toMatchObject({ tool: 'grepCase', count: 1 });
    expect(result.steps.at(-1)!.kind).toBe('final');
    expect(result.grounded).toBe(true);
  });

  it('cut-off reply – after one repair, the part of the answer that was written is kept', async () => {
    const cut =
      '{"thought": "Answering.", "action": "final_answer", "action_input": {"answer": "Sixty days of written no';
    const { result, model } = await run({ steps: [FIND, SEARCH, cut, cut] }, 'What notice ends the MSA?');
    expect(model.calls).toHaveLength(4);
    const last = result.steps.at(-1)!;
    expect(last).toMatchObject({ kind: 'final', repaired: true });
    expect(last.policy).toMatch(/cut off/);
    expect(result.answer).toBe('Sixty days of written no');
  });

  it('unknown tool – the model is told which tools exist', async () => {
    const { result } = await run(
      { steps: [FIND, { thought: 'x', action: 'deleteEverything', action_input: {} }, { final: 'No answer.' }] },
      'q?',
    );
    expect(result.steps[1]!.observation).toMatch(/no tool named "deleteEverything".*findFiles/);
  });

  it('repeated identical call – the model is stopped there: the tool does not run again and the model is not asked again', async () => {
    const again = {
      ...SEARCH,
      thought: 'Search again.',
      action_input: { query: ' terminate convenience written notice' },
    };
    const { result, model } = await run(
      { steps: [FIND, SEARCH, again, { final: 'Sixty days [cite:{{cite}}].' }] },
      'What notice is needed to terminate?',
    );
    expect(model.calls).toHaveLength(3);
    expect(result.steps).toHaveLength(3);
    const repeat = result.steps[2]!;
    expect(repeat).toMatchObject({
      kind: 'final',
      action: 'retrieve',
      policy: `${REPEATED_CALL_STOP} (step 2)`,
      timing: { tool_ms: 0 },
    });
    expect(result.stopped).toBe(`${REPEATED_CALL_STOP} (step 2)`);
    expect(result.answer).toBe('');
  });

  it('a query about nothing the turn knows of is replaced by the question, and the trace says so', async () => {
    const wander = { thought: 'Search.', action: 'retrieve', action_input: { query: 'zebra migration patterns' } };
    const { result } = await run(
      { steps: [FIND, wander, { final: 'Sixty days [cite:{{cite}}].' }] },
      'What notice is needed to terminate?',
    );
    expect(result.steps[1]).toMatchObject({
      action: 'retrieve',
      input: { query: 'What notice is needed to terminate?' },
    });
    expect(result.steps[1]!.policy).toBe(offTopicNote('zebra migration patterns'));
    expect(result.steps[1]!.summary!.count).toBeGreaterThan(0);
    // A query that shares a word with the question, or with what was found, is the model's to make.
    const { result: kept } = await run(
      { steps: [FIND, SEARCH, { final: 'x' }] },
      'What notice is needed to terminate?',
    );
    expect(kept.steps[1]!.input.query).toBe('terminate convenience written notice');
  });

  it('a model that fails the step format a second time is stopped without a repair call', async () => {
    const { result, model } = await run(
      { steps: [FIND, 'not a step', SEARCH, 'still not a step', { final: 'never asked' }] },
      'What notice is needed to terminate?',
    );
    // findFiles; a reply that did not parse, repaired into the search; then a second failure ends the turn.
    expect(model.calls).toHaveLength(4);
    expect(result.steps.map((s) => s.action)).toEqual(['findFiles', 'retrieve', 'final_answer']);
    expect(result.steps[1]!.repaired).toBe(true);
    expect(result.stopped).toBe(FORMAT_STOP);
    expect(result.steps[2]!.policy).toBe(FORMAT_STOP);
  });

  it('dedup – a passage already shown is referenced, not repeated', async () => {
    const other = {
      thought: 'Other words.',
      action: 'keyword_search',
      action_input: { query: 'terminate agreement notice' },
    };
    const { result } = await run({ steps: [FIND, SEARCH, other, { final: 'x' }] }, 'What notice ends the MSA?');
    const first = result.steps[1]!.observation;
    const cite = /\[cite:(\w+)\] contracts\/msa\.txt/.exec(first)?.[1];
    expect(cite).toBeTruthy();
    expect(result.steps[2]!.observation).toMatch(new RegExp(`\\[cite:${cite}\\] \\(already shown in step 2\\)`));
  });

  it('rejection set – a passage judged useless is not fetched again', async () => {
    // "terminate convenience" scores the case notes as `none`: they are rejected for the rest of the turn.
    const { result } = await run(
      {
        steps: [
          FIND,
          SEARCH,
          {
            thought: 'Again about the notes.',
            action: 'keyword_search',
            action_input: { query: 'Provider notice contract ending' },
          },
          { final: 'x' },
        ],
      },
      'What notice ends the MSA?',
    );
    const first = result.steps[1]!.observation;
    const notes = /\[cite:(\w+)\] notes\.md p\.1 \(none\)/.exec(first)?.[1];
    expect(notes, first).toBeTruthy();
    const second = result.steps[2]!.observation;
    expect(second).not.toContain(notes!);
    expect(second).not.toMatch(/notes\.md/);
  });

  it('exhaustive questions – an answer without searching the whole case is sent back once to grepCase', async () => {
    const { result } = await run(
      {
        steps: [
          FIND,
          { final: 'He saw Dr. Park once.' },
          {
            thought: 'Search every file.',
            action: 'grepCase',
            action_input: { pattern: 'saw Dr\\. Helen Park|Dr\\. Helen Park ordered' },
          },
          { final: 'Four visits [cite:{{cite:1}}] [cite:{{cite:2}}].' },
        ],
      },
      'List every visit with Dr. Park.',
    );
    expect(result.steps[1]!.policy).toMatch(/exhaustive question/);
    expect(result.steps[2]!.action).toBe('grepCase');
    expect(result.coverage.exhaustive).toBe(true);
    expect(result.coverage.whole_case_searched).toBe(true);
    expect(result.coverage.files_searched).toBe(3);
    expect(result.coverage.note).toMatch(/broken\.pdf/);
    expect(result.coverage.note).not.toMatch(/may miss/);
  });

  it('clause of a named document – a search focused on it, then an answer: the section of the best passage is read whole first, and the trace says why', async () => {
    const { result } = await run(
      {
        steps: [
          FIND,
          {
            thought: 'Find the termination clause.',
            action: 'retrieve',
            action_input: { query: 'Brightline terminate for convenience notice' },
          },
          { final: 'Sixty days [cite:{{cite}}].' },
          { final: 'Sixty days’ prior written notice [cite:{{cite}}].' },
        ],
      },
      'How much notice does Brightline need to end the services agreement for convenience?',
    );
    const search = result.steps[1]!;
    expect(search.observation).toMatch(/Focused on contracts\/msa\.txt \(the question names "Brightline"\)/);
    expect(search.observation).toMatch(/§ 3 Term and Termination/);
    const read = result.steps[2]!;
    expect(read.action).toBe('readSection');
    expect(read.policy).toBe(CLAUSE_READ_SECTION);
    expect(read.observation).toMatch(/§ 3 Term and Termination/);
    expect(read.observation).toContain('sixty (60) days');
    expect(read.observation).toContain('cured within thirty (30) days');
    expect(result.answer).toBe('Sixty days’ prior written notice [cite:' + result.citations[0]!.id + '].');
  });

  it('clause policy – not for a search that names no document, nor twice in a turn', async () => {
    const { result } = await run(
      { steps: [FIND, SEARCH, { final: 'Sixty days [cite:{{cite}}].' }] },
      'What notice is needed to terminate?',
    );
    expect(result.steps.map((s) => s.action)).toEqual(['findFiles', 'retrieve', 'final_answer']);
  });

  it('exhaustive questions – when the budget runs out first, the coverage note says so', async () => {
    const { result } = await run(
      { steps: [FIND, SEARCH, { final: 'Some visits [cite:{{cite}}].' }] },
      'List every visit with Dr. Park.',
      { maxSteps: 2 },
    );
    expect(result.coverage.budget_exhausted).toBe(true);
    expect(result.coverage.note).toMatch(/step budget ran out before the whole case was searched/);
  });
});

describe('runAgent – citations', () => {
  it('verified – a quote found in the cited passage', async () => {
    const { result } = await run(
      {
        steps: [
          FIND,
          { thought: 'grep', action: 'grepCase', action_input: { pattern: 'sixty \\(60\\) days' } },
          { final: 'Either party may end it "upon sixty (60) days\' prior written notice" [cite:{{cite}}].' },
        ],
      },
      'What notice ends the MSA?',
    );
    expect(result.citations).toHaveLength(1);
    expect(result.citations[0]).toMatchObject({ status: 'verified', verified: true, file_name: 'contracts/msa.txt' });
    expect(result.grounded).toBe(true);
  });

  it('quote not found – a made-up quote with a real id is not verified', async () => {
    const { result } = await run(
      { steps: [FIND, SEARCH, { final: 'The MSA says "ninety days by fax" [cite:{{cite}}].' }] },
      'What notice ends the MSA?',
    );
    expect(result.citations[0]).toMatchObject({ status: 'not_verified', verified: false });
    expect(result.citations[0]!.reason).toMatch(/quote not found/);
    expect(result.grounded).toBe(false);
  });

  it('invented id – an id no tool returned is flagged; the answer is ungrounded', async () => {
    const { result } = await run(
      { steps: [FIND, SEARCH, { final: 'Sixty days [cite:zzzzz1].' }] },
      'What notice ends the MSA?',
    );
    expect(result.citations[0]).toMatchObject({ id: 'zzzzz1', status: 'invented', verified: false });
    expect(result.grounded).toBe(false);
  });

  it('no citation – an answer citing nothing is ungrounded', async () => {
    const { result } = await run({ steps: [FIND, SEARCH, { final: 'Sixty days.' }] }, 'What notice ends the MSA?');
    expect(result.citations).toEqual([]);
    expect(result.grounded).toBe(false);
  });
});

describe('runAgent – streaming and cancellation', () => {
  it('streams thought and answer tokens while a step is generated', async () => {
    const tokens: { step: number; channel: string; text: string }[] = [];
    const { result } = await run({ chunkChars: 3, steps: [FIND, SEARCH, { final: 'Sixty days of notice.' }] }, 'q?', {
      onToken: (step, channel, text) => tokens.push({ step, channel, text }),
    });
    expect(
      tokens
        .filter((t) => t.step === 1 && t.channel === 'thought')
        .map((t) => t.text)
        .join(''),
    ).toBe(FIND.thought);
    const answer = tokens.filter((t) => t.channel === 'answer');
    expect(answer.length).toBeGreaterThan(3);
    expect(answer.map((t) => t.text).join('')).toBe(result.answer);
  });

  it('cancel mid-stream – generation stops, the partial trace is kept', async () => {
    const controller = new AbortController();
    let after = 0;
    let cancelledAt = 0;
    const { result } = await run(
      {
        chunkChars: 2,
        delayMs: 5,
        steps: [FIND, { final: 'A very long answer that will never be finished because the user cancels it early.' }],
      },
      'q?',
      {
        signal: controller.signal,
        onToken: (step, channel) => {
          if (cancelledAt) after++;
          if (step === 2 && channel === 'answer' && !cancelledAt) {
            cancelledAt = step;
            controller.abort();
          }
        },
      },
    );
    expect(result.cancelled).toBe(true);
    expect(result.steps.map((s) => s.action)).toEqual(['findFiles']);
    expect(result.answer).toBe('');
    expect(result.coverage.note).toMatch(/cancelled/);
    expect(after).toBeLessThanOrEqual(1);
  });
});

describe('runAgent – the ai SDK test model', () => {
  it('MockLanguageModelV4 – the loop runs over any ai SDK model', async () => {
    const replies = [
      JSON.stringify(FIND),
      JSON.stringify(SEARCH),
      JSON.stringify({ thought: 'done', action: 'final_answer', action_input: { answer: 'Nothing to cite.' } }),
    ];
    const model = textReplyModel(replies);
    const ledger = new CitationLedger();
    const tools = agentToolsFor(await openCaseTools(c.engine, c.caseId, { ledger }));
    const result = await runAgent({
      model,
      format: 'json',
      tools,
      question: 'q?',
      citations: ledger,
      sourceText: async () => null,
    });
    expect(result.steps.map((s) => s.action)).toEqual(['findFiles', 'retrieve', 'final_answer']);
    expect(result.steps[0]!.tokens).toEqual({ input: 10, output: 5 });
    expect(model.doStreamCalls[0]!.responseFormat?.type).toBe('json');
  });

  it('text ReAct – a reply that does not parse gets one repair retry', async () => {
    const model = new ScriptedLanguageModel(
      ModelScript.parse({
        steps: [
          'I think I will look at files.',
          'Thought: list them\nAction: findFiles\nAction Input: {}',
          'Thought: search\nAction: grepCase\nAction Input: {"pattern": "notice"}',
          'Thought: enough\nFinal Answer: No notice found.',
        ],
      }),
    );
    const ledger = new CitationLedger();
    const tools = agentToolsFor(await openCaseTools(c.engine, c.caseId, { ledger }));
    const result = await runAgent({
      model,
      format: 'text',
      tools,
      question: 'q?',
      citations: ledger,
      sourceText: async () => null,
    });
    expect(result.steps.map((s) => s.action)).toEqual(['findFiles', 'grepCase', 'final_answer']);
    expect(result.answer).toBe('No notice found.');
    // The repair call saw the bad reply and the correction request.
    const repair = JSON.stringify(model.calls[1]!.prompt);
    expect(repair).toMatch(/could not be read/);
    expect(model.calls[0]!.stopSequences).toContain('Observation:');
  });
});
