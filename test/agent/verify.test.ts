import { describe, expect, it } from 'vitest';
import { CitationLedger } from '../../src/core/domain/citation-ledger';
import { ocrCitationNote } from '../../src/shared/citation-text';
import { findCites, normalise, quoteInSpan, quotesIn, verifyCitations } from '../../src/core/citations/verify';

const SOURCE =
  'MASTER SERVICES AGREEMENT\n\n3. Term and Termination. Either party may terminate this Agreement for convenience upon sixty (60) days’ prior\n   written notice to the other party. Either party may terminate for material breach if the breach is not cured within thirty (30) days.';

function setup() {
  const ledger = new CitationLedger();
  const start = SOURCE.indexOf('Either party may terminate this');
  const end = SOURCE.indexOf('other party.') + 'other party.'.length;
  const clause = ledger.issue({ file_id: 'f1', file_name: 'msa.pdf', version: 2, pages: [3], start, end });
  const s60 = SOURCE.indexOf('sixty (60)');
  const hit = ledger.issue({
    file_id: 'f1',
    file_name: 'msa.pdf',
    version: 2,
    pages: [3],
    start: s60,
    end: s60 + 'sixty (60)'.length,
  });
  const gone = ledger.issue({ file_id: 'f9', file_name: 'deleted.pdf', version: 1, pages: [1], start: 0, end: 10 });
  const text = async (fileId: string, version: number) => (fileId === 'f1' && version === 2 ? SOURCE : null);
  return { ledger, clause, hit, gone, text };
}

describe('verifyCitations', () => {
  it('verified – quote found despite curly apostrophe, line break and case differences', async () => {
    const { ledger, clause, text } = setup();
    const r = await verifyCitations(
      `Either party may end it "Upon sixty (60) days' prior written notice" [cite:${clause.id}].`,
      ledger,
      text,
    );
    expect(r.citations).toEqual([
      expect.objectContaining({
        id: clause.id,
        status: 'verified',
        verified: true,
        support: 'quoted',
        file_name: 'msa.pdf',
        pages: [3],
      }),
    ]);
    // The chip opens on the quoted words, not the whole passage.
    expect(r.citations[0]!.span!.text).toBe('upon sixty (60) days’ prior\n   written notice');
    expect(r.grounded).toBe(true);
  });

  it('supported – a paraphrase whose facts and words match the passage; the span narrows to the supporting sentence', async () => {
    const { ledger, clause, text } = setup();
    const r = await verifyCitations(
      `Either party can terminate the agreement for convenience on 60 days' written notice. [cite:${clause.id}]\nNothing else.`,
      ledger,
      text,
    );
    expect(r.citations[0]).toMatchObject({ status: 'verified', verified: true, support: 'supported' });
    expect(r.citations[0]!.span!.text).toMatch(
      /^Either party may terminate this Agreement for convenience upon sixty \(60\) days’ prior\s+written notice to the other party\.$/,
    );
    expect(r.grounded).toBe(true);
  });

  it('a citation on a page read by OCR carries that page’s confidence (for "check the original")', async () => {
    const { ledger, clause } = setup();
    const scanned = async () => ({ text: SOURCE, pageStarts: [0, 0, 0], ocrPages: new Map([[3, 61]]) });
    const r = await verifyCitations(
      `Either party may end it "upon sixty (60) days' prior written notice" [cite:${clause.id}].`,
      ledger,
      scanned,
    );
    expect(r.citations[0]).toMatchObject({ support: 'quoted', ocr_confidence: 61 });
    const typed = await verifyCitations(
      `Either party may end it "upon sixty (60) days' prior written notice" [cite:${clause.id}].`,
      ledger,
      setup().text,
    );
    expect(typed.citations[0]!.ocr_confidence).toBeUndefined();
    expect(ocrCitationNote({ ocr_confidence: 61, pages: [3] })).toBe(
      'p. 3 was read by OCR with 61% confidence — check the original',
    );
    expect(ocrCitationNote({ ocr_confidence: 93, pages: [3] })).toBe('');
  });

  it('not supported – a number the passage does not state, in amber with the reason', async () => {
    const { ledger, clause, text } = setup();
    const r = await verifyCitations(
      `Either party may terminate for convenience on forty-five (45) days' written notice [cite:${clause.id}].`,
      ledger,
      text,
    );
    expect(r.citations[0]).toMatchObject({ status: 'not_verified', verified: false, support: 'not_supported' });
    expect(r.citations[0]!.reason).toBe('the passage does not mention 45 days');
    expect(r.grounded).toBe(false);
  });

  it('not supported – a passage of another contract; the reason names both documents', async () => {
    const ledger = new CitationLedger();
    const src =
      'DATA LICENSE AGREEMENT between DataCall Technologies and Licensee. 9.1 Licensee may terminate this Agreement on forty-five (45) days written notice.';
    const rec = ledger.issue({
      file_id: 'dc',
      file_name: 'datacall.pdf',
      version: 1,
      pages: [4],
      start: src.indexOf('9.1'),
      end: src.length,
    });
    const text = async () => ({ text: src, title: 'DataCall Data License Agreement', names: 'DataCall Technologies' });
    const documentNamed = (name: string) => (name === 'cardlytics' ? 'the Cardlytics Maintenance Agreement' : null);
    const r = await verifyCitations(
      `Cardlytics may terminate the agreement on 45 days' notice [cite:${rec.id}].`,
      ledger,
      text,
      { documentNamed },
    );
    expect(r.citations[0]).toMatchObject({ support: 'not_supported', verified: false });
    expect(r.citations[0]!.reason).toBe(
      'the passage is from DataCall Data License Agreement, not the Cardlytics Maintenance Agreement',
    );
    // The same sentence about DataCall is supported: the name is the document's own.
    const ok = await verifyCitations(
      `DataCall's licensee may terminate the agreement on 45 days' notice [cite:${rec.id}].`,
      ledger,
      text,
      { documentNamed },
    );
    expect(ok.citations[0]).toMatchObject({ support: 'supported', title: 'DataCall Data License Agreement' });
  });

  it('not supported – a sentence about something the passage does not say, or its negation', async () => {
    const { ledger, clause, text } = setup();
    const other = await verifyCitations(
      `The supplier must keep insurance for product liability [cite:${clause.id}].`,
      ledger,
      text,
    );
    expect(other.citations[0]).toMatchObject({ support: 'not_supported' });
    expect(other.citations[0]!.reason).toMatch(/does not say this/);
    const negated = await verifyCitations(
      `Neither party may terminate this Agreement for convenience upon 60 days prior written notice [cite:${clause.id}].`,
      ledger,
      text,
    );
    expect(negated.citations[0]).toMatchObject({ support: 'not_supported' });
  });

  it('supported with an embedding similarity: the model decides closeness, the words still must not be unrelated', async () => {
    const { ledger, clause, text } = setup();
    const calls: string[][] = [];
    const similarity = async (_s: string, c: string[]) => {
      calls.push(c);
      return c.map((x) => (x.includes('convenience') ? 0.9 : 0.1));
    };
    const r = await verifyCitations(
      `Either party may end the contract for convenience with 60 days of notice [cite:${clause.id}].`,
      ledger,
      text,
      { similarity },
    );
    expect(calls.length).toBe(1);
    expect(r.citations[0]).toMatchObject({ support: 'supported' });
    const low = await verifyCitations(
      `Either party may end the contract for convenience with 60 days of notice [cite:${clause.id}].`,
      ledger,
      text,
      { similarity: async (_s, c) => c.map(() => 0.2) },
    );
    expect(low.citations[0]).toMatchObject({ support: 'not_supported' });
  });

  it('quoted – a short quoted term does not vouch for the rest of the sentence', async () => {
    const { ledger, clause, text } = setup();
    const r = await verifyCitations(
      `Under the "prior written notice" rule, either party may terminate for convenience on 90 days' notice [cite:${clause.id}].`,
      ledger,
      text,
    );
    expect(r.citations[0]).toMatchObject({ support: 'not_supported' });
    expect(r.citations[0]!.reason).toMatch(/90 days/);
  });

  it('verified – a quote around a short grep hit counts when it contains the cited words', async () => {
    const { ledger, hit, text } = setup();
    const r = await verifyCitations(
      `The clause says "for convenience upon sixty (60) days" [cite:${hit.id}].`,
      ledger,
      text,
    );
    expect(r.citations[0]).toMatchObject({ status: 'verified' });
  });

  it('not verified – the quote is not in the cited span', async () => {
    const { ledger, clause, text } = setup();
    const r = await verifyCitations(
      `Termination requires "ninety (90) days notice by fax" [cite:${clause.id}].`,
      ledger,
      text,
    );
    expect(r.citations[0]).toMatchObject({ status: 'not_verified', verified: false });
    expect(r.citations[0]!.reason).toMatch(/quote not found: "ninety \(90\) days notice by fax"/);
    expect(r.grounded).toBe(false);
  });

  it('not verified – the quote exists in the document but outside the cited span', async () => {
    const { ledger, clause, text } = setup();
    const r = await verifyCitations(
      `A breach must be "cured within thirty (30) days" [cite:${clause.id}].`,
      ledger,
      text,
    );
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
    expect(await verifyCitations('Sixty days.', ledger, text)).toEqual({
      citations: [],
      grounded: false,
      supportedSentences: 0,
    });
    expect((await verifyCitations('Sixty days [cite:nope].', ledger, text)).grounded).toBe(false);
  });

  it('sentences – full stops inside quotes and after abbreviations do not split the checked sentence', async () => {
    const ledger = new CitationLedger();
    const src = 'On August 2, 2022 the claimant last saw Dr. Helen Park about his knee. She released him.';
    const rec = ledger.issue({ file_id: 'm', file_name: 'med.txt', version: 1, pages: [1], start: 0, end: src.length });
    const text = async () => src;
    const ok = await verifyCitations(
      `Per the records, "the claimant last saw Dr. Helen Park about his knee." [cite:${rec.id}]`,
      ledger,
      text,
    );
    expect(ok.citations[0]).toMatchObject({
      status: 'verified',
      quotes: ['the claimant last saw Dr. Helen Park about his knee.'],
    });
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
    expect(quotesIn('He said "upon sixty days…" and “written notice” but "ok" [cite:x]')).toEqual([
      'upon sixty days',
      'written notice',
    ]);
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
