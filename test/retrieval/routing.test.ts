import { describe, expect, it } from 'vitest';
import { DocumentRouter, type RoutableDocument } from '../../src/core/retrieval/routing';

/** A data room as users name it: parties, contract types, file names that carry both (CUAD style) or neither. */
const DOCS: RoutableDocument[] = [
  {
    file_id: 'zm',
    file_name: 'ZoundsHearingInc_20190807_10-Q_EX-10.1_Marketing Agreement.pdf',
    title: 'MARKETING AGREEMENT',
    parties: ['Zounds Hearing, Inc.', 'Zounds', 'InVivo Therapeutics Corp.'],
    date: '2019-08-07',
  },
  {
    file_id: 'zs',
    file_name: 'ZoundsHearingInc_20200101_Supply Agreement.pdf',
    title: 'SUPPLY AGREEMENT',
    parties: ['Zounds Hearing, Inc.', 'Zounds', 'Acme Components Ltd'],
    date: '2020-01-01',
  },
  {
    file_id: 'ag',
    file_name: 'AgapeAtpCorp_20191202_10-KA_EX-10.1_Supply Agreement.pdf',
    title: 'ODM - SUPPLY AGREEMENT',
    parties: ['ORGANIC PREPARATIONS INC.', 'AGAPE ATP INTERNATIONAL HOLDING LIMITED', 'Manufacturer', 'Customer'],
    date: '2018-01-15',
  },
  {
    file_id: 'mp',
    file_name: 'MP3COM_INC_Sponsorship Agreement.pdf',
    title: 'SPONSORSHIP AGREEMENT',
    parties: ['MP3.com, Inc.', 'Tickets.com, Inc.', 'Sponsor'],
    date: '1999-12-01',
  },
  {
    file_id: 'kb',
    file_name: 'contract-2.pdf',
    title: 'REVENUE SHARE AGREEMENT',
    parties: ['Kubient, Inc.', 'The Associated Press', 'AP'],
    date: '2020-03-01',
  },
  ...Array.from({ length: 20 }, (_, i) => ({
    file_id: `x${i}`,
    file_name: `Other${i}Corp_License Agreement.pdf`,
    title: 'LICENSE AGREEMENT',
    parties: [`Other${i} Corp`, 'Licensee', 'Licensor'],
    date: '2015-01-01',
  })),
];

const router = new DocumentRouter(DOCS);
const focus = async (q: string) => (await router.route(q))?.focus.map((f) => f.file_id) ?? null;

describe('document routing', () => {
  it('a party and a contract type: the named contract first, the same party’s other contract kept', async () => {
    expect(await focus('Is liability capped in the marketing agreement with Zounds Hearing? What is the cap?')).toEqual(
      ['zm', 'zs'],
    );
  });

  it('a party alone, in the preamble’s words only (not in the file name)', async () => {
    expect(await focus('How is revenue split between Kubient and the Associated Press?')).toEqual(['kb']);
  });

  it('dotted names, possessives and a one-letter typo still name the document', async () => {
    expect(await focus("Can Tickets.com assign MP3.com's sponsorship?")).toEqual(['mp']);
    expect(await focus('What law governs the Agappe supply deal?')).toEqual(['ag']);
  });

  it('a question that names no document is not focused, even with words every name shares', async () => {
    expect(await router.route('Which agreements can be terminated for convenience?')).toBeNull();
    expect(
      await router.route('Does the licensee have to pay a minimum royalty under the license agreement?'),
    ).toBeNull();
    expect(await router.route('What is the governing law?')).toBeNull();
  });

  it('the words that named the documents are taken out of the query searched within them', async () => {
    const r = (await router.route(
      'Is liability capped in the marketing agreement with Zounds Hearing? What is the cap?',
    ))!;
    expect(r.matched).toEqual(expect.arrayContaining(['Zounds', 'Hearing', 'marketing']));
    expect(r.clauseQuery).toBe('Is liability capped in the agreement with? What is the cap?');
  });

  it('a word rare among the names but common in the texts does not name a document', async () => {
    // "sponsorship" is in one title; say the case's texts use it in a dozen documents.
    const common = new Set(['sponsorship']);
    const textFrequency = async (term: string, cap: number) => (common.has(term) ? cap + 1 : 1);
    expect(await router.route('Which agreements have sponsorship terms?', { textFrequency })).toBeNull();
    expect((await router.route('Can Tickets.com assign the sponsorship?', { textFrequency }))?.matched).toEqual([
      'Tickets.com',
    ]);
  });

  it('a party’s name the question uses beside the one that named the document is left out of the clause query too', async () => {
    // "Sonova" is in half of the focused documents' passages (a party the names do not carry); "Damages" in few.
    const shareInFocus = async (term: string) => (term === 'Sonova' ? 0.5 : 0.01);
    const r = (await router.route('Can Zounds cap Sonova Damages under the marketing agreement?', { shareInFocus }))!;
    expect(r.matched).not.toContain('Sonova');
    expect(r.clauseQuery).toBe('Can cap Damages under the agreement?');
  });

  it('a name of several common words names its document as a phrase: "Link Plus", "Legacy Education Alliance"', async () => {
    const docs: RoutableDocument[] = [
      ...DOCS,
      {
        file_id: 'lp',
        file_name: 'LinkPlusCorp_20050802_8-K_Affiliate Agreement.pdf',
        title: 'AGREEMENT',
        parties: [],
        date: '',
      },
      {
        file_id: 'le',
        file_name: 'LegacyEducationAllianceInc_Development Agreement.pdf',
        title: '',
        parties: [],
        date: '',
      },
    ];
    // Every word of those names is in the texts of most documents; only the phrase is rare.
    const textFrequency = async (term: string, cap: number) =>
      ['link', 'plus', 'legacy', 'education', 'alliance'].includes(term) ? cap + 1 : 1;
    const r = await new DocumentRouter(docs).route('Is there an audit right under Link Plus?', { textFrequency });
    expect(r?.focus.map((f) => f.file_id)).toEqual(['lp']);
    expect(r?.clauseQuery).toBe('Is there an audit right under?');
    const both = await new DocumentRouter(docs).route(
      'What cover do we need under Legacy Education Alliance and Link Plus?',
      {
        textFrequency,
      },
    );
    expect(both?.focus.map((f) => f.file_id).sort()).toEqual(['le', 'lp']);
  });

  it('a defined term every contract uses is not a name, though one title carries it', async () => {
    const docs: RoutableDocument[] = [
      ...DOCS,
      { file_id: 'ci', file_name: 'nda-7.pdf', title: 'CONFIDENTIAL INFORMATION AGREEMENT', parties: [], date: '' },
      { file_id: 'fn', file_name: 'FNHA-NDA-form.pdf', title: 'NON-DISCLOSURE AGREEMENT', parties: [], date: '' },
    ];
    const textFrequency = async (term: string, cap: number) => (term === 'confidential information' ? cap + 1 : 1);
    const r = await new DocumentRouter(docs).route(
      "Consider FNHA's Non-Disclosure Agreement; may Confidential Information be shared?",
      { textFrequency },
    );
    expect(r?.focus.map((f) => f.file_id)).toEqual(['fn']);
  });

  it('two documents named side by side are both kept, however unevenly named; two parties of one contract are not', async () => {
    // The Zounds marketing agreement weighs two naming words, Agape's one: without "against" only the first is kept.
    expect(await focus('Audit rights: the Zounds marketing deal, Agape.')).toEqual(['zm']);
    expect(await focus('Audit rights: the Zounds marketing deal against Agape.')).toEqual(['zm', 'ag']);
    expect(await focus('Set the Agape liability limits beside those of the Zounds marketing deal.')).toEqual(
      expect.arrayContaining(['ag', 'zm']),
    );
    expect(await focus('When was the agreement between Tickets.com and Kubient signed?')).toHaveLength(1);
  });

  it('a party only the text names (the other side of a filed contract) names the documents whose text holds it', async () => {
    // Texts of the data room: the Kubient agreement's preamble names its AP contact; "Licensee" is everywhere.
    const texts: Record<string, string> = Object.fromEntries(DOCS.map((d) => [d.file_id, 'the Licensee shall pay']));
    texts.kb = 'Revenue share between Kubient, Inc. and The Associated Press; notices to Ken Turpin.';
    texts.zs = 'Acme Components Ltd supplies Zounds; Bank of America holds the escrow.';
    const documentsWith = async (term: string, cap: number) => {
      const words = term.toLowerCase().split(/\s+/);
      const ids = Object.keys(texts).filter((id) => words.every((w) => texts[id]!.toLowerCase().includes(w)));
      return ids.length > cap ? null : ids;
    };
    const routed = await router.route('How long does our agreement with Ken Turpin last?', { documentsWith });
    expect(routed?.focus.map((f) => f.file_id)).toEqual(['kb']);
    expect(routed?.clauseQuery).toBe('How long does our agreement with last?');
    expect(
      (await router.route('Who holds the escrow, Bank of America?', { documentsWith }))?.focus.map((f) => f.file_id),
    ).toEqual(['zs']);
    // Capitalised words every text holds, or the word that opens the question, name nothing.
    expect(await router.route('Can the Licensee end it?', { documentsWith })).toBeNull();
  });

  it('a case of one document never focuses', async () => {
    expect(await new DocumentRouter(DOCS.slice(0, 1)).route('the Zounds marketing agreement')).toBeNull();
  });
});
