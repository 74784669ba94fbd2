/**
 * A citation in a document whose units are not pages says where it is in them: a spreadsheet's
 * sheet and row, an email's header or body — in search results, in the answer's text and on the
 * checked citation.
 */
import { describe, expect, it } from 'vitest';
import { citationPlace } from '../../src/shared/citation-text';
import { ingestedCase } from '../helpers/case';
import { workbook } from '../fixtures/sheets';
import { eml } from '../helpers/mail';

function billing(): Buffer {
  return workbook({
    Damages: [
      ['Item', 'Amount'],
      ['Water damage repairs', 12500],
    ],
    Billing: [
      ['Date', 'Timekeeper', 'Hours', 'Description'],
      ['2023-03-02', 'J. Doe', 1.5, 'Call with client about the lease'],
      ['2023-03-04', 'J. Doe', 3.25, 'Drafted the quindecim demand letter to the landlord'],
      ['2023-03-09', 'R. Roe', 0.5, 'Filed the complaint'],
    ],
  });
}

describe('places in documents of named units', () => {
  it('a spreadsheet hit and its citation say "Sheet Billing, row 3"; an email hit says which part of the email', async () => {
    const { call, caseId } = await ingestedCase('Places', {
      'billing.xlsx': billing(),
      'reply.eml': await eml({
        from: 'a@x.example',
        to: 'b@y.example',
        subject: 'Ostrakon repairs',
        date: new Date('2023-03-10T08:00:00Z'),
        text: 'The landlord agreed to pay for the repairs by April 1.',
      }),
    });

    const sheetHit = (
      await call('search', { case_id: caseId, query: 'quindecim demand letter', mode: 'keyword', k: 1 })
    ).results[0]!;
    // The passage holds the Damages sheet (too small to be a passage of its own) and the Billing rows.
    expect(sheetHit).toMatchObject({
      file_name: 'billing.xlsx',
      place: 'Sheet Damages, row 2; Sheet Billing, rows 2–4',
    });
    expect(sheetHit.text).toContain(
      'Row 3 — Date: 2023-03-04 · Timekeeper: J. Doe · Hours: 3.25 · Description: Drafted the quindecim demand letter',
    );
    // A short email is one passage: its header and its body.
    const mail = (await call('search', { case_id: caseId, query: 'Ostrakon', mode: 'keyword', k: 1 })).results[0]!;
    expect(mail).toMatchObject({ file_name: 'reply.eml', place: 'Email header; Email body' });

    // Find passages quotes the row and cites it by sheet and row, in the answer and on the citation.
    const r = await call('chat.ask', {
      case_id: caseId,
      question: 'When was the quindecim demand letter drafted?',
      mode: 'extractive',
    });
    expect(r.answer).toMatch(/billing, Sheet Billing, row 3: “Row 3 — Date: 2023-03-04/i);
    const cite = r.citations.find((c) => c.file_name === 'billing.xlsx')!;
    expect(cite).toMatchObject({ place: 'Sheet Billing, row 3', verified: true });
    expect(citationPlace(cite)).toMatch(/, Sheet Billing, row 3$/);
  });
});
