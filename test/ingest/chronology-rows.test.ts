/**
 * Chronology rows a litigator could file (issue 37): relative dates counted only from an anchor the
 * text gives, no rows from signature blocks or form fields, no pleading line numbers inside an
 * event, a short line for each event, the date the sentence's verb is about, and people who are
 * people. Each case is a document a user could drop, read by the real text loader.
 */
import { describe, expect, it } from 'vitest';
import { loadText } from '../../src/core/reader/loaders';
import { extractEvents } from '../../src/core/text/dates';
import { eventLine } from '../../src/core/text/event-lines';
import { addTo } from '../../src/core/text/relative-dates';

const eventsOf = async (text: string, docDate = '') => {
  const doc = loadText(Buffer.from(text));
  return extractEvents(doc.text, doc.index, { docDate });
};

describe('relative dates', () => {
  it('“30 days after the Effective Date” is counted from the date the agreement defines, and says so', async () => {
    const events = await eventsOf(
      'This Agreement is entered into as of March 1, 2010 (the "Effective Date") by Acme Supply Co. and Beta LLC.\n\n' +
        'Beta shall deliver the first shipment 30 days after the Effective Date.',
    );
    expect(events.map((e) => e.date)).toEqual(['2010-03-01', '2010-03-31']);
    expect(events[1]!.relative).toEqual({
      text: '30 days after the Effective Date',
      anchor: 'the Effective Date',
      anchor_date: '2010-03-01',
      computed: true,
    });
  });

  it('a contract’s schedule counts from its defined date: “within seven (7) days of”, “the third anniversary of”, “the first month after”, each installment of its own', async () => {
    const events = await eventsOf(
      'This Agreement is entered into as of July 31, 2000 (the "Effective Date") by Acme Supply Co. and Beta LLC.\n\n' +
        'Within seven (7) days of the Effective Date, Beta shall make an equity investment of $4,000,000 in Acme. ' +
        'This Agreement will terminate on the third anniversary of the Effective Date. ' +
        'Beginning on the first month after the Effective Date, Beta will provide monthly sales reports. ' +
        'The first payment is due one month subsequent to the Effective Date. ' +
        'Beta will pay a license fee of $230,500 as follows: $115,250.00 Net thirty (30) days from the Effective Date of this Agreement. ' +
        '$115,250.00 Net ninety (90) days from the Effective Date of this Agreement.',
    );
    expect(events.map((e) => [e.date, e.relative?.text ?? null])).toEqual([
      ['2000-07-31', null],
      ['2000-08-07', 'seven (7) days of the Effective Date'],
      ['2003-07-31', 'the third anniversary of the Effective Date'],
      ['2000-08-31', 'the first month after the Effective Date'],
      ['2000-08-31', 'one month subsequent to the Effective Date'],
      ['2000-08-30', 'thirty (30) days from the Effective Date'],
      ['2000-10-29', 'ninety (90) days from the Effective Date'],
    ]);
  });

  it('each day a payment schedule lists is an event: a table row of days and amounts, a list of installment days', async () => {
    const events = await eventsOf(
      'Minimum Quarterly Payment Due Date Payment Payment Due Date Payment\n' +
        '---------------------------------------- ----------------------------------------\n' +
        'October 1, 2000 $62,500 October 1, 2001 $62,500 October 1, 2002 $62,500\n\n' +
        'YEAR 2 $50,710.00 due and payable in four (4) equal quarterly installments of $12,677.50 on: July 1, 2001, ' +
        'October 1, 2001 January 1, 2002 and April 1, 2002.\n\n' +
        // Two days in a sentence that schedules nothing stay one event, of the day its verb is about.
        'The Agreement dated March 1, 1999 was amended on June 5, 2000 and again on July 9, 2001.',
    );
    expect(events.map((e) => e.date)).toEqual([
      '2000-10-01',
      '2001-10-01',
      '2002-10-01',
      '2001-07-01',
      '2001-10-01',
      '2002-01-01',
      '2002-04-01',
      '2000-06-05',
    ]);
  });

  it('a sentence runs on over a page break after "on or before", and past "12:01 a.m."', async () => {
    const events = await eventsOf(
      'Co-Host shall pay a non-refundable initial payment of $2,500,000 payable as follows: $2,000,000 on or before\n\n' +
        'September 30, 1998, and the balance within sixty (60) days of the execution of this Agreement.\n\n' +
        '1.9. "EFFECTIVE DATE" means 12:01 a.m. Eastern Standard Time on March 3, 2003.',
    );
    expect(events.map((e) => [e.date, e.text.slice(0, 24)])).toEqual([
      ['1998-09-30', 'Co-Host shall pay a non-'],
      ['2003-03-03', '"EFFECTIVE DATE" means 1'],
    ]);
  });

  it('a date term defined as "(herein called the "Effective Date") is …" or in capitals counts the schedule', async () => {
    const events = await eventsOf(
      'The Effective Date of this Agreement (herein called the "Effective Date") is September 21, 1998.\n\n' +
        'This Agreement will terminate on the third anniversary of the Effective Date.',
    );
    expect(events.map((e) => [e.date, e.relative?.anchor_date ?? null])).toEqual([
      ['1998-09-21', null],
      ['2001-09-21', '1998-09-21'],
    ]);
    const capitals = await eventsOf(
      '1.9. "EFFECTIVE DATE" means 12:01 a.m. Eastern Standard Time on March 3, 2003.\n\n' +
        'Prior to one year from the Effective Date, a Party may not sell its interest in the Operating Company.',
    );
    expect(capitals.map((e) => [e.date, e.relative?.anchor_date ?? null])).toEqual([
      ['2003-03-03', null],
      ['2004-03-03', '2003-03-03'],
    ]);
  });

  it('a payment on a date term’s own day, the term set as a cover page’s field ("Effective Date: April 17, 2017")', async () => {
    const events = await eventsOf(
      'STRATEGIC ALLIANCE AGREEMENT\nEffective Date: April 17, 2017\n\n' +
        'This Agreement is made as of the date set forth above (the "Effective Date") by Acme Supply Co. and Beta LLC.\n\n' +
        'An upfront payment of $250,000 shall be invoiced by Acme on the Effective Date. ' +
        'Each Party shall keep its records after the Effective Date.',
    );
    const paid = events.find((e) => e.text.startsWith('An upfront payment'));
    expect(paid).toMatchObject({ date: '2017-04-17', relative: { anchor: 'the Effective Date', computed: true } });
    expect(events.some((e) => e.text.startsWith('Each Party shall keep'))).toBe(false);
  });

  it('an agreement "dated as of March 19, 2001 as amended August 5, 2002" is two events: made, and amended', async () => {
    const events = await eventsOf(
      'Notwithstanding the preceding sentence, the terms of the Nondisclosure Agreement dated as of March 19, 2001 as ' +
        'amended August 5, 2002 between the Parties shall remain in effect.',
    );
    expect(events.map((e) => e.date).sort()).toEqual(['2001-03-19', '2002-08-05']);
  });

  it('signers’ fields in capitals above a contract’s opening ("NAME: … DATE: 9/29/04") are no event; the opening is', async () => {
    const events = await eventsOf(
      'NAME: Bruce Chumley NAME: Ron Umagat TITLE: VP Channel Sales TITLE: VP of Operations DATE: 9/29/04 DATE: 9/24/04 ' +
        'This Reseller Agreement (the "Agreement") is entered into by and between McDATA and Reseller as of September 1, 2004.',
    );
    expect(events.map((e) => [e.date, e.text.slice(0, 22)])).toEqual([['2004-09-01', 'This Reseller Agreemen']]);
  });

  it('a bankruptcy form’s footnote on its dollar limits ("Subject to adjustment on 4/01/19 …") is no event', async () => {
    const events = await eventsOf(
      'The debtor filed for bankruptcy on March 2, 2017.\n\n' +
        '* Subject to adjustment on 4/01/19 and every 3 years after that for cases filed on or after the date of adjustment.',
    );
    expect(events.map((e) => e.date)).toEqual(['2017-03-02']);
  });

  it('a running header on each page ("Volk, Frank W. Date of Report 05/13/2019 III.") is one row; "01/01/2018 to" none', async () => {
    const pages = ['III. NON-INVESTMENT INCOME.', 'V. GIFTS.', 'VII. INVESTMENTS.'].map(
      (section) => `Volk, Frank W. Date of Report 05/13/2019 ${section}\n\nNone.`,
    );
    const events = await eventsOf(pages.join('\n\n'));
    expect(events.map((e) => e.date)).toEqual(['2019-05-13']);
    // A reporting period cut from its label ("01/01/2018 to") is no event either.
    expect(await eventsOf('FINANCIAL DISCLOSURE REPORT\n\n01/01/2018 to')).toEqual([]);
  });

  it('a date the contract defines by a count ("“Launch Date” means … no later than 90 days after the Effective Date") is an event', async () => {
    const events = await eventsOf(
      'This Agreement, dated as of January 30, 2000 ("Effective Date"), is made by Acme Supply Co. and Beta LLC.\n\n' +
        '"Launch Date" means the date on which the Parties agree to launch the Store, but in any event no later than 90 days after the Effective Date.\n\n' +
        '"Licensed Works" means the works Beta published during the five (5) years prior to the Effective Date.',
    );
    expect(events.map((e) => e.date)).toEqual(['2000-01-30', '2000-04-29']);
  });

  it('a count from another date the words name, a look-back period or a choice of anniversaries is no event', async () => {
    const events = await eventsOf(
      'This Agreement is entered into as of July 31, 2000 (the "Effective Date") by Acme Supply Co. and Beta LLC.\n\n' +
        'Acme will pay, within thirty (30) days after the effective date of termination, all amounts owing to Beta. ' +
        'Licensed Copyrights are those used by Acme during the five (5) years prior to the Effective Date. ' +
        'Beta may terminate this Agreement with effect from the 3rd, 4th or 5th anniversary of the Effective Date by giving six months notice. ' +
        'The parties shall meet 30 days of the Effective Date.',
    );
    expect(events.map((e) => e.date)).toEqual(['2000-07-31']);
  });

  it('“30 days from the date hereof”, “after the execution of this Agreement” count from the date the contract opens with; another agreement’s execution, or an “as of” date’s signing, does not', async () => {
    const events = await eventsOf(
      'THIS ENDORSEMENT AGREEMENT (this "Agreement"), made and entered into this 31st day of May, 1999, by and between Famous Fixins, Inc. and Pey Dirt (the "Endorser").\n\n' +
        'Within thirty (30) days from the date hereof, the Company will submit to Pey Dirt a fully paid policy of insurance.\n\n' +
        'Pey Dirt shall deliver the artwork within 2 weeks following execution of this Agreement.\n\n' +
        'The term of this Agreement is twelve (12) months from the date hereof.\n\n' +
        'Each summary shall be provided within thirty (30) days after execution, modification or termination of the summarized agreement.\n\n' +
        'You must find a suitable site within 90 days of signing the Franchise Agreement.',
    );
    expect(events.map((e) => [e.date, e.relative?.anchor])).toEqual([
      ['1999-05-31', undefined],
      ['1999-06-30', 'the date of this agreement'],
      ['1999-06-14', 'the signing of this agreement'],
      ['2000-05-31', 'the date of this agreement'],
    ]);
    // "As of" is a date the parties deem: the day they signed is not said, so a count from it has no date.
    const asOf = await eventsOf(
      'This Agreement is entered into as of September 21, 1998 by Beyond.com Corporation and Network Associates (the "Parties").\n\n' +
        'Network Associates shall pay the balance within sixty (60) days of the execution of this Agreement.\n\n' +
        'Beyond.com shall deliver its plan within thirty (30) days from the date hereof.',
    );
    expect(asOf.map((e) => e.date)).toEqual(['1998-09-21', '1998-10-21']);
  });

  it('with no dated opening, “after the signing” counts from the last day a signer wrote; signers months apart give none', async () => {
    const contract = (dates: [string, string]) =>
      'CONTENT LICENSING AGREEMENT between Data Call Technologies, Inc. and Plan B Media AG.\n\n' +
      'Licensor shall make a first delivery of Content within 14 days after the signing of this Agreement.\n\n' +
      `${dates[0]}\n______________________________\nDate\n\n${dates[1]}\n_____________________________\nDate\n\n/s/ Heim Brecht`;
    const agreed = await eventsOf(contract(['03/24/06', '03/24/06']));
    expect(agreed.map((e) => [e.date, e.relative?.anchor])).toEqual([['2006-04-07', 'the signing of this agreement']]);
    // The agreement is signed when its last signer signs; an EDGAR footer's date is no signer's.
    const later = await eventsOf(
      `Source: DATA CALL TECHNOLOGIES, SB-2/A, 9/18/2006\n\n${contract(['03/24/06', '03/23/06'])}`,
    );
    expect(later.filter((e) => e.text.startsWith('Licensor')).map((e) => e.date)).toEqual(['2006-04-07']);
    expect(await eventsOf(contract(['03/24/06', '09/02/06']))).toEqual([]);
    // Two signers side by side: their dates share a line, as do their rules and captions.
    const sideBySide = await eventsOf(
      'Licensor shall make a first delivery of Content within 14 days after the signing of this Agreement.\n\n' +
        '03/24/06 03/24/06\n______________________________ _____________________________\nDate Date\n/s/ Heim Brecht /s/ Stefan Meyes',
    );
    expect(sideBySide.map((e) => e.date)).toEqual(['2006-04-07']);
  });

  it('a term defined after “this 31 day of July, 2000” counts a price list’s “Net thirty (30) days from the Effective Date”', async () => {
    const events = await eventsOf(
      'This ASP and Outsourcing Agreement ("Agreement") is entered into as of this\n31 day of July, 2000 ("Effective Date") by and between E.piphany, Inc. and High Speed Net Solutions, Inc.\n\n' +
        '$ 115,250.00\n\nNet thirty (30) days from the Effective Date\nof this Agreement.',
    );
    expect(events.map((e) => [e.date, e.relative?.anchor_date ?? null])).toEqual([
      ['2000-07-31', null],
      ['2000-08-30', '2000-07-31'],
    ]);
  });

  it('“within fourteen (14) days of the date of this letter” is counted from the letter’s own date', async () => {
    const events = await eventsOf(
      'March 12, 2019\n\nDear Counsel:\n\nThe Concise Summary of the Case is due within fourteen (14) days of the date of this letter. ' +
        'A reply is due within 10 business days of the date of this letter.',
      '2019-03-12',
    );
    expect(events.map((e) => e.date)).toEqual(['2019-03-12', '2019-03-26']);
    expect(events[1]!.relative).toEqual({
      text: 'fourteen (14) days of the date of this letter',
      anchor: 'the date of this letter',
      anchor_date: '2019-03-12',
      computed: true,
    });
  });

  it('a notice’s “docketed today” is its own date; a judgment’s deadlines count from the judgment the letter dates', async () => {
    const notice = await eventsOf(
      'Date: October 31, 2017\nDocket #: 17-3510\nShort Title: NFL v. NFLPA\nDOCKETING NOTICE\n' +
        'A notice of appeal filed by the NFLPA in the above referenced\ncase was docketed today as 17-3510.',
      '2017-10-31',
    );
    expect(notice.map((e) => [e.date, e.line])).toEqual([
      [
        '2017-10-31',
        'A notice of appeal filed by the NFLPA in the above referenced case was docketed today as 17-3510.',
      ],
    ]);
    const judgment = await eventsOf(
      'Today, August 17, 2022 the Court entered its judgment in the above-captioned matter.\n\n' +
        'Time for Filing:\n14 days after entry of judgment.\n\n' +
        'A party may show cause in writing within 20 days of the date of this order.',
      '2022-08-17',
    );
    expect(judgment.map((e) => [e.date, e.relative?.anchor ?? null])).toEqual([
      ['2022-08-17', null],
      ['2022-08-31', 'the entry of judgment'],
      ['2022-09-06', 'the date of this order'],
    ]);
  });

  it('a count written in words is counted too: “forty five (45) days”, “sixteen days”', async () => {
    const events = await eventsOf(
      'This Agreement is entered into as of March 1, 2010 (the "Effective Date") by Acme Supply Co. and Beta LLC.\n\n' +
        'Beta shall deliver the first shipment forty five (45) days after the Effective Date. ' +
        'Acme shall pay the first invoice sixteen days after the Effective Date.',
    );
    expect(events.map((e) => e.date)).toEqual(['2010-03-01', '2010-04-15', '2010-03-17']);
  });

  it('a day with no year takes the year of the event just before it (“of that year”, or a later day unsaid); an earlier day unsaid, or a recurring one, is no event', async () => {
    const events = await eventsOf(
      'Gildernew applied for naturalization on April 3, 2002. On December 10 of that year, he appeared for the exam. ' +
        'On March 3 he was told he had failed. On December 20 the agency wrote to him.\n\n' +
        'The Company was formed on June 1, 2015. Its fiscal year ends on December 31 of each year.',
    );
    expect(events.map((e) => e.date)).toEqual(['2002-04-03', '2002-12-10', '2002-12-20', '2015-06-01']);
    expect(events[1]!.relative).toMatchObject({
      text: 'December 10 of that year',
      anchor_date: '2002-04-03',
      computed: true,
    });
  });

  it('“On the same day” is the day of the event before; a day with no year a few sentences on still takes its year', async () => {
    const events = await eventsOf(
      'On February 1, 2008, the Weintraubs applied for a loan with Quicken Loans. On the same day, Quicken Loans sent them a Good Faith Estimate. ' +
        'The estimate assumed a rate of 5.75%. It assumed a house value of $340,000. The rate was not locked. The deposit was $500. ' +
        'On February 18, Quicken Loans provided the closing documents.',
    );
    expect(events.map((e) => [e.date, e.relative?.computed ?? null])).toEqual([
      ['2008-02-01', null],
      ['2008-02-01', true],
      ['2008-02-18', true],
    ]);
    expect(events[1]!.relative?.anchor).toBe('February 1, 2008');
  });

  it('“that same month”, “the following year” are the month or year of the event before; after a bare year, a month is unknown', async () => {
    const events = await eventsOf(
      'On March 3, 2019, Acme fired Smith. That same month, the parties met. Later that year, Smith sued. ' +
        'The following month, Acme posted the job. In December 2019, the court dismissed the case. The following year, Smith appealed.',
    );
    expect(events.map((e) => [e.date, e.precision, e.relative?.computed ?? null])).toEqual([
      ['2019-03-03', 'day', null],
      ['2019-03-01', 'month', true],
      ['2019-01-01', 'year', true],
      ['2019-12-01', 'month', null],
      ['2020-01-01', 'year', true],
    ]);
  });

  it('a year said as a season or a part of it is the year: “mid-2017”, “the summer of 2016”, “the end of 2019”', async () => {
    const events = await eventsOf(
      'In mid-2017, the company changed hands.\n\nIn the summer of 2016, Jones met Smith.\n\nAt the end of 2019, the plant reopened.',
    );
    expect(events.map((e) => [e.date, e.precision])).toEqual([
      ['2017-01-01', 'year'],
      ['2016-01-01', 'year'],
      ['2019-01-01', 'year'],
    ]);
  });

  it('a quarter of a year is its three months: “during the fourth quarter of 1998”, “Q3 2021”; a fiscal or recurring quarter is not', async () => {
    const events = await eventsOf(
      'NAI will make five e-mail promotions during the fourth quarter of 1998.\n\nSales fell in Q3 2021.\n\n' +
        'Revenue for the fourth quarter of fiscal 1998 fell.\n\nEach quarter of 2001 Acme shall report its sales.',
    );
    expect(events.map((e) => [e.date, e.date_end, e.precision])).toEqual([
      ['1998-10-01', '1998-12-01', 'month'],
      ['2021-07-01', '2021-09-01', 'month'],
    ]);
  });

  it('a day with no year a few weeks before the event just told is in its year; months before, it has none', async () => {
    const events = await eventsOf(
      'The notice read: "You may cancel until midnight of the date of the transaction, which is February 26, 2008." ' +
        'On February 20 they advised Quicken Loans of their decision. On June 3 they sued.',
    );
    expect(events.map((e) => [e.date, e.relative?.computed ?? null])).toEqual([
      ['2008-02-26', null],
      ['2008-02-20', true],
      ['2008-06-03', true],
    ]);
    const far = await eventsOf('The Board met on December 10, 2018. On March 3 the agency wrote to him.');
    expect(far.map((e) => e.date)).toEqual(['2018-12-10']);
  });

  it('a timing term with no anchor the text dates is no event; nor is a count of business days', async () => {
    const events = await eventsOf(
      'The lease was signed on June 1, 2017.\n\nThe tenant shall give notice 30 days before the lapse of the term. ' +
        'The landlord shall repair the roof within 30 days after notice. Payment is due ten business days after the Closing Date.',
    );
    expect(events.map((e) => e.date)).toEqual(['2017-06-01']);
  });

  it('“Three days later” right after a dated event is counted from it; a vague “less than one month later” has no date of its own; far from any date, neither is listed', async () => {
    const events = await eventsOf(
      'The plaintiff fell on May 3, 2021. Three days later he saw Dr. Alvarez. ' +
        'Less than one month later, the insurer denied the claim.\n\n' +
        'He had worked there for years. The work was heavy. The site was large. The crew was small. ' +
        'Two weeks later the foreman resigned.',
    );
    expect(events.map((e) => [e.date, e.relative?.computed ?? null])).toEqual([
      ['2021-05-03', null],
      ['2021-05-06', true],
      ['2021-05-06', false],
    ]);
    expect(events[2]!.relative).toMatchObject({ text: 'Less than one month later', anchor: 'Three days later' });
  });

  it('a month after 31 January is the last day of February; a year back from 29 February is 28 February', () => {
    expect(addTo('2021-01-31', 1, 'month')).toBe('2021-02-28');
    expect(addTo('2020-02-29', -1, 'years')).toBe('2019-02-28');
    expect(addTo('2020-12-30', 2, 'weeks')).toBe('2021-01-13');
  });
});

describe('sentences', () => {
  it('a paragraph that ends with "Inc." or "Co." ends its sentence: each paragraph’s event is a row of its own', async () => {
    const events = await eventsOf(
      'The lease was signed on January 5, 2020 by the tenant, Acme Holdings, Inc.\n\n' +
        'On March 3, 2021 the landlord served a notice to quit on Acme Holdings Co.\n\n' +
        'Acme moved out on April 30, 2021.',
    );
    expect(events.map((e) => [e.date, e.text])).toEqual([
      ['2020-01-05', 'The lease was signed on January 5, 2020 by the tenant, Acme Holdings, Inc.'],
      ['2021-03-03', 'On March 3, 2021 the landlord served a notice to quit on Acme Holdings Co.'],
      ['2021-04-30', 'Acme moved out on April 30, 2021.'],
    ]);
  });
});

describe('rows that are not facts', () => {
  it('signature blocks and a form’s status fields are not events; a dated form field is, and a cover sheet’s effective date', async () => {
    const events = await eventsOf(
      'By: /s/ Jane Roe Name: Jane Roe Title: President Date: 3/27/2020\n\n' +
        '03/24/06 03/24/06 ____________ ____________ Date Date\n\n' +
        'Inactive: FORMDROPDOWN Active: FORMDROPDOWN 20011206 - 20061004\n\n' +
        'Date of Discharge: FORMTEXT 20070817 Highest Rank: Sgt\n\n' +
        'Agreement Number: CW251207 Effective Date: 11/4/10 Company Name: Cardlytics, Inc. Company Address: 621 North Avenue NE',
    );
    expect(events.map((e) => [e.date, e.text])).toEqual([
      ['2007-08-17', 'Date of Discharge: FORMTEXT 20070817 Highest Rank: Sgt'],
      ['2010-11-04', 'Effective Date: 11/4/10'],
    ]);
  });

  it('a signature block gives no row: a brief’s “Dated:” line, “s/ Jane Roe”, “Date / Signature of Counsel”, bare dates, dates under an exhibit’s stamp; nor a Federal Register cite', async () => {
    const events = await eventsOf(
      'The motion should be granted.\n\nDated: August 5, 2020\n\n/s/ Jane Roe\nAttorney for Defendants\n\n' +
        'August 5, 2020        Respectfully submitted,\n        s/ Jane Roe\n\n' +
        '3/18/2014          Jane Roe\nDate               Signature of Counsel\n\n' +
        '1/30/2000 1/30/2000\n\n' +
        '03/23/2019\n03/23/2019\n03/23/2019 03/23/2019\n03/23/2019\nPage 242\nEXHIBIT 57\n\n' +
        'Under Release No. 33-8518, 70 Fed. Reg. 1,506, 1,531 (Jan. 7, 2005), the filing is due.\n\n' +
        'On March 3, 2019, Acme filed its reply.',
    );
    expect(events.map((e) => [e.date, e.text])).toEqual([['2019-03-03', 'On March 3, 2019, Acme filed its reply.']]);
  });

  it('the signed date under a court’s sign-off is the order’s event; a contract’s signature date is not', async () => {
    const judgment = await eventsOf(
      'JUDGMENT\n\nTHIS CAUSE having been heard and considered, it is\nORDERED and ADJUDGED:\nAFFIRMED\n\n' +
        'ENTERED BY ORDER OF THE COURT\n\nFebruary 10, 2010\t/s/ Jan Horbaly\nDate\tJan Horbaly\nClerk',
    );
    expect(judgment.map((e) => [e.date, e.line])).toEqual([['2010-02-10', 'Entered by order of the court']]);
    const contract = await eventsOf(
      'IN WITNESS WHEREOF, the parties have signed this Agreement.\n\nFebruary 10, 2010 /s/ Jan Horbaly\nDate Jan Horbaly',
    );
    expect(contract).toEqual([]);
    // The date line under a signer's fields ("By: /s/ … Name: … Title: … Date: 9/21/98"), its rules lost.
    const fields = await eventsOf(
      'The Effective Date of this Agreement is September 21, 1998.\n\nNETWORK ASSOCIATES, INC.\n' +
        'By: /s/ JAMES R. LUSSIOR\n-------------------------------------\nName: James R. Lussior\n' +
        '-------------------------------------\nTitle: Vice President\n-------------------------------------\n' +
        'Date: 9/21/98\n-------------------------------------\n',
    );
    expect(fields.map((e) => e.text)).toEqual(['The Effective Date of this Agreement is September 21, 1998.']);
  });

  it('a dotted section number (before a heading or a redaction), a defined term’s period and the dates under nameless signatures are not events', async () => {
    const events = await eventsOf(
      'This Agreement is dated as of December 31, 2018 (the “Effective Date”).\n\n' +
        '13.8.11 Survival FMI’s obligations to maintain privacy survive. Article 13.8.12 shall survive as well.\n\n' +
        '10.2.13 [***] as of the Effective Date, neither the Development nor the Manufacture of Antibody infringes.\n\n' +
        '(i) “Licensed Copyrights” means all Copyrights owned by Seller within five (5) years prior to the Effective Date.\n\n' +
        'Michael Bentley Michael Schuett December 8, 2005 December 7, 2005\n\n' +
        '10.Jan.2017 [Signature page to Outsourcing Agreement]\n\n' +
        'On 13.8.11 the parties met in Basel. Buyer shall pay the deposit 30 days after the Effective Date.',
    );
    expect(events.map((e) => e.date)).toEqual(['2018-12-31', '2011-08-13', '2019-01-30']);
  });

  it('a year in a court’s or a party’s reasoning is not an event; a year in the facts is, and a day in reasoning is', async () => {
    const events = await eventsOf(
      'In 2011 Kilgore LLC borrowed $550,000 from the bank. ' +
        'The Commissioner disagrees, arguing that Mr. Bordelon’s basis did not increase in 2011. ' +
        'Therefore, we find that Mr. Bordelon was at risk in 2011 for the Kilgore Loan. ' +
        'We find that Mr. Bordelon signed the guarantee on February 18, 2011.',
    );
    expect(events.map((e) => [e.date, e.precision])).toEqual([
      ['2011-01-01', 'year'],
      ['2011-02-18', 'day'],
    ]);
  });

  it('a representation’s look-back, a section range and a session law’s date are not events; a narrative’s “since” is', async () => {
    const events = await eventsOf(
      'Since December 31, 2018, neither the Company nor any of its Subsidiaries has received any notice of a violation. ' +
        'The Company has filed all reports with the SEC on or after January 1, 2017, in all material respects. ' +
        'The rights survive as set out in Sections 15.4-15.6 of this Agreement. ' +
        'Act of June 6, 2006, N.C. Sess. Laws 2006-6. ' +
        'The Disclosee complies with the Belgian Law of 2 August 2002 on the supervision of the financial sector. ' +
        'The General Assembly passed the Act on June 6, 2006. ' +
        'Since March 3, 2015, Smith has worked at the plant.',
    );
    expect(events.map((e) => [e.date, e.line])).toEqual([
      ['2006-06-06', 'The General Assembly passed the Act on June 6, 2006.'],
      ['2015-03-03', 'Since March 3, 2015, Smith has worked at the plant.'],
    ]);
  });

  it('the line numbers of pleading paper are not inside an event', async () => {
    const numbered = [
      'IN THE UNITED STATES DISTRICT COURT',
      '',
      'Jane Roe, Plaintiff, v. Acme Supply Co., Defendant.',
      '',
      'MEMORANDUM AND ORDER',
      '',
      'Background',
      'On February 13, 2002, Plaintiff applied to the New York',
      'District office for a transfer.',
      'The office refused her application.',
    ].map((line, i) => `${i + 1} ${line}`.trimEnd());
    const [event] = await eventsOf(numbered.join('\n'));
    expect(event!.date).toBe('2002-02-13');
    expect(event!.line).toBe('Plaintiff applied to the New York District office for a transfer.');
    expect(event!.text).not.toMatch(/\b(?:8|9)\b/);
  });
});

it('a ruled line (an old filing’s page break) is not part of the event after it', async () => {
  const [event] = await eventsOf(
    'The Company shall pay the royalty quarterly.\n- -------------------\n' +
      'On June 1, 1994, Nantz Communications received notice of the merger.',
  );
  expect(event!.date).toBe('1994-06-01');
  expect(event!.text).toMatch(/^On June 1, 1994, Nantz/);
});

describe('captions and the record', () => {
  it('an opinion’s caption gives the argument and the decision, each its own row cited to its own words', async () => {
    const text =
      '(1:08-cv-00278-CMH-TCB) Argued: October 29, 2009 Decided: February 5, 2010 Before NIEMEYER and DUNCAN, Circuit Judges.';
    const events = await eventsOf(text);
    expect(events.map((e) => [e.date, e.line])).toEqual([
      ['2009-10-29', 'Argued: October 29, 2009'],
      ['2010-02-05', 'Decided: February 5, 2010'],
    ]);
    expect(events.map((e) => text.slice(e.start, e.end))).toEqual([
      'Argued: October 29, 2009',
      'Decided: February 5, 2010',
    ]);
  });

  it('a caption’s dates in a parenthesis among the caption’s lines are found; a docket table gives a row per dated entry', async () => {
    const caption = await eventsOf(
      'UNITED STATES COURT OF APPEALS\nFOR THE SECOND CIRCUIT\nAugust Term, 2009\n(Argued: January 25, 2010 Decided: February 4, 2010)\nDocket No. 08-6301-cv',
    );
    expect(caption.map((e) => e.date)).toEqual(['2010-01-25', '2010-02-04']);
    const docket = await eventsOf(
      'Case Management Orders\n11/16/2016 4016 Amended CMO 1 re Leadership Counsel Appointments\n' +
        '10/30/2015 249 CMO 2 re Setting Deadlines, First Phase of\nDiscovery\n12/01/2015 314 CMO 3 re Non-waiver Order',
    );
    expect(docket.map((e) => [e.date, e.line])).toEqual([
      ['2016-11-16', '11/16/2016 4016 Amended CMO 1 re Leadership Counsel Appointments'],
      ['2015-10-30', '10/30/2015 249 CMO 2 re Setting Deadlines, First Phase of Discovery'],
      ['2015-12-01', '12/01/2015 314 CMO 3 re Non-waiver Order'],
    ]);
    const exhibits = await eventsOf(
      'Ex. No. Notes Description\n8583 G3 Project Status Report April 19, 2006\n8837 Joint Report on Filter Type\n' +
        '9080 10/7/07 Email from Dr. Lehman\n908 Ciavarella Deposition, 03/01/2011 - Exhibit 12',
    );
    expect(exhibits.map((e) => [e.date, e.text])).toEqual([
      ['2006-04-19', '8583 G3 Project Status Report April 19, 2006 8837 Joint Report on Filter Type'],
      ['2007-10-07', '9080 10/7/07 Email from Dr. Lehman'],
      ['2011-03-01', '908 Ciavarella Deposition, 03/01/2011 - Exhibit 12'],
    ]);
  });

  it('“Decided and Filed:” and “Argued and Submitted” are caption dates; a payment schedule gives a row per instalment, not the signatures under it', async () => {
    const caption = await eventsOf(
      'Argued: December 1, 2009\nDecided and Filed: February 5, 2010\nBefore: BATCHELDER, Chief Judge.\n\n' +
        'Argued and Submitted August 7, 2009 Pasadena, California Filed September 4, 2009',
    );
    expect(caption.map((e) => [e.date, e.line])).toEqual([
      ['2009-12-01', 'Argued: December 1, 2009'],
      ['2010-02-05', 'Decided and Filed: February 5, 2010'],
      ['2009-08-07', 'Argued and Submitted August 7, 2009'],
      ['2009-09-04', 'Filed September 4, 2009'],
    ]);
    const schedule = await eventsOf(
      'Payments shall be made according to the following schedule:\nYear 1 - Due: December 31, 2018 - $50,000\n' +
        'Year 2 - Due: December 31, 2019 - $75,000\nRemaining Balance Due: March 30, 2020 - $25,000\n' +
        'Signatures:\nAmerican Diabetes Association Freeze Tag, Inc.\nBy: By:\nName Name\nTitle Title\nDate Date',
    );
    expect(schedule.map((e) => [e.date, e.text])).toEqual([
      ['2018-12-31', 'Year 1 - Due: December 31, 2018 - $50,000'],
      ['2019-12-31', 'Year 2 - Due: December 31, 2019 - $75,000'],
      ['2020-03-30', 'Remaining Balance Due: March 30, 2020 - $25,000'],
    ]);
  });

  it('counsel’s block under a caption, a citation to the record and an e-filing stamp are not events (the decision date heading the block is); a sentence that runs into a stamp ends there', async () => {
    const events = await eventsOf(
      '(Filed:February 5, 2010) Robert G. Rose (Argued) Day Pitney P.O. Box 1945 Morristown, NJ 07962 Counsel for Appellant, International Flavors & Fragrances Inc.\n\n' +
        '(IFF’s Reply Br. in Support of Appeal of August 13, 2008 Order and for Leave to File Am. and Supp.\n\n' +
        'Cross-cl. at 15, Nov. 10, 2008.)\n\n' +
        'Case 10-01234 Doc 35 Filed 03/09/10 Entered 03/09/10 14:22:01 Desc Main Document Page 1 of 5\n\n' +
        'In June 2007, Travelers moved for summary judgment.',
    );
    expect(events.map((e) => [e.date, e.line])).toEqual([
      ['2010-02-05', 'Filed:February 5, 2010'],
      ['2007-06-01', 'Travelers moved for summary judgment.'],
    ]);
    const runInto = await eventsOf(
      'On March 1, 2010 the Court held a hearing on confirmation of the Plan, at which hearing the Court considered\n' +
        'testimony from Allen Henry Choy and other evidence in\nFiled on\n3/9/2010\n' +
        'Case 09-00429 Doc 83 Filed 03/09/10 Entered 03/09/10 09:03:58 Desc Main\nDocument Page 1 of 4',
    );
    expect(runInto.map((e) => e.date)).toEqual(['2010-03-01']);
  });
});

describe('event lines', () => {
  it('a recital becomes a short line: no exhibit heading, no parties’ descriptions or defined terms', () => {
    const sentence =
      'EXHIBIT 10.15 CO-BRANDING AGREEMENT This Agreement is made this 21st day of January 2003 by and between ' +
      'Lucent Technologies Inc., a Delaware corporation having a principal place of business at 600 Mountain Avenue, ' +
      'Murray Hill, New Jersey 07974 ("Lucent"), and mPhase Technologies, Inc., a New Jersey corporation having a ' +
      'principal place of business at 587 Connecticut Avenue, Norwalk, Connecticut 06854 ("mPhase").';
    const line = eventLine(sentence, '21st day of January 2003');
    expect(line).toBe(
      'This Agreement is made this 21st day of January 2003 by and between Lucent Technologies Inc., and mPhase Technologies, Inc.',
    );
    expect(line.length).toBeLessThanOrEqual(160);
  });

  it('a long sentence is cut at a clause, never past 160 characters; the date that opens it is left to the date column', () => {
    const sentence = `On March 3, 2021, the board met and ${'considered the proposal from the committee, '.repeat(6)}and voted.`;
    const line = eventLine(sentence, 'March 3, 2021');
    expect(line.startsWith('The board met and considered')).toBe(true);
    expect(line.length).toBeLessThanOrEqual(160);
    expect(line.endsWith('…')).toBe(true);
  });
});

describe('which date, and who', () => {
  it('a termination notice is dated by the termination it gives, not by the agreement it names', async () => {
    const [event] = await eventsOf(
      'Acme Supply Co. hereby gives notice of termination of the Distribution Agreement dated November 30, 2017, effective September 2, 2018.',
    );
    expect(event!.date).toBe('2018-09-02');
  });

  it('a letter that carries the event dates it: “In a letter dated July 25, 2006, Dr. Hackshaw stated …”', async () => {
    const [letter] = await eventsOf(
      'In a letter dated July 25, 2006, Dr. Hackshaw stated: “I have received a functional capacity evaluation from March 15th 2006.”',
    );
    expect(letter!.date).toBe('2006-07-25');
    const [advised] = await eventsOf(
      'In response, by letter dated May 14, 2021, the Government advised defense counsel that, beginning in early November 2019, it had obtained other warrants.',
    );
    expect(advised!.date).toBe('2021-05-14');
  });

  it('clauses and list items with a date of their own are an event each; a range stays one', async () => {
    const text =
      'Appellees shall file opposition to the motion by July 17, 2025, and Appellant shall file a reply by July 22, 2025. ' +
      'The Government seized the iCloud account of Rudolph Giuliani (11/04/19); the e-mail account of Victoria Toensing (12/13/19); and other accounts. ' +
      'The lease ran from January 1, 2019, and ending December 31, 2019.';
    const events = await eventsOf(text);
    expect(events.map((e) => [e.date, text.slice(e.start, e.end)])).toEqual([
      ['2025-07-17', 'Appellees shall file opposition to the motion by July 17, 2025'],
      ['2025-07-22', 'Appellant shall file a reply by July 22, 2025.'],
      ['2019-11-04', 'The Government seized the iCloud account of Rudolph Giuliani (11/04/19)'],
      ['2019-12-13', 'the e-mail account of Victoria Toensing (12/13/19); and other accounts.'],
      ['2019-01-01', 'The lease ran from January 1, 2019, and ending December 31, 2019.'],
    ]);
  });

  it('facts each dated in a parenthesis of their own are an event each, without the words joining them', async () => {
    const text =
      'Whether the statute of limitations began to run on the date Appellees filed a lawsuit against Beavers (December 2, 2015) ' +
      'rather than the date Appellees served the lawsuit on Beavers (December 10, 2015), and granting the motion to dismiss ' +
      'Beavers’ complaint (filed on December 8, 2016) as barred.';
    const events = await eventsOf(text);
    expect(events.map((e) => [e.date, text.slice(e.start, e.end)])).toEqual([
      [
        '2015-12-02',
        'Whether the statute of limitations began to run on the date Appellees filed a lawsuit against Beavers (December 2, 2015)',
      ],
      ['2015-12-10', 'Appellees served the lawsuit on Beavers (December 10, 2015)'],
      ['2016-12-08', 'granting the motion to dismiss Beavers’ complaint (filed on December 8, 2016) as barred.'],
    ]);
  });

  it('the date of an instrument cited as authority is no event; the board’s decision is', async () => {
    const events = await eventsOf(
      'B. Secretary of the Navy Instruction 5420.174D of 22 December 2004, Naval Discharge Review Board Procedures. ' +
        'For claims involving PTSD, the review implemented the guidance set forth in the SECDEF Memorandum of 3 September 2014. ' +
        'A. Paragraph 6210 of the Marine Corps Separation and Retirement Manual, (MCO P1900.16), effective 26 November 2013 until Present. ' +
        'On 30 November 2016 the Board denied relief.',
    );
    expect(events.map((e) => e.date)).toEqual(['2016-11-30']);
  });

  it('an email’s proposal of later dates is an event of the day it was sent, “yesterday” the day before; a deadline it sets or a date it reports is its own', async () => {
    const events = await eventsOf(
      'Counsel,\n\nWe propose February 14 or February 21, 2023 for the deposition of Dr. Xiang, in St. Louis. ' +
        'The hearing was continued to March 3, 2023.',
      '2023-01-20',
    );
    expect(events.map((e) => [e.date, e.relative?.text ?? null])).toEqual([
      ['2023-01-20', 'We propose'],
      ['2023-03-03', null],
    ]);
    const deadline = await eventsOf('We demand payment of the medical bills by November 1, 2021.', '2021-10-04');
    expect(deadline.map((e) => e.date)).toEqual(['2021-11-01']);
    const spoke = await eventsOf('I spoke with Mr. Hale yesterday about the settlement.', '2023-01-20');
    expect(spoke.map((e) => [e.date, e.relative?.anchor])).toEqual([['2023-01-19', 'the date of this document']]);
  });

  it('two dates joined by “and” are two events of the same words; “between … and …” is one', async () => {
    const events = await eventsOf(
      'The Government seized the iPhone of Alexander Levin (02/28/2020 and 3/02/2020). On March 3 and March 5, 2019, the parties met. ' +
        'The parties negotiated between May 1, 2019 and June 1, 2019.',
    );
    expect(events.map((e) => [e.date, e.line])).toEqual([
      ['2020-02-28', 'The Government seized the iPhone of Alexander Levin.'],
      ['2020-03-02', 'The Government seized the iPhone of Alexander Levin.'],
      ['2019-03-03', 'The parties met.'],
      ['2019-03-05', 'The parties met.'],
      ['2019-05-01', 'The parties negotiated between May 1, 2019 and June 1, 2019.'],
    ]);
  });

  it('a sentence a contract repeats word for word is one event', async () => {
    const option = 'Once exercisable, this Option may be exercised at any time until May 30, 2001.';
    const events = await eventsOf(
      `The first Option vests on June 1, 1999. ${option}\n\nThe second Option vests on June 1, 2000. ${option}`,
    );
    expect(events.map((e) => e.date)).toEqual(['1999-06-01', '2001-05-30', '2000-06-01']);
  });

  it('an email is an event of the day it was sent: its first words after the greeting, not its header', async () => {
    const head = (subject: string) =>
      `From: Dana Price <dprice@waternow.example>\nTo: Mark Ellis <mellis@bestev.example>\nDate: 2019-12-02 15:04 UTC\nSubject: ${subject}\n\n`;
    const territory = await eventsOf(
      `${head('Re: territory')}Mark,\n\nFollowing our call, Hydraspin agrees that the territory covers Texas and Oklahoma only. Louisiana stays open.\n\nRegards,\nDana`,
      '2019-12-02',
    );
    expect(territory.map((e) => [e.date, e.line])).toEqual([
      [
        '2019-12-02',
        'Dana Price: Following our call, Hydraspin agrees that the territory covers Texas and Oklahoma only.',
      ],
    ]);
    const demand = await eventsOf(`${head('Demand')}We demand payment of the bills by January 6, 2020.`, '2019-12-02');
    expect(demand.map((e) => e.date)).toEqual(['2020-01-06', '2019-12-02']);
  });

  it('each message quoted in an email thread is an event of the day it was sent, told by its sender', async () => {
    const head =
      'From: Dana Price <dana@hydraspin.example>\nTo: Rex Moore <rex@acme.example>\nDate: 2019-03-13 15:00 UTC\nSubject: Re: Delivery\n\n';
    const reply = await eventsOf(
      `${head}Rex,\n\nThanks.\n\nWe will ship the remaining pumps next week.\n\nDana\n` +
        'On Mon, Mar 11, 2019 at 4:02 PM Rex Moore <rex@acme.example> wrote:\n> Dana,\n>\n> The first delivery arrived damaged on March 8.\n>\n> Rex',
      '2019-03-13',
    );
    expect(reply.map((e) => [e.date, e.line])).toEqual([
      ['2019-03-13', 'Dana Price: We will ship the remaining pumps next week.'],
      ['2019-03-08', 'Rex Moore: The first delivery arrived damaged on March 8.'],
      ['2019-03-11', 'Rex Moore: The first delivery arrived damaged on March 8.'],
    ]);
    const forwarded = await eventsOf(
      `${head}Rex, see below. We dispute this.\n\n-----Original Message-----\nFrom: Rex Moore <rex@acme.example>\n` +
        'Sent: Monday, March 11, 2019 4:02 PM\nTo: Dana Price\nSubject: Delivery\n\nDana,\n\nThe pumps we received leak.\n\nRex',
      '2019-03-13',
    );
    expect(forwarded.map((e) => [e.date, e.line])).toEqual([
      ['2019-03-13', 'Dana Price: Rex, see below.'],
      ['2019-03-11', 'Rex Moore: The pumps we received leak.'],
    ]);
  });

  it('a dated report of a dated fact is two events: the report and the fact', async () => {
    const text =
      'In response, by letter dated May 14, 2021, the Government advised defense counsel that, beginning in early November 2019, it had obtained other search warrants. ' +
      'The Government advised counsel on May 20, 2021 that it would produce the returns.';
    const events = await eventsOf(text);
    expect(events.map((e) => [e.date, e.precision, text.slice(e.start, e.end).slice(0, 40)])).toEqual([
      ['2021-05-14', 'day', 'In response, by letter dated May 14, 202'],
      ['2019-11-01', 'month', 'beginning in early November 2019, it had'],
      ['2021-05-20', 'day', 'The Government advised counsel on May 20'],
    ]);
  });

  it('a transcript’s line numbers and spacing dots are not in its events', async () => {
    const lines = [
      '·1· · · ·IN THE UNITED STATES DISTRICT COURT',
      '·2',
      '·3· ·CRYSTAL LONG,· · · · · ·:',
      '·4· · · · · Plaintiff,· · · ·:',
      '·5· ·v.· · · · · · · · · · · : Civil Action No:',
      '·6· · CONFIDENTIAL DEPOSITION OF CRYSTAL M. LONG',
      '·7· · · · · · ·Monday, February 19, 2018',
    ];
    const [event] = await eventsOf(lines.join('\n'));
    expect(event!.date).toBe('2018-02-19');
    expect(event!.text).not.toMatch(/·|\b[1-7]\b/);
  });

  it('people are people and organisations: not places, not the words a signature block leaves after a name', async () => {
    const [event] = await eventsOf(
      'On June 5, 2019 Scott Grime By signed for Acme Holdings LLC in New York, United States.',
    );
    expect(event!.people).toEqual(['Scott Grime', 'Acme Holdings LLC']);
  });

  it('a town followed by its state, a form’s label, a court’s title and part of a longer name are not people', async () => {
    const [recital] = await eventsOf(
      'On January 21, 2003 Lucent Technologies Inc., of Murray Hill, New Jersey, and Technologies Inc. staff met Circuit Judges.',
    );
    expect(recital!.people).toEqual(['Lucent Technologies Inc']);
    const [form] = await eventsOf('Date of Discharge: 20070817 Highest Rank/Rate: Sgt Jane Roe');
    expect(form!.people).toEqual(['Sgt Jane Roe']);
  });

  it('the terms a contract defines (or their first words), its documents and periods, and titles are not people; a party defined in quotes is', async () => {
    const events = await eventsOf(
      'This Agreement is made as of January 29, 2020 between Cellco Partnership and Tom Online Inc. (“Tom Holding”).\n\n' +
        '“Cap Agreement” means the interest rate cap agreement with the Cap Counterparty (the “Cap Counterparty”).\n\n' +
        'On March 1, 2020 Tom Holding, Jane Roe and the Cap Counterparty signed the Cap Agreement and the Joint Venture Agreement ' +
        'for the first Contract Year, witnessed by the Financial Director Mr Smith of Date Bogota, due by the Final Maturity Date.\n\n' +
        '“Final Maturity Date” means the Payment Date in July, 2024.',
    );
    const signed = events.find((e) => e.text.startsWith('On March 1'))!;
    expect(signed.people).toEqual(['Tom Holding', 'Jane Roe', 'Financial Director Mr Smith']);
    // An opinion's: a pleading, a loan, an address, a caption's docket words.
    const [filed] = await eventsOf(
      'On May 5, 2020 Jane Roe filed Plaintiffs’ First Amended Complaint at Park Plaza, For Federal review, against the Kilgore Loan of Home Federal Bank, Respondent Docket Nos. 19031-13.',
    );
    expect(filed!.people).toEqual(['Jane Roe', 'Home Federal Bank']);
  });
});
