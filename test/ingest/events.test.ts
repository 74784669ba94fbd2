/**
 * Dated events: labelled sentences — what a chronology must hold (dates as days, months, years,
 * ranges, relative dates) and what it must leave out (durations, form revision dates, running
 * footers, "today") — with precision and recall over the set.
 */
import { describe, expect, it } from 'vitest';
import { extractEvents, namesIn, sentenceSpans } from '../../src/core/text/dates';
import { loadText } from '../../src/core/reader/loaders';

/** [sentence, expected date (YYYY-MM-DD) or null for "no event", precision, date_end?] */
const LABELLED: [string, string | null, ('day' | 'month' | 'year')?, string?][] = [
  ['On or about May 3, 2021, the plaintiff saw Dr. Maria Alvarez about his left knee.', '2021-05-03', 'day'],
  ['The lease commenced on January 15, 2019 and ran for two years.', '2019-01-15', 'day'],
  ['Plaintiff filed the complaint on 2022-11-30 in the Superior Court.', '2022-11-30', 'day'],
  ['From January 2019 through March 2020 he worked at Acme Holdings LLC.', '2019-01-01', 'month', '2020-03-01'],
  ['The hearing was held Sep 12–13, 2022.', '2022-09-12', 'day', '2022-09-13'],
  ['On March 4 and 5, 2019, the trial was held.', '2019-03-04', 'day', '2019-03-05'],
  ['In 2018 the company moved its offices to Denver.', '2018-01-01', 'year'],
  ['During 2016 the tenant paid rent late four times.', '2016-01-01', 'year'],
  ['The notice of default was served on 12 March 2023.', '2023-03-12', 'day'],
  ['Payment of $12,500 was received on April 4th, 2023.', '2023-04-04', 'day'],
  ['In March 2021 the roof began to leak.', '2021-03-01', 'month'],
  ['The inspection took place on the 5th day of June, 2020.', '2020-06-05', 'day'],
  ['This Agreement is dated as of June 1, 2015.', '2015-06-01', 'day'],
  ['Dr. Alvarez examined the knee again on Aug. 2, 2021 and ordered an MRI.', '2021-08-02', 'day'],
  ['Signed 07/22/2019 by both parties.', '2019-07-22', 'day'],
  ['The deposition of John Smith was taken on October 7, 2022.', '2022-10-07', 'day'],
  ['The parties met at the site on February 28, 2022.', '2022-02-28', 'day'],
  ['The claimant last saw his physician on December 1, 2022.', '2022-12-01', 'day'],
  ['On Monday, May 2, 2022, the board approved the merger.', '2022-05-02', 'day'],
  // Not events.
  ['Section 2.1 applies for 30 days after delivery.', null],
  ['Form 1040 (Rev. 01/2019) must be attached.', null],
  ['He paid $2,000 on the 5th.', null],
  ['The tenant shall give notice within ninety (90) days.', null],
  ['Mr. Smith met Judge Brown today.', null],
  ['Page 3 of 10', null],
  ['The premises are at 1200 Main Street, Suite 2019.', null],
  ['The warranty lasts two years from delivery.', null],
];

describe('dated events', () => {
  it('labelled sentences: precision and recall of extraction, and every date right', async () => {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    const wrong: string[] = [];
    for (const [sentence, date, precision, end] of LABELLED) {
      const doc = loadText(Buffer.from(sentence));
      const events = await extractEvents(doc.text, doc.index, { docDate: '' });
      if (date === null) {
        if (events.length) {
          fp++;
          wrong.push(`not an event, found ${events[0]!.date}: ${sentence}`);
        }
        continue;
      }
      if (!events.length) {
        fn++;
        wrong.push(`missed: ${sentence}`);
        continue;
      }
      tp++;
      const e = events[0]!;
      if (e.date !== date || e.precision !== precision || (end !== undefined && e.date_end !== end))
        wrong.push(`${sentence}: ${e.date} ${e.precision} ${e.date_end ?? ''}`);
    }
    expect(wrong).toEqual([]);
    expect(tp / (tp + fp)).toBe(1);
    expect(tp / (tp + fn)).toBe(1);
  });

  it('a relative date follows the event before it; an ambiguous day/month is marked; the case’s day-first order is honoured', async () => {
    const doc = loadText(
      Buffer.from(
        'The plaintiff fell on May 3, 2021. Three days later he saw Dr. Alvarez.\n\nThe report is dated 03/04/2020.',
      ),
    );
    const events = await extractEvents(doc.text, doc.index, { docDate: '2023-01-01' });
    expect(events.map((e) => [e.date, e.precision, e.ambiguous ?? false])).toEqual([
      ['2021-05-03', 'day', false],
      ['2021-05-06', 'day', false],
      ['2020-03-04', 'day', true],
    ]);
    expect(events[1]!.people).toEqual(['Dr. Alvarez']);
    const gb = await extractEvents(doc.text, doc.index, { docDate: '2023-01-01', dayFirst: true });
    expect(gb[2]!.date).toBe('2020-04-03');
  });

  it('each event is its sentence, exactly: the offsets hold the words; a date in a running footer is not an event', async () => {
    const who = ['The witness', 'Her landlord', 'A plumber', 'The insurer'];
    const what = ['the leak', 'the damp wall', 'the repair bill', 'the claim form'];
    const pages = who
      .map((w, i) => `${w} called on June ${i + 2}, 2020 about\n${what[i]}.\nCONFIDENTIAL — printed 01/05/2024`)
      .join('\n');
    const doc = loadText(
      Buffer.from(
        pages
          .split('\n')
          .map((l) => l)
          .join('\n'),
      ),
    );
    // Force four pages: one per block of three lines.
    const starts = [0];
    for (let i = 0, n = 0; i < doc.text.length; i++) if (doc.text[i] === '\n' && ++n % 3 === 0) starts.push(i + 1);
    const index = {
      ...doc.index,
      pages: starts.map((s, i) => ({
        page: i + 1,
        start: s,
        end: starts[i + 1] ?? doc.text.length,
        view: [0, 0, 0, 0] as [number, number, number, number],
        rotate: 0,
        fonts: [],
        items: [],
      })),
    };
    const events = await extractEvents(doc.text, index, { docDate: '' });
    expect(events.map((e) => e.date)).toEqual(['2020-06-02', '2020-06-03', '2020-06-04', '2020-06-05']);
    for (const e of events) expect(doc.text.slice(e.start, e.end).replace(/\n/g, ' ')).toBe(e.text);
    expect(events.map((e) => e.page)).toEqual([1, 2, 3, 4]);
  });

  it('sentences split after a full stop, not after an abbreviation; names are capitalised runs', () => {
    const t = 'Dr. Alvarez saw him on May 3. He left. Acme Holdings LLC paid.';
    expect(sentenceSpans(t).map(([a, b]) => t.slice(a, b))).toEqual([
      'Dr. Alvarez saw him on May 3.',
      'He left.',
      'Acme Holdings LLC paid.',
    ]);
    expect(namesIn('On May 3, 2021 Jane Roe met Dr. Maria Alvarez and Acme Holdings LLC.')).toEqual([
      'Jane Roe',
      'Dr. Maria Alvarez',
      'Acme Holdings LLC',
    ]);
  });
});

describe('names in events', () => {
  it('an address is not a person', () => {
    expect(
      namesIn('On March 3, 2021 John Roe slipped on the stairs at 12 Elm Street, Suite 4, of Acme Holdings LLC.'),
    ).toEqual(['John Roe', 'Acme Holdings LLC']);
  });
});

describe('parties in events', () => {
  it('a party of the document named in the sentence is among its people, even written in lower case', async () => {
    const doc = loadText(Buffer.from('On May 3, 2021 the goods were delivered by acme supply co. to the warehouse.'));
    const [event] = await extractEvents(doc.text, doc.index, {
      docDate: '',
      parties: ['Acme Supply Co.', 'Beta Logistics LLC'],
    });
    expect(event!.people).toEqual(['Acme Supply Co.']);
  });
});
