import { describe, expect, it } from 'vitest';
import { CoverageAccumulator } from '../../src/core/agent/coverage';

/** The coverage note every answer carries: what the turn looked at, and what the answer may miss. */
const end = { exhaustive: false, budgetExhausted: false, cancelled: false };

function inventory(): CoverageAccumulator {
  const c = new CoverageAccumulator();
  c.add({
    total: 4,
    listed: ['contracts/msa.txt', 'medical/records summary.txt', 'notes.md', 'broken.pdf'],
    unsearchable: [{ file_name: 'broken.pdf', status: 'needs_ocr' }],
  });
  return c;
}

describe('CoverageAccumulator', () => {
  it('without findFiles – the note says the inventory was not taken', () => {
    const cov = new CoverageAccumulator().build(end);
    expect(cov.files_total).toBeNull();
    expect(cov.note).toBe('The case inventory was not taken in this turn.');
  });

  it('counts each file once across calls, and names the files that could not be searched', () => {
    const c = inventory();
    c.add({ searched: ['contracts/msa.txt'] });
    c.add({ searched: ['contracts/msa.txt', 'notes.md'], read: ['contracts/msa.txt'] });
    c.add({ unsearchable: [{ file_name: 'broken.pdf', status: 'needs_ocr', reason: 'no text layer' }] });
    const cov = c.build(end);
    expect(cov).toMatchObject({
      files_total: 4,
      files_listed: 4,
      files_searched: 2,
      files_read: 1,
      searched: ['contracts/msa.txt', 'notes.md'],
      read: ['contracts/msa.txt'],
    });
    expect(cov.unsearchable).toEqual([{ file_name: 'broken.pdf', status: 'needs_ocr', reason: 'no text layer' }]);
    expect(cov.note).toBe(
      'Looked at 4 files in the case: 4 listed, 2 searched, 1 read. Could not be searched: broken.pdf (needs ocr: no text layer).',
    );
  });

  it('exhaustive – a whole-case grep counts every readable file as searched, and nothing is said to be missed', () => {
    const c = inventory();
    c.add({ searched: ['medical/records summary.txt'], wholeCase: true });
    const cov = c.build({ ...end, exhaustive: true });
    expect(cov.whole_case_searched).toBe(true);
    expect(cov.files_searched).toBe(3);
    expect(cov.note).toMatch(/3 searched \(whole case\)/);
    expect(cov.note).not.toMatch(/may miss/);
  });

  it('exhaustive – searching file by file is not the whole case: the answer may miss some', () => {
    const c = inventory();
    c.add({ searched: ['contracts/msa.txt', 'medical/records summary.txt', 'notes.md'] });
    expect(c.wholeCase).toBe(false);
    expect(c.build({ ...end, exhaustive: true }).note).toMatch(
      /asks for every occurrence, but the whole case was not searched: the answer may miss some\.$/,
    );
    expect(c.build({ ...end, exhaustive: true, budgetExhausted: true }).note).toMatch(
      /step budget ran out before the whole case was searched/,
    );
  });

  it('budget and cancel are said plainly', () => {
    const c = inventory();
    expect(c.build({ ...end, budgetExhausted: true })).toMatchObject({
      budget_exhausted: true,
      note: expect.stringMatching(/The step budget ran out; the answer is based on what was found so far\.$/),
    });
    expect(c.build({ ...end, cancelled: true }).note).toMatch(/The turn was cancelled; the trace is partial\./);
  });

  it('a filtered findFiles (no total) keeps the case total from the first', () => {
    const c = inventory();
    c.add({ listed: ['notes.md'] });
    expect(c.build(end).files_total).toBe(4);
  });
});
