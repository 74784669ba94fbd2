import { describe, expect, it } from 'vitest';
import { DocumentRouter, type RoutableDocument } from '../../src/core/retrieval/routing';

/** A data room as users name it: parties, contract types, file names that carry both (CUAD style) or neither. */
const DOCS: RoutableDocument[] = [
  { file_id: 'zm', file_name: 'ZoundsHearingInc_20190807_10-Q_EX-10.1_Marketing Agreement.pdf', title: 'MARKETING AGREEMENT', parties: ['Zounds Hearing, Inc.', 'Zounds', 'InVivo Therapeutics Corp.'], date: '2019-08-07' },
  { file_id: 'zs', file_name: 'ZoundsHearingInc_20200101_Supply Agreement.pdf', title: 'SUPPLY AGREEMENT', parties: ['Zounds Hearing, Inc.', 'Zounds', 'Acme Components Ltd'], date: '2020-01-01' },
  { file_id: 'ag', file_name: 'AgapeAtpCorp_20191202_10-KA_EX-10.1_Supply Agreement.pdf', title: 'ODM - SUPPLY AGREEMENT', parties: ['ORGANIC PREPARATIONS INC.', 'AGAPE ATP INTERNATIONAL HOLDING LIMITED', 'Manufacturer', 'Customer'], date: '2018-01-15' },
  { file_id: 'mp', file_name: 'MP3COM_INC_Sponsorship Agreement.pdf', title: 'SPONSORSHIP AGREEMENT', parties: ['MP3.com, Inc.', 'Tickets.com, Inc.', 'Sponsor'], date: '1999-12-01' },
  { file_id: 'kb', file_name: 'contract-2.pdf', title: 'REVENUE SHARE AGREEMENT', parties: ['Kubient, Inc.', 'The Associated Press', 'AP'], date: '2020-03-01' },
  ...Array.from({ length: 20 }, (_, i) => ({ file_id: `x${i}`, file_name: `Other${i}Corp_License Agreement.pdf`, title: 'LICENSE AGREEMENT', parties: [`Other${i} Corp`, 'Licensee', 'Licensor'], date: '2015-01-01' })),
];

const router = new DocumentRouter(DOCS);
const focus = (q: string) => router.route(q)?.focus.map((f) => f.file_id) ?? null;

describe('document routing', () => {
  it('a party and a contract type: the named contract first, the same party’s other contract kept', () => {
    expect(focus('Is liability capped in the marketing agreement with Zounds Hearing? What is the cap?')).toEqual(['zm', 'zs']);
  });

  it('a party alone, in the preamble’s words only (not in the file name)', () => {
    expect(focus('How is revenue split between Kubient and the Associated Press?')).toEqual(['kb']);
  });

  it('dotted names, possessives and a one-letter typo still name the document', () => {
    expect(focus("Can Tickets.com assign MP3.com's sponsorship?")).toEqual(['mp']);
    expect(focus('What law governs the Agappe supply deal?')).toEqual(['ag']);
  });

  it('a question that names no document is not focused, even with words every name shares', () => {
    expect(router.route('Which agreements can be terminated for convenience?')).toBeNull();
    expect(router.route('Does the licensee have to pay a minimum royalty under the license agreement?')).toBeNull();
    expect(router.route('What is the governing law?')).toBeNull();
  });

  it('the words that named the documents are taken out of the query searched within them', () => {
    const r = router.route('Is liability capped in the marketing agreement with Zounds Hearing? What is the cap?')!;
    expect(r.matched).toEqual(expect.arrayContaining(['Zounds', 'Hearing', 'marketing']));
    expect(r.clauseQuery).toBe('Is liability capped in the agreement with? What is the cap?');
  });

  it('a case of one document never focuses', () => {
    expect(new DocumentRouter(DOCS.slice(0, 1)).route('the Zounds marketing agreement')).toBeNull();
  });
});
