import { describe, expect, it } from 'vitest';
import { CitationLedger } from '../../src/core/citations/ledger';
import { findCites, normalise, quoteInSpan, quotesIn, verifyCitations } from '../../src/core/citations/verify';

const SOURCE =
  'MASTER SERVICES AGREEMENT\n\n3. Term and Termination. Either party may terminate this Agreement for convenience upon sixty (60) days’ prior\n   written notice to the other party. Either party may terminate for material breach if the breach is not cured within thirty (30) days.';

function setup() {
  const ledger = new CitationLedger();
  const start = SOURCE.indexOf('Either party may terminate this');
  const end = SOURCE.indexOf('other party.') + 'other party.'.length;
  const clause = ledger.issue({ file_id: 'f1', file_name: 'msa.pdf', version: 2, pages: [3], start, end });
  const s60 = SOURCE.indexOf('sixty (60)');
  const hit = ledger.issue({ file_id: 'f1', file_name: 'msa.pdf', version: 2, pages: [3], start: s60, end: s60 + 'sixty (60)'.length });
  const gone = ledger.issue({ file_id: 'f9', file_name: 'deleted.pdf', version: 1, pages: [1], start: 0, end: 10 });
  const text = async (fileId: string, version: number) => (fileId === 'f1' && version === 2 ? SOURCE : null);
  return { ledger, clause, hit, gone, text };
}

describe('verifyCitations', () => {
  it('verified – quote found despite curly apostrophe, line break and case differences', async () => {
    const { ledger, clause, text } = setup();
    const r = await verifyCitations(`Either party may end it "Upon sixty (60) days' prior written notice" [cite:${clause.id}].`, ledger, text);
    expect(r.citations).toEqual([expect.objectContaining({ id: clause.id, status: 'verified', verified: true, file_name: 'msa.pdf', pages: [3] })]);
    expect(r.grounded).toBe(true);
  });

  it('verified – a cite without a quote only needs a known id', async () => {
    const { ledger, clause, text } = setup();
    const r = await verifyCitations(`Sixty days of notice are needed. [cite:${clause.id}]\nNothing else.`, ledger, text);
    expect(r.citations[0]).toMatchObject({ status: 'verified' });
    expect(r.citations[0]!.reason).toMatch(/quotes nothing/);
  });

  it('verified – a quote around a short grep hit counts when it contains the cited words', async () => {
    const { ledger, hit, text } = setup();
    const r = await verifyCitations(`The clause says "for convenience upon sixty (60) days" [cite:${hit.id}].`, ledger, text);
    expect(r.citations[0]).toMatchObject({ status: 'verified' });
  });

  it('not verified – the quote is not in the cited span', async () => {
    const { ledger, clause, text } = setup();
    const r = await verifyCitations(`Termination requires "ninety (90) days notice by fax" [cite:${clause.id}].`, ledger, text);
    expect(r.citations[0]).toMatchObject({ status: 'not_verified', verified: false });
    expect(r.citations[0]!.reason).toMatch(/quote not found: "ninety \(90\) days notice by fax"/);
    expect(r.grounded).toBe(false);
  });

  it('not verified – the quote exists in the document but outside the cited span', async () => {
    const { ledger, clause, text } = setup();
    const r = await verifyCitations(`A breach must be "cured within thirty (30) days" [cite:${clause.id}].`, ledger, text);
    expect(r.citations[0]).toMatchObject({ status: 'not_verified' });
  });

  it('not verified – the source text cannot be read', async () => {
    const { ledger, gone, text } = setup();
    const r = await verifyCitations(`It says "anything at all" [cite:${gone.id}].`, ledger, text);
    expect(r.citations[0]).toMatchObject({ status: 'not_verified' });
    expect(r.citations[0]!.reason).toMatch(/could not be read/);
  });

  it('invented – an id that no tool returned', async () => {
    const { ledger, clause, text } = setup();
    const r = await verifyCitations(`Sixty days [cite:${clause.id}]. Also thirty days [cite:abc123].`, ledger, text);
    expect(r.citations.find((c) => c.id === 'abc123')).toMatchObject({ status: 'invented', verified: false });
    expect(r.citations.find((c) => c.id === clause.id)).toMatchObject({ status: 'verified' });
    expect(r.grounded).toBe(true);
  });

  it('ungrounded – no citations, or none verified', async () => {
    const { ledger, text } = setup();
    expect(await verifyCitations('Sixty days.', ledger, text)).toEqual({ citations: [], grounded: false });
    expect((await verifyCitations('Sixty days [cite:nope].', ledger, text)).grounded).toBe(false);
  });

  it('sentences – full stops inside quotes and after abbreviations do not split the checked sentence', async () => {
    const ledger = new CitationLedger();
    const src = 'On August 2, 2022 the claimant last saw Dr. Helen Park about his knee. She released him.';
    const rec = ledger.issue({ file_id: 'm', file_name: 'med.txt', version: 1, pages: [1], start: 0, end: src.length });
    const text = async () => src;
    const ok = await verifyCitations(`Per the records, "the claimant last saw Dr. Helen Park about his knee." [cite:${rec.id}]`, ledger, text);
    expect(ok.citations[0]).toMatchObject({ status: 'verified', quotes: ['the claimant last saw Dr. Helen Park about his knee.'] });
    const bad = await verifyCitations(`He saw Dr. Park "on May 5, 2023 for surgery" [cite:${rec.id}].`, ledger, text);
    expect(bad.citations[0]).toMatchObject({ status: 'not_verified' });
  });

  it('a quote is satisfied by any cite of its sentence', async () => {
    const { ledger, clause, hit, text } = setup();
    const r = await verifyCitations(`It needs "sixty (60) days" [cite:${hit.id}, ${clause.id}].`, ledger, text);
    expect(r.citations.map((c) => c.status)).toEqual(['verified', 'verified']);
  });
});

describe('citation parsing', () => {
  it('findCites – single, grouped and repeated markers', () => {
    expect(findCites('a [cite:c1] b [cite:c2, c3][cite: c4]').map((c) => c.id)).toEqual(['c1', 'c2', 'c3', 'c4']);
  });
  it('quotesIn – straight and curly quotes, ellipses trimmed, short ones ignored', () => {
    expect(quotesIn('He said "upon sixty days…" and “written notice” but "ok" [cite:x]')).toEqual(['upon sixty days', 'written notice']);
  });
  it('normalise – whitespace collapsed, case and typographic quotes folded', () => {
    expect(normalise('  Days’\n\t Prior  — NOTICE ').text).toBe("days' prior - notice");
  });
  it('quoteInSpan – overlap with the span is required', () => {
    expect(quoteInSpan('thirty (30) days', SOURCE, 0, 20)).toBe(false);
    const at = SOURCE.indexOf('thirty');
    expect(quoteInSpan('THIRTY (30)   days', SOURCE, at, at + 6)).toBe(true);
  });
});
