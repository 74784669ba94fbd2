import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { splitStructured, TINY_SECTION } from '../../src/core/text/chunker';
import { loadText } from '../../src/core/reader/loaders';
import { parseFile } from '../../src/core/reader/parse';
import { documentTitle, findDefinedTerms, findParties } from '../../src/core/text/profile';
import { chunkDocument, structureOf, topLevelBoundaries } from '../../src/core/text/structure';
import { readableFileName } from '../../src/core/util/names';
import { corpusDir } from '../helpers/home';

const sentence = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `The ${topic} provision ${i} applies to both parties in good faith.`).join(' ');

/** A contract with a title, a preamble naming its parties, and numbered sections of very different lengths. */
const CONTRACT = [
  'MARKETING AGREEMENT',
  '',
  'This Marketing Agreement (the "Agreement") is made on March 1, 2019 by and between Zounds Hearing, Inc., a Delaware corporation ("Zounds"), and InVivo Therapeutics Corp. (the "Distributor").',
  '',
  '1. Definitions',
  sentence('definitions', 30),
  '',
  '2. Term',
  'Two years.',
  '',
  '3. Limitation of Liability',
  sentence('liability', 6),
  '',
  '3.1 Cap on Damages',
  'Neither party shall be liable for more than the fees paid in the twelve months before the claim.',
  '',
  '4. Governing Law',
  sentence('law', 4),
].join('\n');

describe('chunks that follow the structure', () => {
  const doc = loadText(new TextEncoder().encode(CONTRACT));
  const structure = structureOf(doc.text, doc.index, 'contracts/ZoundsHearingInc_20190301_Marketing Agreement.txt');
  const chunks = chunkDocument(
    doc,
    { fileId: 'f1', name: 'contracts/Zounds.txt', version: 1, isLatest: true, docType: 'contract', docDate: '' },
    undefined,
    structure,
  );
  const sectionOf = (offset: number) =>
    [...structure.sections].filter((s) => s.level <= 2 && s.kind !== 'title' && s.start <= offset).pop()?.number ??
    'preamble';

  it('no chunk straddles two top-level sections, and each is exactly the document’s words at its offsets', () => {
    for (const c of chunks) {
      expect(c.text).toBe(doc.text.slice(c.start, c.end));
      // Section 2 ("Two years.") is tiny: it joins section 3 instead of being a chunk of its own.
      const first = sectionOf(c.start);
      const last = sectionOf(c.end - 1);
      if (first !== last) expect(first === '2' && ['3', '3.1'].includes(last), `${first} → ${last}`).toBe(true);
    }
    // The long definitions section is split; the liability section's chunk starts at its heading.
    expect(chunks.filter((c) => sectionOf(c.start) === '1').length).toBeGreaterThan(1);
    expect(chunks.some((c) => c.text.startsWith('2. Term\nTwo years.\n\n3. Limitation of Liability'))).toBe(true);
  });

  it('each chunk carries the title and its section path as context; headings inside it are named too', () => {
    const cap = chunks.find((c) => c.text.includes('fees paid in the twelve months'))!;
    expect(cap.context).toMatch(/^MARKETING AGREEMENT › /);
    expect(cap.context).toMatch(/3 Limitation of Liability|3\.1 Cap on Damages/);
    const law = chunks.find((c) => c.text.includes('law provision 3'))!;
    expect(law.context).toBe('MARKETING AGREEMENT › 4 Governing Law');
    const definitions = chunks.filter((c) => c.text.includes('definitions provision'));
    for (const c of definitions.slice(1)) expect(c.context).toBe('MARKETING AGREEMENT › 1 Definitions');
  });

  it('the profile names the parties from the preamble; the title adds the two by their short names, the short name is the title alone', () => {
    expect(structure.profile.title).toBe('MARKETING AGREEMENT — Zounds / InVivo Therapeutics');
    expect(structure.profile.short_name).toBe('MARKETING AGREEMENT');
    expect(structure.profile.parties).toEqual(['Zounds Hearing, Inc.', 'InVivo Therapeutics Corp.', 'Zounds']);
  });

  it('a document without headings: plain recursive chunks, context is the file name made readable', () => {
    const plain = loadText(new TextEncoder().encode(sentence('plain', 80)));
    const out = chunkDocument(plain, {
      fileId: 'f2',
      name: 'mail/re_SmithJones_settlement-offer.txt',
      version: 1,
      isLatest: true,
      docType: 'other',
      docDate: '',
    });
    expect(out.length).toBeGreaterThan(1);
    for (const c of out) expect(c.context).toBe('re Smith Jones settlement-offer');
  });

  it('tiny regions join the next; the text is covered in order', () => {
    const text = `A heading\n${'x '.repeat(50)}\nB\n${'y '.repeat(400)}\nC\n${'z '.repeat(30)}`;
    const cuts = [text.indexOf('B\n'), text.indexOf('C\n')];
    const spans = splitStructured(
      text,
      cuts.map((offset) => ({ offset, level: 1 })),
      { size: 1000, overlap: 0 },
    );
    // The region before B is shorter than TINY_SECTION, so it joins B's; the short tail (C) joins the region before it.
    expect(cuts[0]).toBeLessThan(TINY_SECTION);
    expect(spans[0]!.start).toBe(0);
    expect(spans.some((s) => s.start === cuts[1])).toBe(false);
    expect(spans.at(-1)!.end).toBe(text.trimEnd().length);
  });
});

describe('document profile', () => {
  it('file names made readable', () => {
    expect(
      readableFileName('Part_I/Supply/AgapeAtpCorp_20191202_10-KA_EX-10.1_11911128_EX-10.1_Supply Agreement.pdf'),
    ).toBe('Agape Atp Corp 20191202 10-KA EX-10.1 11911128 EX-10.1 Supply Agreement');
    expect(readableFileName('deposition of J. Smith.docx')).toBe('deposition of J. Smith');
  });

  it('parties: company names and the short names they are defined by', () => {
    const p = findParties(
      'THIS DISTRIBUTOR AGREEMENT is entered into between Agape ATP Corporation, a Malaysian company (hereinafter referred to as "Agape"), and Tom Brown Trading Company (the "Distributor") and Associated Press Holding Ltd ("APH").',
    );
    // Roles ("the Distributor") are not parties; a short name is kept when it is part of a company's name or its initials.
    expect(p).toEqual([
      'Agape ATP Corporation',
      'Tom Brown Trading Company',
      'Associated Press Holding Ltd',
      'Agape',
      'APH',
    ]);
  });

  it('parties: a name spelt with a small letter first is whole; a title with "Co-" is no company', () => {
    // The preambles of two CUAD co-branding agreements, as the reader gives them.
    expect(
      findParties(
        'EXHIBIT 10.15 CO-BRANDING AGREEMENT This Agreement is made this 21st day of January 2003 by and between Lucent Technologies Inc., a Delaware corporation having a principal place of business at 600 Mountain Avenue ("Lucent") and mPhase Technologies Inc., a New Jersey corporation located at 587 Connecticut Avenue, Norwalk ("mPhase").',
      ),
    ).toEqual(['Lucent Technologies Inc.', 'mPhase Technologies Inc.', 'Lucent', 'mPhase']);
    expect(
      findParties(
        'CO-BRANDING AGREEMENT This Co-Branding Agreement is entered into as of March 1, 2000 by and between iVillage, Inc. ("iVillage") and PlanetCAD Inc. ("PlanetCAD").',
      ),
    ).toEqual(['iVillage, Inc.', 'PlanetCAD Inc.', 'iVillage', 'PlanetCAD']);
  });

  it('title: the outline’s, else the file name', () => {
    expect(documentTitle([], 'x/Lease_123MainSt.pdf')).toBe('Lease 123Main St');
  });

  it('a real contract (CUAD PDF): title and parties from its first page', async () => {
    const file = path.join(
      corpusDir,
      'cuad/full_contract_pdf/Part_I/Supply/AgapeAtpCorp_20191202_10-KA_EX-10.1_11911128_EX-10.1_Supply Agreement.pdf',
    );
    const parsed = await parseFile({
      bytes: new Uint8Array(readFileSync(file)),
      name: path.basename(file),
      maxBytes: 100 << 20,
    });
    const { profile, sections } = structureOf(parsed.doc!.text, parsed.doc!.index, path.basename(file));
    expect(profile.parties.join(' | ')).toMatch(/Agape/i);
    expect(profile.title.length).toBeGreaterThan(3);
    expect(topLevelBoundaries(sections).length).toBeGreaterThan(3);
  });
});

describe('document title', () => {
  const h = (title: string, start: number, kind: 'title' | 'other' = 'title') => ({
    id: 's',
    level: 1,
    number: '',
    title,
    kind,
    start,
    end: start + 20,
    page: 1,
    headingEnd: start + 20,
  });
  it('an exhibit number or a table of contents above the real title is passed over', () => {
    expect(documentTitle([h('EXHIBIT 10.14', 2), h('OUTSOURCING AGREEMENT', 16, 'other')], 'x.pdf')).toBe(
      'OUTSOURCING AGREEMENT',
    );
    expect(
      documentTitle(
        [h('TABLE OF CONTENTS', 0), h('Execution Copy', 30, 'other'), h('MASTER SUPPLY AGREEMENT', 60, 'other')],
        'x.pdf',
      ),
    ).toBe('MASTER SUPPLY AGREEMENT');
    expect(documentTitle([h('EXHIBIT 10.1', 0)], 'Acme_Lease.pdf')).toBe('Acme Lease');
    // The SEC filing's redaction notice above the title is not one.
    expect(
      documentTitle(
        [
          h('CONFIDENTIAL TREATMENT HAS BEEN REQUESTED FOR CERTAIN REDACTED PROVISIONS OF', 0),
          h('SPONSORSHIP AGREEMENT', 200, 'other'),
        ],
        'x.pdf',
      ),
    ).toBe('SPONSORSHIP AGREEMENT');
    expect(
      documentTitle(
        [
          h(
            '[***] Certain confidential information contained in this document, marked by brackets, has been omitted',
            0,
          ),
          h('SUPPLY AGREEMENT', 150, 'other'),
        ],
        'x.pdf',
      ),
    ).toBe('SUPPLY AGREEMENT');
  });
});

describe('defined terms', () => {
  it('“X” means … and (the “X”) are recorded once each, with the definition’s sentence', () => {
    const text =
      'This Agreement (the “Agreement”) is between Acme Inc. ("Acme") and Bolt LLC. 1. Definitions. “Licensed Product” means any hearing aid sold under the Marks; and "Territory" shall mean the United States. The “Agreement” includes its exhibits.';
    const terms = findDefinedTerms(text);
    expect(terms.map((t) => t.term)).toEqual(['Agreement', 'Acme', 'Licensed Product', 'Territory']);
    const lp = terms[2]!;
    expect(text.slice(lp.start, lp.end)).toBe('“Licensed Product” means any hearing aid sold under the Marks;');
  });
});
