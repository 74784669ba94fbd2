import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { spanToRects } from '../../src/core/citations/geometry';
import { decodeText, detectKind } from '../../src/core/domain/detect';
import { findDocDate, guessDocType } from '../../src/core/text/meta';
import { parseFile } from '../../src/core/reader/parse';
import { chunkDocument } from '../../src/core/text/structure';
import { corpusDir } from '../helpers/home';
import { rawPdf } from '../fixtures/hostile';
import { ITEM_STRIDE } from '../../src/core/domain/types';
import { imageOnlyPdf, multiPagePdf, partlyScannedPdf, rotatedPdf, truncatedPdf, twoColumnPdf } from '../fixtures/pdfs';

const corpus = (p: string) => readFileSync(path.join(corpusDir, p));
const parse = (bytes: Uint8Array, name: string, maxBytes = 500 * 1024 * 1024) => parseFile({ bytes, name, maxBytes });

describe('pdf loader', () => {
  it('multi-page – page ranges hold exactly their page text, chunks map to the right pages', async () => {
    const out = await parse(await multiPagePdf(3, 12), 'lease.pdf');
    expect(out.status).toBe('indexed');
    expect(out.pages).toBe(3);
    const doc = out.doc!;
    for (const p of doc.index.pages) {
      const pageText = doc.text.slice(p.start, p.end);
      expect(pageText.startsWith(`Page ${p.page} line 1:`)).toBe(true);
      expect(pageText.endsWith('termination.')).toBe(true);
      expect(pageText.split('\n')).toHaveLength(12);
      expect(pageText).not.toMatch(new RegExp(`Page (?!${p.page} )\\d+ line`));
    }
    const chunks = chunkDocument(doc, {
      fileId: 'f',
      name: 'lease.pdf',
      version: 1,
      isLatest: true,
      docType: 'other',
      docDate: '',
    });
    for (const c of chunks) {
      expect(c.text).toBe(doc.text.slice(c.start, c.end));
      const pagesMentioned = [...c.text.matchAll(/Page (\d+) line/g)].map((m) => Number(m[1]));
      expect(Math.min(...pagesMentioned)).toBe(c.page_start);
      expect(Math.max(...pagesMentioned)).toBe(c.page_end);
    }
  });

  it('geometry – every text item maps back to its own characters, and a span maps to boxes on its page', async () => {
    const out = await parse(await multiPagePdf(2, 5), 'g.pdf');
    const doc = out.doc!;
    const page2 = doc.index.pages[1]!;
    const at = doc.text.indexOf('Page 2 line 3: the alpha clause');
    const start = doc.text.indexOf('alpha', at);
    const boxes = spanToRects(doc.index, start, start + 'alpha clause'.length, doc.text);
    expect(boxes).toHaveLength(1);
    expect(boxes[0]!.page).toBe(2);
    expect(boxes[0]!.rects).toHaveLength(1);
    const r = boxes[0]!.rects[0]!;
    // Line 3 is drawn at y = 720 - 3*16 = 672 (baseline), 11pt; the words sit after "Page 2 line 3: the ".
    expect(r.y).toBeLessThan(672);
    expect(r.y + r.height).toBeGreaterThan(672 + 6);
    expect(r.height).toBeLessThan(14);
    expect(r.x).toBeGreaterThan(72 + 60);
    expect(r.x + r.width).toBeLessThan(300);
    // Items are stored with offsets that slice to their strings within the page range.
    for (let k = 0; k < page2.items.length; k += 11) {
      expect(page2.items[k]!).toBeGreaterThanOrEqual(page2.start);
      expect(page2.items[k]! + page2.items[k + 1]!).toBeLessThanOrEqual(page2.end);
    }
    // A span over two lines gives one rectangle per line.
    const two = doc.text.indexOf('termination.', at);
    const lines = spanToRects(doc.index, two, two + 'termination.\nPage 2 line 4'.length, doc.text);
    expect(lines[0]!.rects).toHaveLength(2);
  });

  it('standard fonts – non-embedded fonts load from pdfjs-dist with no pdf.js warning', async () => {
    const logged: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void logged.push(args.join(' ')));
    process.env.CASEFILE_PDFJS_VERBOSE = '1';
    try {
      // pdf-lib's StandardFonts are not embedded: pdf.js needs its standard font data for them.
      const out = await parse(await multiPagePdf(1, 3), 'fonts.pdf');
      expect(out.status).toBe('indexed');
    } finally {
      delete process.env.CASEFILE_PDFJS_VERBOSE;
      spy.mockRestore();
    }
    expect(logged.filter((l) => /warn/i.test(l))).toEqual([]);
  });

  it('graphics state – a font size and spacing set inside q … Q end at its Q, nested or repeated thousands of times', async () => {
    // pdf-lib wraps every line in q … Q; this page nests them and changes the text state inside,
    // as letterheads and stamps do (and as pdf.js's text state clone, patched in patches/, must keep).
    const words = Array.from({ length: 2000 }, (_, i) => `w${i}`);
    const content = [
      'BT /F1 10 Tf 72 700 Td (Body text.) Tj ET',
      'q BT /F1 24 Tf 2 Tc 72 660 Td (HEADING) Tj ET Q',
      'BT 72 620 Td (Body text.) Tj ET',
      'q BT /F1 18 Tf 72 580 Td (Outer) Tj ET q BT /F1 30 Tf 72 540 Td (Inner) Tj ET Q BT 72 500 Td (Outer again) Tj ET Q',
      'BT 72 460 Td (Body at the end.) Tj ET',
      ...words.map((w, i) => `q BT 1 0 0 1 ${72 + (i % 20) * 24} ${400 - Math.floor(i / 20) * 3} Tm (${w}) Tj ET Q`),
    ].join('\n');
    const bytes = rawPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
      `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    ]);
    const doc = (await parse(bytes, 'stamped.pdf')).doc!;
    const page = doc.index.pages[0]!;
    const items = (str: string) => {
      const found: { height: number; width: number }[] = [];
      for (let k = 0; k < page.items.length; k += ITEM_STRIDE)
        if (doc.text.slice(page.items[k]!, page.items[k]! + page.items[k + 1]!) === str)
          found.push({ height: page.items[k + 9]!, width: page.items[k + 8]! });
      return found;
    };
    const item = (str: string) => items(str)[0]!;
    // Helvetica's "HEADING" is 4.556 em wide: at 24 pt, 109 pt, and 2 pt of spacing between each of its letters.
    expect(item('HEADING')).toEqual({ height: 24, width: expect.closeTo(4.556 * 24 + 6 * 2, 1) });
    // Size and character spacing set inside q … Q are gone after it: the same words, the same size and width.
    const [before, after] = items('Body text.');
    expect(before!.height).toBe(10);
    expect(after).toEqual(before);
    expect([
      item('Outer').height,
      item('Inner').height,
      item('Outer again').height,
      item('Body at the end.').height,
    ]).toEqual([18, 30, 18, 10]);
    expect(doc.text.match(/w\d+/g)).toEqual(words);
  });

  it('graphics state – tens of thousands of empty q … Q (as some converters write) leave the words and their boxes where they are', async () => {
    // Inside a doubled scale, a TJ gap that the glyph pass must place: "beta" starts 24.46 pt (Helvetica
    // "alpha" at 10 pt) + 4 pt after "alpha", times 2. pdf.js's operator list drops empty pairs (patches/):
    // the glyph pass must still see the scale end at its Q.
    const page = (empty: string) =>
      rawPdf([
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
        '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
        ((content: string) => `<< /Length ${content.length} >>\nstream\n${content}\nendstream`)(
          [
            empty,
            'q 2 0 0 2 0 0 cm',
            empty,
            'BT /F1 10 Tf 30 300 Td [(alpha) -400 (beta gamma)] TJ ET',
            empty,
            'Q',
            empty,
            'BT /F1 10 Tf 72 100 Td [(after) -400 (that)] TJ ET',
            empty,
          ].join('\n'),
        ),
      ]);
    const plain = (await parse(page(''), 'plain.pdf')).doc!;
    const padded = (await parse(page('q Q '.repeat(10_000)), 'padded.pdf')).doc!;
    expect(padded.text).toBe(plain.text);
    expect(padded.index.pages).toEqual(plain.index.pages);
    const at = padded.text.indexOf('beta');
    const [box] = spanToRects(padded.index, at, at + 4, padded.text)[0]!.rects;
    expect(box!.x).toBeCloseTo(2 * (30 + 24.46 + 4), 1);
    // After the scale's Q, at 1: "that" 20.01 pt (Helvetica "after" at 10 pt) + 4 pt after "after".
    const that = padded.text.indexOf('that');
    expect(spanToRects(padded.index, that, that + 4, padded.text)[0]!.rects[0]!.x).toBeCloseTo(72 + 20.01 + 4, 1);
  });

  it('two columns – columns come out one after the other, not interleaved', async () => {
    const out = await parse(await twoColumnPdf(), 'cols.pdf');
    const text = out.doc!.text;
    expect(text.indexOf('Left column sentence 10')).toBeLessThan(text.indexOf('Right column sentence 1 '));
    expect(text).toContain('Left column sentence 3 about the deposit.\nLeft column sentence 4');
  });

  it('rotated pages – text of a /Rotate 90 page is read and its rotation kept', async () => {
    const out = await parse(await rotatedPdf(), 'rot.pdf');
    expect(out.status).toBe('indexed');
    expect(out.doc!.index.pages.map((p) => p.rotate)).toEqual([0, 90]);
    const i = out.doc!.text.indexOf('arbitration');
    expect(i).toBeGreaterThan(0);
    const boxes = spanToRects(out.doc!.index, i, i + 11, out.doc!.text);
    expect(boxes[0]!.page).toBe(2);
    // Text drawn rotated by 90°: its box is taller than wide.
    expect(boxes[0]!.rects[0]!.height).toBeGreaterThan(boxes[0]!.rects[0]!.width);
  });

  it('partly scanned – indexed, with the page without text flagged', async () => {
    const out = await parse(await partlyScannedPdf(), 'scan.pdf');
    expect(out.status).toBe('indexed');
    expect(out.emptyPages).toEqual([2]);
    expect(out.reason).toMatch(/page.*2/);
    expect(out.docDate).toBe('2021-03-03');
  });

  it('image only – needs_ocr, with its pages counted', async () => {
    const out = await parse(await imageOnlyPdf(), 'scan.pdf');
    expect(out).toMatchObject({ status: 'needs_ocr', pages: 2 });
    const real = await parse(corpus('derived-odd-pdfs/ADIANUTRITION-RESELLER_image-only-150dpi.pdf'), 'x.pdf');
    expect(real).toMatchObject({ status: 'needs_ocr', pages: 5 });
  });

  it('password protected – failed, saying what to do', async () => {
    for (const p of [
      'derived-odd-pdfs/ADIANUTRITION-RESELLER_user-password_lawyer123_aes256.pdf',
      'py-pdf-sample-files/005-libreoffice-writer-password/libreoffice-writer-password.pdf',
    ]) {
      const out = await parse(corpus(p), 'locked.pdf');
      expect(out).toMatchObject({ status: 'failed', locked: true });
      // The reason names no shell's command: each shell adds its own way to give the password.
      expect(out.reason).toBe('password protected — enter its password, or ask the sender for an unlocked copy');
    }
  });

  it('owner password only – opens and reads (no password needed to view)', async () => {
    const out = await parse(corpus('derived-odd-pdfs/ADIANUTRITION-RESELLER_owner-password-only_aes256.pdf'), 'r.pdf');
    expect(out.status).toBe('indexed');
    expect(out.doc!.text).toContain('RESELLER AGREEMENT');
  });

  it('truncated and zero-byte and too large – failed with plain reasons', async () => {
    const truncated = await parse(await truncatedPdf(), 't.pdf');
    expect(truncated.status).toBe('failed');
    expect(truncated.reason).toMatch(/damaged or incomplete PDF/);
    expect(await parse(new Uint8Array(0), 'e.pdf')).toMatchObject({ status: 'failed', reason: 'empty file' });
    const big = await parse(new Uint8Array(2048).fill(65), 'big.txt', 1024);
    expect(big.status).toBe('failed');
    expect(big.reason).toMatch(/^too large/);
  });

  it('real contract – text, date and doc type', async () => {
    const out = await parse(
      corpus(
        'cuad/full_contract_pdf/Part_I/Affiliate_Agreements/LinkPlusCorp_20050802_8-K_EX-10_3240252_EX-10_Affiliate Agreement.pdf',
      ),
      'Affiliate Agreement.pdf',
    );
    expect(out).toMatchObject({ status: 'indexed', pages: 7, docType: 'contract', docDate: '2005-07-15' });
    expect(out.doc!.text).toContain('AFFILIATE AGREEMENT\nThis Agreement entered into as of the Effective Date');
  });
});

describe('docx and text loaders', () => {
  it('docx – paragraphs with offsets and HTML for display', async () => {
    const out = await parse(corpus('freelaw-doctor/word-docx.docx'), 'motion.docx');
    expect(out.status).toBe('indexed');
    const doc = out.doc!;
    expect(doc.kind).toBe('docx');
    expect(doc.html).toMatch(/<p>/);
    const paras = doc.index.paragraphs!;
    expect(paras.length).toBeGreaterThan(5);
    for (const [s, e] of paras) {
      expect(doc.text.slice(s, e)).not.toContain('\n\n');
      expect(doc.text.slice(s, e).trim().length).toBeGreaterThan(0);
    }
    expect(doc.index.pages[0]!.start).toBe(0);
    expect(doc.index.pages[doc.index.pages.length - 1]!.end).toBe(doc.text.length);
  });

  it('damaged docx – failed with a reason', async () => {
    const bytes = corpus('freelaw-doctor/word-docx.docx').subarray(0, 3000);
    const out = await parse(bytes, 'broken.docx');
    expect(out.kind).toBe('docx');
    expect(out.status).toBe('failed');
    expect(out.reason).toMatch(/damaged Word file/);
  });

  it('text – UTF-8, UTF-16 with BOM and Latin-1 decode to the same words', () => {
    const s = 'Café résumé — naïve façade\r\nsecond line';
    expect(decodeText(new TextEncoder().encode(s)).text).toBe(s);
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')]);
    expect(decodeText(le)).toEqual({ text: s, encoding: 'utf-16le' });
    const latin = Buffer.from('Café résumé naïve', 'latin1');
    expect(decodeText(latin)).toEqual({ text: 'Café résumé naïve', encoding: 'windows-1252' });
    expect(detectKind(le, 'notes.txt').kind).toBe('text');
    expect(detectKind(latin, 'notes').kind).toBe('text');
  });

  it('detection – by bytes, not by extension', () => {
    const pdfBytes = Buffer.from('%PDF-1.7\n...');
    expect(detectKind(pdfBytes, 'scan.txt').kind).toBe('pdf');
    expect(detectKind(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]), 'photo.pdf')).toEqual({
      kind: 'image',
      reason: '',
    });
    expect(detectKind(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), 'old.doc')).toEqual({
      kind: 'unknown',
      reason: 'old Office format (.doc) that Casefile does not read; save it as PDF',
    });
    expect(detectKind(Buffer.from([1, 2, 3, 0, 5]), 'blob.bin').kind).toBe('unknown');
  });
});

describe('metadata heuristics', () => {
  it('doc date – first parseable date, ISO', () => {
    expect(findDocDate('Filed on the 5th day of January, 2021 and amended 2022-02-03')).toBe('2021-01-05');
    expect(findDocDate('Ref 2019-13-45, then March 31, 2020')).toBe('2020-03-31');
    expect(findDocDate('seen 02/30/2020; returned 03/04/2020')).toBe('2020-03-04');
    expect(findDocDate('no dates here')).toBe('');
  });

  it('doc type – name and first-page cues', () => {
    expect(guessDocType('Master Services Agreement.pdf', 'This Agreement is made between the parties')).toBe(
      'contract',
    );
    expect(
      guessDocType('scan.pdf', 'DEPOSITION OF JOHN DOE\nEXAMINATION BY MR. SMITH\nQ. Where were you?\nA. Home.'),
    ).toBe('deposition');
    expect(guessDocType('INV-2041.pdf', 'Invoice\nBill to: Acme\nAmount due: $300')).toBe('invoice');
    expect(guessDocType('notes.txt', 'groceries')).toBe('other');
  });
});
