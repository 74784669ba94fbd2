/**
 * The whole-document chronology eval (bench/eval-chronology.ts): how extracted rows are matched to
 * hand labels and how false hits are classed. A wrong matcher would report figures the chronology
 * does not earn, so its rules are pinned here on small made-up documents.
 */
import { describe, expect, it } from 'vitest';
import { junkKind, matchDocument, readSet, SETS, type LabelDoc, type Row } from '../../bench/eval-chronology';

function rowAt(
  text: string,
  sentence: string,
  date: string,
  date_text: string,
  precision: Row['precision'] = 'day',
): Row {
  const start = text.indexOf(sentence);
  return { date, precision, date_text, start, end: start + sentence.length, text: sentence };
}

const TEXT = [
  'On March 1, 2010 the Court held a hearing on the plan.',
  'Corrected versions were filed\n  January 26, 2010.',
  'Less than one month later, the Court issued its opinion.',
  'Filed on 3/9/2010',
  'Case 09-00429 Doc 83 Filed 03/09/10 Entered 03/09/10 09:03:58 Page 1 of 4',
].join('\n');

const DOC: LabelDoc = {
  id: 'X1',
  file: 'x.pdf',
  kind: 'filing',
  events: [
    { date: '2010-03-01', precision: 'day', quote: 'On March 1, 2010 the Court held', line: 'Hearing on the plan' },
    { date: '2010-01-26', precision: 'day', quote: 'were filed January 26, 2010', line: 'Corrected plan filed' },
    { date: null, quote: 'Less than one month later', line: 'Opinion issued (no date of its own)' },
    { optional: true, date: '2010-03-09', precision: 'day', quote: 'Filed on 3/9/2010', line: 'Filed (stamp)' },
  ],
};

describe('chronology eval matching', () => {
  it('matches a row by its quote across line breaks and scores its date', () => {
    const rows = [
      rowAt(TEXT, 'On March 1, 2010 the Court held a hearing on the plan.', '2010-03-01', 'March 1, 2010'),
      rowAt(TEXT, 'Corrected versions were filed\n  January 26, 2010.', '2010-01-01', 'January 26, 2010', 'month'),
    ];
    const r = matchDocument(DOC, rows, TEXT);
    expect(r.labels).toBe(2);
    expect(r.matched.map((m) => m.dateRight)).toEqual([true, false]);
    expect(r.misses).toEqual([]);
    expect(r.falseHits).toEqual([]);
    expect(r.badQuotes).toEqual([]);
  });

  it('counts a missing label, an undated event given a date, a repeat and a stamp', () => {
    const hearing = 'On March 1, 2010 the Court held a hearing on the plan.';
    const rows = [
      rowAt(TEXT, hearing, '2010-03-01', 'March 1, 2010'),
      rowAt(TEXT, hearing, '2010-03-01', 'March 1, 2010'),
      rowAt(TEXT, 'Less than one month later, the Court issued its opinion.', '2010-04-01', 'one month later'),
      rowAt(TEXT, 'Filed on 3/9/2010', '2010-03-09', '3/9/2010'),
      rowAt(
        TEXT,
        'Case 09-00429 Doc 83 Filed 03/09/10 Entered 03/09/10 09:03:58 Page 1 of 4',
        '2010-03-09',
        '03/09/10',
      ),
    ];
    const r = matchDocument(DOC, rows, TEXT);
    expect(r.misses.map((l) => l.quote)).toEqual(['were filed January 26, 2010']);
    expect(r.falseHits.map((f) => f.kind)).toEqual(['repeat', 'undated event given a date', 'caption or stamp']);
    // The optional stamp is neither right nor wrong.
    expect(r.counted).toBe(4);
  });

  it('reports a label whose quote is not in the text', () => {
    const r = matchDocument({ ...DOC, events: [{ ...DOC.events[0]!, quote: 'not there' }] }, [], TEXT);
    expect(r.badQuotes).toEqual(['not there']);
  });
});

describe('chronology eval junk classes', () => {
  const row = (text: string, date_text: string): Row => ({
    date: '2000-01-01',
    precision: 'day',
    date_text,
    start: 0,
    end: text.length,
    text,
  });
  it('tells line numbers, signature blocks, form fields and citations apart', () => {
    expect(junkKind(row('9 10 Background 11 On February 13, 2002, Plaintiff applied', 'February 13, 2002'))).toBe(
      'line numbers',
    );
    expect(junkKind(row('By: /s/ D. Laurence Padilla Date: 1/28/03', '1/28/03'))).toBe('signature block');
    expect(junkKind(row('Inactive: Active: 20011206 - 20061004', '20011206 - 20061004'))).toBe('form field');
    expect(junkKind(row('See Gall v. United States, 552 U.S. 38 (2007).', '2007'))).toBe('citation');
    expect(junkKind(row('The Instruction of 22 December 2004 sets the standards.', '22 December 2004'))).toBe('other');
  });
});

describe('chronology eval labels', () => {
  it('label at least 20 documents with quotes and event lines of the stated size', () => {
    const docs = SETS.flatMap((s) => readSet(s));
    expect(docs.length).toBeGreaterThanOrEqual(20);
    for (const d of docs)
      for (const e of d.events) {
        expect(e.quote.length).toBeLessThanOrEqual(80);
        expect(e.line.length).toBeLessThanOrEqual(160);
        if (e.date) expect(e.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      }
  });
});
