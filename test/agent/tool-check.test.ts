import { describe, expect, it } from 'vitest';
import { nearestFile } from '../../src/core/agent/tool-check';
import { anyCorrection, caseFiles, CORRUPTIONS, corruptedTurn, playTurn, type CaseFile } from './corrupter';
import { scriptModel, useIngestedCase } from './helpers';

/**
 * Tools that fail silently: each kind of corruption (test/agent/corrupter.ts) in a scripted turn over
 * a real ingested case (real LanceDB search, real tools), and the policy in code that catches it.
 */
const c = useIngestedCase();
let files: CaseFile[] = [];
const filesOf = async () => {
  if (!files.length) files = await caseFiles(c.engine, c.caseId);
  return files;
};

describe('tool check – each corruption is caught, said in the trace, and kept out of the answer', () => {
  for (const kind of CORRUPTIONS) {
    it(kind, async () => {
      const turn = corruptedTurn(kind, 0, await filesOf());
      const result = await playTurn(c.engine, c.caseId, turn);
      const verdict = turn.judge(result);
      expect(verdict.caught, verdict.why).toBe(true);
      expect(result.steps.at(-1)!.kind).toBe('final');
    });
  }

  it('without the check the same corruptions go through unnoticed (the judge can fail)', async () => {
    for (const kind of ['other_doc_passages', 'wrong_section', 'empty_grep', 'wrong_file_id'] as const) {
      const turn = corruptedTurn(kind, 1, await filesOf());
      const result = await playTurn(c.engine, c.caseId, turn, { check: false });
      expect(turn.judge(result).caught, kind).toBe(false);
    }
  });

  it('a clean turn gets no correction', async () => {
    for (const kind of CORRUPTIONS) {
      const turn = corruptedTurn(kind, 2, await filesOf());
      const result = await playTurn(c.engine, c.caseId, turn, { corrupt: false });
      expect(anyCorrection(result), `${kind}: ${result.steps.map((s) => s.policy).join(' | ')}`).toBe(false);
    }
  });

  it('calls that are sound as asked are not corrected: part of a name in the chronology, a grep for words not there', async () => {
    const base = corruptedTurn('empty_query', 0, await filesOf());
    const steps = [
      { thought: 'List.', action: 'findFiles', action_input: {} },
      { thought: 'Dates.', action: 'timeline', action_input: { file_name: 'records' } },
      { thought: 'Grep.', action: 'grepCase', action_input: { pattern: 'arbitration' } },
      { final: 'No arbitration clause.' },
    ];
    const result = await playTurn(c.engine, c.caseId, { ...base, clean: { script: { steps } } }, { corrupt: false });
    expect(result.steps.map((s) => s.action)).toEqual(['findFiles', 'timeline', 'grepCase', 'final_answer']);
    expect(result.steps[1]!.summary!.count).toBeGreaterThan(0);
    expect(result.steps[2]!.summary!.count).toBe(0);
    expect(anyCorrection(result), result.steps.map((s) => s.policy).join(' | ')).toBe(false);
  });

  it('passages of another document shown: the answer cites only the document the search was limited to', async () => {
    const turn = corruptedTurn('other_doc_passages', 3, await filesOf());
    const result = await playTurn(c.engine, c.caseId, turn);
    const step = result.steps.find((s) => s.action === 'retrieve')!;
    expect(step.policy).toMatch(/^Corrected: the search limited to .* returned \d+ passages? from /);
    expect(result.citations.length).toBeGreaterThan(0);
    const limitedTo = String(step.input.file_name);
    for (const cite of result.citations) expect(cite.file_name).toBe(limitedTo);
  });

  it('a search that keeps contradicting its call: the retry is not trusted either, only what fits the call is shown', async () => {
    const turn = corruptedTurn('other_doc_passages', 0, await filesOf(), { every: true });
    const result = await playTurn(c.engine, c.caseId, turn);
    const step = result.steps.find((s) => s.action === 'retrieve')!;
    expect(step.policy).toMatch(/retry did not hold either, so that result was not used/);
    expect(step.observation).toMatch(/contradicted its call/);
    const limitedTo = String(step.input.file_name);
    expect(result.seen.length).toBeGreaterThan(0);
    expect(result.seen.every((p) => p.file_name === limitedTo)).toBe(true);
  });

  it('a grep that keeps saying "no match" for words the document holds: the turn is told the result was not used', async () => {
    const turn = corruptedTurn('empty_grep', 1, await filesOf(), { every: true });
    const result = await playTurn(c.engine, c.caseId, turn);
    const step = result.steps.find((s) => s.action === 'grepFile')!;
    expect(step.policy).toMatch(
      /^Corrected: grepFile reported no match for .*, but .* contains it; the retry did not hold/,
    );
    expect(step.observation).toMatch(/contradicted its call .* and was not used/);
  });
});

describe('nearestFile – an unknown name is matched to the nearest document, never guessed between two', () => {
  const docs = [
    { id: 'a', name: 'contracts/msa.txt' },
    { id: 'b', name: 'medical/records summary.txt' },
    { id: 'c', name: 'notes.md' },
  ];
  it.each([
    ['msa.txt', 'a'],
    ['contracts/msa', 'a'],
    ['Contracts/MSA.TXT', 'a'],
    ['records summery.txt', 'b'],
    ['notes', 'c'],
  ])('%s → %s', (given, id) => {
    expect(nearestFile(given, docs)?.id).toBe(id);
  });
  it('nothing near, or two equally near: no match', () => {
    expect(nearestFile('no-such-file', docs)).toBeNull();
    expect(nearestFile('lease.docx', docs)).toBeNull();
    expect(
      nearestFile('a.txt', [
        { id: '1', name: 'b.txt' },
        { id: '2', name: 'c.txt' },
      ]),
    ).toBeNull();
  });
});

describe('tool check – through chat.ask (the app, CLI and serve mode)', () => {
  it('a file name the case does not have is searched as the nearest document, and the step says so', async () => {
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question: 'What notice is needed to terminate for convenience?',
      model: scriptModel(c.root, {
        steps: [
          { thought: 'List.', action: 'findFiles', action_input: {} },
          {
            thought: 'Search.',
            action: 'retrieve',
            action_input: { query: 'terminate convenience', file_name: 'msa.pdf' },
          },
          { final: 'Sixty days written notice [cite:{{cite}}].' },
        ],
      }),
    });
    const step = r.steps.find((s) => s.action === 'retrieve')!;
    expect(step.policy).toBe('Corrected: no document is named “msa.pdf”: searched contracts/msa.txt, the nearest name');
    expect(step.input.file_name).toBe('contracts/msa.txt');
    expect(step.error).toBeUndefined();
    expect(step.summary!.count).toBeGreaterThan(0);
  });
});
