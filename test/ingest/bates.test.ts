import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectBates } from '../../src/core/text/bates';
import { loadPdf } from '../../src/core/reader/loaders';
import type { PageGeometry, PageIndex } from '../../src/core/domain/types';
import { corpusDir } from '../helpers/home';
import { markedPdf, type Marks } from '../fixtures/legal-pdfs';

/** A text document of the given pages (a blank line between them), with its page index. */
function textDoc(pageTexts: string[]): { text: string; index: PageIndex } {
  const pages: PageGeometry[] = [];
  let at = 0;
  for (const [i, t] of pageTexts.entries()) {
    pages.push({ page: i + 1, start: at, end: at + t.length, view: [0, 0, 0, 0], rotate: 0, fonts: [], items: [] });
    at += t.length + 2;
  }
  return { text: pageTexts.join('\n\n'), index: { kind: 'text', pages } };
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** Read with the real loader and detect; every stamp's range holds its number. */
async function detect(bytes: Uint8Array) {
  const doc = await loadPdf(bytes);
  const found = detectBates(doc.text, doc.index);
  for (const p of found?.pages ?? []) expect(doc.text.slice(p.start, p.end)).toBe(p.number);
  return found;
}

describe('Bates numbers', () => {
  it('finds every stamped page: footer, footer with CONFIDENTIAL continuing across documents, header', async () => {
    const stamped: { bytes: Uint8Array; expect: { prefix: string; numbers: string[] } }[] = [
      {
        bytes: await markedPdf(3, (p) => ({ footer: `ACME${pad(100 + p, 6)}`, footerLeft: `Page ${p} of 3` })),
        expect: { prefix: 'ACME', numbers: ['ACME000101', 'ACME000102', 'ACME000103'] },
      },
      {
        bytes: await markedPdf(4, (p) => ({ footer: `SMITH-${pad(244 + p, 7)} CONFIDENTIAL` })),
        expect: { prefix: 'SMITH-', numbers: [245, 246, 247, 248].map((n) => `SMITH-${pad(n, 7)}`) },
      },
      {
        // The next document of the same production: its range continues where the last one ended.
        bytes: await markedPdf(3, (p) => ({
          footer: `SMITH-${pad(248 + p, 7)} CONFIDENTIAL`,
          footerLeft: `Page ${p}`,
        })),
        expect: { prefix: 'SMITH-', numbers: [249, 250, 251].map((n) => `SMITH-${pad(n, 7)}`) },
      },
      {
        bytes: await markedPdf(5, (p) => ({ header: `XYZ_${pad(5000 + p, 8)}`, footer: `- ${p} -` })),
        expect: { prefix: 'XYZ_', numbers: [5001, 5002, 5003, 5004, 5005].map((n) => `XYZ_${pad(n, 8)}`) },
      },
    ];
    let pages = 0;
    let detected = 0;
    for (const s of stamped) {
      const found = await detect(s.bytes);
      expect(found).not.toBeNull();
      expect(found!.prefix).toBe(s.expect.prefix);
      expect(found!.pages.map((p) => p.number)).toEqual(s.expect.numbers);
      expect(found!.pages.map((p) => p.page)).toEqual(s.expect.numbers.map((_, i) => i + 1));
      expect(found!.pages.map((p) => p.value)).toEqual(s.expect.numbers.map((n) => Number(n.replace(/^\D+/, ''))));
      pages += s.expect.numbers.length;
      detected += found!.pages.length;
    }
    expect(detected).toBe(pages);
  });

  it('tolerates a page without a stamp, and takes a one-page document only on a strong footer stamp', async () => {
    const gap = await detect(await markedPdf(4, (p) => ({ footer: p === 3 ? null : `DEF ${pad(70 + p, 6)}` })));
    expect(gap?.prefix).toBe('DEF ');
    expect(gap?.pages.map((p) => [p.page, p.value])).toEqual([
      [1, 71],
      [2, 72],
      [4, 74],
    ]);
    const one = await detect(await markedPdf(1, () => ({ footer: 'ACME0000777' })));
    expect(one?.pages.map((p) => p.number)).toEqual(['ACME0000777']);
    expect(await detect(await markedPdf(1, () => ({ footer: 'ACME12345' })))).toBeNull();
    expect(await detect(await markedPdf(1, () => ({ header: 'ACME0000777' })))).toBeNull();
    // A stamp on the first page only of a longer document is not a production.
    expect(await detect(await markedPdf(4, (p) => ({ footer: p === 1 ? 'ACME0000777' : null })))).toBeNull();
  });

  it('is not fooled by page numbers, form numbers, docket stamps, exhibit ids, phones, dates and filing markers', async () => {
    const notBates: ((p: number) => Marks)[] = [
      (p) => ({ footer: `Page ${p} of 10`, footerLeft: `- ${p} -` }),
      (p) => ({ footerLeft: 'Form 1040 (Rev. 01/2019)', footer: `Cat. No. 11320B  Page ${p}` }),
      (p) => ({ header: `Case 1:19-cv-01234 Document 45 Filed 03/04/20 Page ${p + 2} of 10` }),
      (p) => ({
        header: `Case: 1:18-cv-05587 Document #: 1000 Filed: 06/01/21 Page ${p} of 18 PageID #:${pad(32474 + p, 5)}`,
      }),
      (p) => ({
        header: `Case 1:19-cv-00123-PLM ECF No. 45, PageID.${pad(1233 + p, 5)} Filed 03/04/20 Page ${p} of 10`,
      }),
      (p) => ({ header: `Case: 20-16276, 08/05/2020, ID: ${11778721 + p}, DktEntry: 19, Page ${p} of 15` }),
      (p) => ({ footer: `EX-10.1 ${p}`, footerLeft: 'Source: ACME CORP, 10-K, 3/30/2020' }),
      (p) => ({ footer: `Tel. (555) 012-3456  Fax 555-012-${pad(3456 + p, 4)}`, footerLeft: 'NEW YORK, NY 10001' }),
      (p) => ({ footer: `Printed 03/0${p}/2020 at 10:4${p}`, footerLeft: `SF-86 ${p}` }),
      (p) => ({ footer: `Invoice No. INV-${pad(10000 + p, 6)}`, footerLeft: `Order 000${p}2345` }),
      (p) => ({ header: `LinkPlusCorp_20050802_8-K_EX-10_${3240251 + p}_EX-10` }),
      (p) => ({ header: `PAGE ${pad(p, 5)}`, footer: `Case No. CV-${pad(1000 + p, 6)}` }),
    ];
    for (const marks of notBates) {
      const found = await detect(await markedPdf(3, marks));
      expect(found, JSON.stringify(marks(1))).toBeNull();
    }
  });

  it('reads a text page without geometry by its first and last lines', () => {
    const body = (n: number, stamp = '') =>
      Array.from(
        { length: 12 },
        (_, l) => `Line ${l + 1} of page ${n}, order 400${l}1 shipped.${l === 5 ? ` ${stamp}` : ''}`,
      ).join('\n');
    const stamped = textDoc([1, 2, 3].map((n) => `${body(n)}\nPLTF_${pad(40 + n, 6)}`));
    const found = detectBates(stamped.text, stamped.index);
    expect(found?.pages.map((p) => stamped.text.slice(p.start, p.end))).toEqual([
      'PLTF_000041',
      'PLTF_000042',
      'PLTF_000043',
    ]);
    // The same numbers in the middle of the pages are not stamps.
    const inBody = textDoc([1, 2, 3].map((n) => body(n, `PLTF_${pad(40 + n, 6)}`)));
    expect(detectBates(inBody.text, inBody.index)).toBeNull();
  });

  const manifest = path.join(corpusDir, 'MANIFEST.tsv');
  it.skipIf(!existsSync(manifest))(
    'finds no Bates numbers in real filings and contracts (40 corpus PDFs from 8 sources)',
    async () => {
      const files = corpusPdfs(manifest, 40);
      expect(files.length).toBeGreaterThan(0);
      const falsePositives: string[] = [];
      for (const file of files) {
        const doc = await loadPdf(readFileSync(path.join(corpusDir, file)));
        const found = detectBates(doc.text, doc.index);
        if (found) falsePositives.push(`${file}: ${found.pages.map((p) => p.number).join(', ')}`);
      }
      expect(falsePositives).toEqual([]);
    },
  );
});

/**
 * Up to `max` text PDFs of the corpus (MANIFEST.tsv: format pdf, text layer yes), taken in turn from
 * each source so that court filings (freelaw: docket headers) and contracts (CUAD) are both read;
 * files over 30 pages are left out to keep the test short (about 300 pages in all).
 */
function corpusPdfs(manifest: string, max: number): string[] {
  const rows = readFileSync(manifest, 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.split('\t'))
    .filter((r) => r[2] === 'pdf' && r[7] === 'yes' && Number(r[5]) <= 30);
  const bySource = new Map<string, string[]>();
  for (const r of rows) bySource.set(r[1]!, [...(bySource.get(r[1]!) ?? []), r[0]!]);
  const out: string[] = [];
  for (let i = 0; out.length < max && [...bySource.values()].some((list) => list.length > i); i++) {
    for (const list of bySource.values()) if (list[i] && out.length < max) out.push(list[i]!);
  }
  return out;
}

describe('exhibit labels', () => {
  it('a file named or stamped as an exhibit is one; an SEC exhibit index is not', async () => {
    const { exhibitLabel } = await import('../../src/core/text/bates');
    expect(exhibitLabel('binders/Exhibit 14.pdf', 'Lease agreement')).toBe('Exhibit 14');
    expect(exhibitLabel('Ex. 3 - Smith letter.pdf', 'Dear Sir')).toBe('Exhibit 3');
    expect(exhibitLabel('exhibit_b_contract.docx', 'Contract')).toBe('Exhibit B');
    expect(exhibitLabel('scan.pdf', '\n  EXHIBIT 7A\nDeclaration of Jane Roe')).toBe('Exhibit 7A');
    expect(
      exhibitLabel(
        'PcquoteComInc_19990721_S-1A_EX-10.11_6377149_EX-10.11_Co-Branding Agreement2.pdf',
        'EXHIBIT 10.11\nCO-BRANDING AGREEMENT',
      ),
    ).toBeNull();
    expect(exhibitLabel('Texas notes.pdf', 'Exhibits are attached.')).toBeNull();
  });
});

describe('Bates ranges searched', () => {
  it('a range becomes its numbers; anything else is not one', async () => {
    const { batesRangeQuery } = await import('../../src/core/text/bates');
    expect(batesRangeQuery('ACME0001234-ACME0001236')).toBe('ACME0001234 ACME0001235 ACME0001236');
    expect(batesRangeQuery('SMITH-0000245 – 47')).toBe('SMITH-0000245 SMITH-0000246 SMITH-0000247');
    expect(batesRangeQuery('ACME0001234 through ACME0001235')).toBe('ACME0001234 ACME0001235');
    expect(batesRangeQuery('ACME0001234-BETA0001236')).toBeNull();
    expect(batesRangeQuery('ACME0001236-ACME0001234')).toBeNull();
    expect(batesRangeQuery('ACME0000001-ACME0009999')).toBeNull();
    expect(batesRangeQuery('notice period 2019-2020')).toBeNull();
  });
});

describe('Acrobat-style Bates stamps', () => {
  it('a stamp written as a pagination artifact (marked content /Artifact, as Acrobat adds Bates numbers) is found like any other', async () => {
    const { PDFDocument, StandardFonts, beginMarkedContent, endMarkedContent } = await import('pdf-lib');
    const { FIXED_DATE } = await import('../fixtures/pdfs');
    const doc = await PDFDocument.create();
    doc.setCreationDate(FIXED_DATE);
    doc.setModificationDate(FIXED_DATE);
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (let p = 1; p <= 3; p++) {
      const page = doc.addPage([612, 792]);
      page.drawText(`Page ${p} of the production: the shipment left the warehouse on time.`, {
        x: 72,
        y: 700,
        size: 11,
        font,
      });
      page.pushOperators(beginMarkedContent('Artifact'));
      page.drawText(`ACME${String(2000 + p).padStart(7, '0')}`, { x: 480, y: 30, size: 9, font });
      page.pushOperators(endMarkedContent());
    }
    const found = await detect(await doc.save());
    expect(found?.pages.map((b) => [b.page, b.number])).toEqual([
      [1, 'ACME0002001'],
      [2, 'ACME0002002'],
      [3, 'ACME0002003'],
    ]);
  });
});
