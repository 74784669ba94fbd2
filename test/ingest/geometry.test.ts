import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  beginText,
  concatTransformationMatrix,
  drawObject,
  endText,
  moveText,
  PDFArray,
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFOperator,
  PDFOperatorNames,
  popGraphicsState,
  pushGraphicsState,
  setCharacterSpacing,
  setFontAndSize,
  setTextMatrix,
  setWordSpacing,
  showText,
} from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { spanToRects } from '../../src/core/citations/geometry';
import { parseFile } from '../../src/core/reader/parse';
import { corpusDir, tempHome } from '../helpers/home';
import { boxIou, hasPoppler, popplerWordsUserSpace, type PopplerWord } from '../helpers/poppler';
import { uniqueWordsPdf } from '../fixtures/pdfs';

/** IoU of our box for each word that occurs exactly once on the page (in both readings) with poppler's box. */
async function wordIous(file: string, page: number): Promise<number[]> {
  const out = await parseFile({ bytes: readFileSync(file), name: 'x.pdf', maxBytes: Infinity });
  const doc = out.doc!;
  const geo = doc.index.pages[page - 1]!;
  const pageText = doc.text.slice(geo.start, geo.end);
  const words = popplerWordsUserSpace(file, page, geo.view[3]);
  const counts = new Map<string, number>();
  for (const w of words) counts.set(w.word, (counts.get(w.word) ?? 0) + 1);
  const ious: number[] = [];
  for (const w of words) {
    if (counts.get(w.word) !== 1 || w.word.length < 3) continue;
    const at = pageText.indexOf(w.word);
    if (at < 0 || pageText.indexOf(w.word, at + 1) >= 0) continue;
    const start = geo.start + at;
    const boxes = spanToRects(doc.index, start, start + w.word.length, doc.text);
    expect(boxes.map((b) => b.page)).toEqual([page]);
    expect(boxes[0]!.rects).toHaveLength(1);
    ious.push(boxIou(w, boxes[0]!.rects[0]!));
  }
  return ious;
}

const CONFORMIS =
  'cuad/full_contract_pdf/Part_I/Development/ConformisInc_20191101_10-Q_EX-10.6_11861402_EX-10.6_Development Agreement.pdf';
const TUNIU = 'cuad/full_contract_pdf/Part_II/Collaboration/TUNIUCORP_03_06_2014-EX-10-COOPERATION AGREEMENT.PDF';

/**
 * A page set in a font whose /Widths are far from Helvetica's (narrow letters wide, wide ones
 * narrow), lines with character and word spacing: only the font's real widths place words right.
 */
async function oddWidthsPdf(): Promise<Uint8Array> {
  const { doc, page, hex } = await oddWidthsPage();
  const lines = [
    'Agreement Tenant Landlord premises lawful quiet',
    'enjoyment Waiver notice thirty days Indemnify',
    'harmless Jurisdiction Delaware arbitration Witness',
    'Wilmington Exhibit Schedule payable monthly',
    'installment Security deposit liability remedies',
  ];
  lines.forEach((line, i) =>
    page.pushOperators(
      beginText(),
      setFontAndSize('F9', 11),
      setCharacterSpacing([0, 0.6, -0.3, 0.2, 0][i]!),
      setWordSpacing([0, 2, 0, 4, 1][i]!),
      moveText(60, 720 - i * 20),
      showText(hex(line)),
      endText(),
    ),
  );
  return doc.save();
}

/**
 * Lines set the way justifying producers do: each line one text run for pdf.js, but its spacing
 * shared out unevenly — word spacing on one stretch, character spacing on the next, TJ
 * adjustments at the gaps, a line placed by a text matrix under a scaled CTM. An item's width
 * alone cannot say where its words are; only the glyphs' positions can.
 */
async function justifiedPdf(): Promise<Uint8Array> {
  const { doc, page, hex, tj } = await oddWidthsPage();
  page.pushOperators(
    beginText(),
    setFontAndSize('F9', 11),
    moveText(60, 720),
    setWordSpacing(2.5),
    showText(hex('Agreement Tenant Landlord ')),
    setWordSpacing(0),
    setCharacterSpacing(-0.3),
    showText(hex('premises lawful quiet enjoyment')),
    endText(),
    beginText(),
    setFontAndSize('F9', 11),
    moveText(60, 690),
    tj(['Waiver', -300, ' notice', -350, ' thirty', -250, ' days', -40, ' Indemnify', -120, ' harmless']),
    endText(),
    pushGraphicsState(),
    concatTransformationMatrix(0.8, 0, 0, 0.8, 40, 100),
    beginText(),
    setFontAndSize('F9', 13),
    setTextMatrix(1, 0, 0, 1, 30, 700),
    setCharacterSpacing(0.3),
    showText(hex('Jurisdiction Delaware ')),
    setCharacterSpacing(0),
    setWordSpacing(-1),
    tj(['arbitration Witness', -200, ' Wilmington']),
    endText(),
    popGraphicsState(),
    // One line whose middle word sits 2.4 pt lower (pdf.js keeps the line as one item).
    beginText(),
    setFontAndSize('F9', 11),
    moveText(60, 560),
    showText(hex('Exhibit ')),
    moveText(52, -2.4),
    showText(hex('Schedule ')),
    moveText(70, 2.4),
    showText(hex('payable')),
    endText(),
  );
  return doc.save();
}

/**
 * Lines placed by TJ adjustments (only the glyphs' positions place their words) on a page whose
 * producer wraps its operators in saves and restores — a thousand empty q … Q pairs, and changes
 * made between two saves or after a restore, which the restore must take back.
 */
async function savedStatesPdf(): Promise<Uint8Array> {
  const { doc, page, tj } = await oddWidthsPage();
  const empty = (n: number) => Array.from({ length: n }, () => [pushGraphicsState(), popGraphicsState()]).flat();
  page.pushOperators(
    ...empty(500),
    pushGraphicsState(),
    pushGraphicsState(),
    concatTransformationMatrix(2, 0, 0, 2, 0, 0),
    popGraphicsState(),
    concatTransformationMatrix(3, 0, 0, 3, 0, 0),
    popGraphicsState(),
    beginText(),
    setFontAndSize('F9', 11),
    setCharacterSpacing(0.4),
    moveText(60, 720),
    tj(['Waiver', -300, ' notice', -350, ' thirty', -250, ' days', -40, ' Indemnify']),
    endText(),
    pushGraphicsState(),
    setFontAndSize('F9', 30),
    setCharacterSpacing(-2),
    pushGraphicsState(),
    popGraphicsState(),
    popGraphicsState(),
    ...empty(500),
    beginText(),
    moveText(60, 690),
    tj(['Jurisdiction', -320, ' Delaware', -180, ' arbitration', -400, ' Witness']),
    endText(),
    pushGraphicsState(),
    concatTransformationMatrix(0.8, 0, 0, 0.8, 40, 100),
    ...empty(50),
    beginText(),
    setTextMatrix(1, 0, 0, 1, 30, 700),
    tj(['Wilmington', -260, ' Exhibit', -150, ' Schedule', -300, ' payable']),
    endText(),
    popGraphicsState(),
  );
  return doc.save();
}

/**
 * Text inside form XObjects (a letterhead, a stamp, a page placed on another): lines placed by TJ
 * adjustments in a form drawn under a scaled CTM with its own /Matrix, between lines of the page's
 * own, and a second form drawn twice. The glyphs inside a form are placed with the form's matrix,
 * in the order the page draws them.
 */
async function formsPdf(): Promise<Uint8Array> {
  const { doc, page, tj } = await oddWidthsPage();
  const font = page.node.Resources()!.lookup(PDFName.of('Font'));
  const form = (ops: PDFOperator[], matrix: number[]) =>
    doc.context.register(
      doc.context.formXObject(ops, { BBox: [0, 0, 612, 792], Matrix: matrix, Resources: { Font: font } }),
    );
  const inner = form(
    [
      beginText(),
      setFontAndSize('F9', 11),
      setCharacterSpacing(0.4),
      moveText(60, 600),
      tj(['Jurisdiction', -320, ' Delaware', -180, ' arbitration', -400, ' Witness']),
      endText(),
    ],
    [1, 0, 0, 1, 0, 40],
  );
  const stamp = form(
    [
      beginText(),
      setFontAndSize('F9', 10),
      setWordSpacing(3),
      moveText(0, 0),
      tj(['Exhibit', -260, ' Schedule']),
      endText(),
    ],
    [1, 0, 0, 1, 0, 0],
  );
  page.node.Resources()!.set(PDFName.of('XObject'), doc.context.obj({ Fm1: inner, Fm2: stamp }));
  page.pushOperators(
    beginText(),
    setFontAndSize('F9', 11),
    moveText(60, 720),
    tj(['Waiver', -300, ' notice', -350, ' thirty', -250, ' days']),
    endText(),
    pushGraphicsState(),
    concatTransformationMatrix(0.9, 0, 0, 0.9, 30, 20),
    drawObject('Fm1'),
    popGraphicsState(),
    pushGraphicsState(),
    concatTransformationMatrix(1, 0, 0, 1, 60, 400),
    drawObject('Fm2'),
    popGraphicsState(),
    beginText(),
    setFontAndSize('F9', 11),
    moveText(60, 500),
    tj(['Wilmington', -260, ' Indemnify', -150, ' harmless', -300, ' payable']),
    endText(),
    pushGraphicsState(),
    concatTransformationMatrix(1.2, 0, 0, 1.2, 60, 200),
    drawObject('Fm2'),
    popGraphicsState(),
  );
  return doc.save();
}

async function oddWidthsPage() {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const widths: number[] = [];
  for (let c = 32; c <= 126; c++) widths.push(c === 32 ? 300 : 300 + ((c * 137) % 11) * 60);
  const descriptor = doc.context.register(
    doc.context.obj({
      Type: 'FontDescriptor',
      FontName: 'CasefileOddWidths',
      Flags: 32,
      FontBBox: [-200, -220, 1000, 900],
      ItalicAngle: 0,
      Ascent: 750,
      Descent: -220,
      CapHeight: 700,
      StemV: 80,
    }),
  );
  const font = doc.context.register(
    doc.context.obj({
      Type: 'Font',
      Subtype: 'TrueType',
      BaseFont: 'CasefileOddWidths',
      FirstChar: 32,
      LastChar: 126,
      Widths: widths,
      Encoding: 'WinAnsiEncoding',
      FontDescriptor: descriptor,
    }),
  );
  page.node.setFontDictionary(PDFName.of('F9'), font);
  const hex = (s: string) => PDFHexString.of(Buffer.from(s, 'latin1').toString('hex'));
  /** TJ: strings and adjustments (thousandths of an em, positive to the left). */
  const tj = (parts: (string | number)[]) => {
    const arr = PDFArray.withContext(doc.context);
    for (const p of parts) arr.push(typeof p === 'number' ? PDFNumber.of(p) : hex(p));
    return PDFOperator.of(PDFOperatorNames.ShowTextAdjusted, [arr]);
  };
  return { doc, page, hex, tj };
}

/**
 * The rule for one cited span: take poppler's words `from`..`to` (in its reading order) on
 * a page as the span; every word inside gets its own box with IoU ≥ 0.8 against poppler's, and the
 * span's rectangles cover no word outside it by more than a sliver (10% of that word's box).
 */
async function checkSpan(
  file: string,
  page: number,
  from: number,
  to: number,
): Promise<{ ious: number[]; lines: number }> {
  const out = await parseFile({ bytes: readFileSync(file), name: 'x.pdf', maxBytes: Infinity });
  const doc = out.doc!;
  expect(doc.index.format).toBe(3);
  const geo = doc.index.pages[page - 1]!;
  const pageText = doc.text.slice(geo.start, geo.end);
  // Align poppler's words with the document text, in order.
  const placed: (PopplerWord & { at: number })[] = [];
  let cursor = 0;
  for (const w of popplerWordsUserSpace(file, page, geo.view[3])) {
    const at = pageText.indexOf(w.word, cursor);
    if (at < 0 || at - cursor > 40) continue;
    placed.push({ ...w, at: geo.start + at });
    cursor = at + w.word.length;
  }
  const inside = placed.slice(from, to + 1);
  expect(inside.length).toBe(to - from + 1);
  const start = inside[0]!.at;
  const end = inside[inside.length - 1]!.at + inside[inside.length - 1]!.word.length;
  const ious = inside.map((w) => {
    const boxes = spanToRects(doc.index, w.at, w.at + w.word.length, doc.text);
    expect(boxes).toHaveLength(1);
    expect(boxes[0]!.rects).toHaveLength(1);
    return boxIou(w, boxes[0]!.rects[0]!);
  });
  const span = spanToRects(doc.index, start, end, doc.text);
  expect(span.map((b) => b.page)).toEqual([page]);
  const rects = span[0]!.rects;
  for (const w of placed) {
    if (w.at >= start && w.at < end) continue;
    const area = (w.x1 - w.x0) * (w.y1 - w.y0);
    for (const r of rects) {
      const ix = Math.max(0, Math.min(w.x1, r.x + r.width) - Math.max(w.x0, r.x));
      const iy = Math.max(0, Math.min(w.y1, r.y + r.height) - Math.max(w.y0, r.y));
      expect(ix * iy, `"${w.word}" outside the span is covered`).toBeLessThanOrEqual(0.1 * area);
    }
  }
  return { ious, lines: rects.length };
}

describe.skipIf(!hasPoppler)('cited spans against poppler: every word IoU ≥ 0.8, nothing outside covered', () => {
  it('generated page in a font with unusual widths, character and word spacing', async () => {
    const file = path.join(tempHome('casefile-geo-'), 'odd.pdf');
    writeFileSync(file, await oddWidthsPdf());
    // From the middle of line 1 to the middle of line 4.
    const { ious, lines } = await checkSpan(file, 1, 3, 19);
    expect(lines).toBe(4);
    expect(Math.min(...ious)).toBeGreaterThanOrEqual(0.8);
  });

  it('pages stored before widths existed (format 1) still get a box per word, estimated', async () => {
    const out = await parseFile({ bytes: await oddWidthsPdf(), name: 'odd.pdf', maxBytes: Infinity });
    const doc = out.doc!;
    expect(doc.index.pages[0]!.widths?.some((w) => w !== 0)).toBe(true);
    const old = JSON.parse(
      JSON.stringify({
        ...doc.index,
        format: undefined,
        pages: doc.index.pages.map((p) => ({ ...p, widths: undefined, stops: undefined })),
      }),
    ) as typeof doc.index;
    const at = doc.text.indexOf('Delaware');
    const [now] = spanToRects(doc.index, at, at + 8, doc.text);
    const [before] = spanToRects(old, at, at + 8, doc.text);
    expect(before!.rects).toHaveLength(1);
    expect(now!.rects).toHaveLength(1);
    expect(before!.rects[0]!.y).toBe(now!.rects[0]!.y);
    expect(before!.rects[0]!.x).not.toBe(now!.rects[0]!.x);
    // The FontDescriptor's /Ascent 750 /Descent -220 (read from pdf-lib's compressed object stream) size the box.
    expect(doc.index.pages[0]!.fonts[0]!.slice(4)).toEqual([0.75, -0.22]);
  });

  it('justified lines: spacing shared out unevenly inside one text run still puts each word box on its word', async () => {
    const file = path.join(tempHome('casefile-geo-'), 'justified.pdf');
    writeFileSync(file, await justifiedPdf());
    const ious = await wordIous(file, 1);
    expect(ious.length).toBeGreaterThanOrEqual(18);
    expect(Math.min(...ious)).toBeGreaterThanOrEqual(0.8);
    // The lines are few runs (so their width alone cannot place the words), and the exact
    // boundaries stored at ingest are what does: without them the same boxes drift off their words.
    const doc = (await parseFile({ bytes: readFileSync(file), name: 'j.pdf', maxBytes: Infinity })).doc!;
    const geo = doc.index.pages[0]!;
    expect(geo.items.length / 11).toBeLessThanOrEqual(6);
    expect(geo.stops?.length).toBeGreaterThan(0);
    const withoutStops = { ...doc.index, pages: doc.index.pages.map((p) => ({ ...p, stops: undefined })) };
    const words = popplerWordsUserSpace(file, 1, geo.view[3]);
    const drift = words.map((w) => {
      const at = doc.text.indexOf(w.word);
      const [box] = spanToRects(withoutStops, at, at + w.word.length, doc.text);
      return boxIou(w, box!.rects[0]!);
    });
    expect(Math.min(...drift)).toBeLessThan(0.8);
    // The lowered word: its own base line is stored (a lift), without which its box sits too high.
    expect(geo.lifts?.length).toBeGreaterThan(0);
    const lowered = words.find((w) => w.word === 'Schedule')!;
    const at = doc.text.indexOf('Schedule');
    const [withLift] = spanToRects(doc.index, at, at + 8, doc.text);
    const [withoutLift] = spanToRects(
      { ...doc.index, pages: doc.index.pages.map((p) => ({ ...p, lifts: undefined })) },
      at,
      at + 8,
      doc.text,
    );
    expect(boxIou(lowered, withLift!.rects[0]!)).toBeGreaterThanOrEqual(0.8);
    expect(boxIou(lowered, withoutLift!.rects[0]!)).toBeLessThan(0.8);
  });

  it('a producer that wraps every operator in saves and restores: each word box still on its word', async () => {
    const file = path.join(tempHome('casefile-geo-'), 'saved.pdf');
    writeFileSync(file, await savedStatesPdf());
    const ious = await wordIous(file, 1);
    expect(ious.length).toBe(13);
    expect(Math.min(...ious)).toBeGreaterThanOrEqual(0.8);
    // The words are placed by their glyphs (the runs' widths alone cannot say where they are).
    const doc = (await parseFile({ bytes: readFileSync(file), name: 's.pdf', maxBytes: Infinity })).doc!;
    expect(doc.index.pages[0]!.stops?.length).toBeGreaterThan(0);
  });

  it('text inside form XObjects (drawn scaled, with their own matrix, one of them twice): each word box on its word', async () => {
    const file = path.join(tempHome('casefile-geo-'), 'forms.pdf');
    writeFileSync(file, await formsPdf());
    // Poppler reads the two drawings of the stamp as the same words twice: wordIous keeps words found once.
    const ious = await wordIous(file, 1);
    expect(ious.length).toBe(12);
    expect(Math.min(...ious)).toBeGreaterThanOrEqual(0.8);
    // Both drawings of the stamp land on poppler's words too.
    const doc = (await parseFile({ bytes: readFileSync(file), name: 'f.pdf', maxBytes: Infinity })).doc!;
    const geo = doc.index.pages[0]!;
    expect(geo.stops?.length).toBeGreaterThan(0);
    const schedules = popplerWordsUserSpace(file, 1, geo.view[3]).filter((w) => w.word === 'Schedule');
    expect(schedules).toHaveLength(2);
    const first = doc.text.indexOf('Schedule');
    const second = doc.text.indexOf('Schedule', first + 1);
    const boxes = [first, second].map((at) => spanToRects(doc.index, at, at + 8, doc.text)[0]!.rects[0]!);
    for (const w of schedules) expect(Math.max(...boxes.map((b) => boxIou(w, b)))).toBeGreaterThanOrEqual(0.8);
  });

  it.each([
    ['cuad/full_contract_pdf/Part_II/IP/INGEVITYCORP_05_16_2016-EX-10.5-INTELLECTUAL PROPERTY AGREEMENT.PDF', 1],
    [
      'cuad/full_contract_pdf/Part_I/Affiliate_Agreements/SteelVaultCorp_20081224_10-K_EX-10.16_3074935_EX-10.16_Affiliate Agreement.pdf',
      1,
    ],
    ['cuad/full_contract_pdf/Part_II/Sponsorship/VIOLINMEMORYINC_12_12_2012-EX-10.14-SPONSORSHIP AGREEMENT.PDF', 2],
    ['cuad/full_contract_pdf/Part_II/Sponsorship/VIOLINMEMORYINC_12_12_2012-EX-10.14-SPONSORSHIP AGREEMENT.PDF', 15],
    ['freelaw-courtlistener/Documents/PDF to HTML Analysis and Testing/DC-Circuit-07-3125-1229519.pdf', 1],
    ['freelaw-courtlistener/Documents/PDF to HTML Analysis and Testing/DC-Circuit-07-3125-1229519.pdf', 15],
  ])(
    'real document %s page %i: every unique word on the page reaches IoU ≥ 0.8 (justified lines, text matrices, dropped soft hyphens, small capitals, layout by runs of spaces)',
    async (rel, page) => {
      const ious = await wordIous(path.join(corpusDir, rel), page);
      expect(ious.length).toBeGreaterThan(40);
      expect(Math.min(...ious)).toBeGreaterThanOrEqual(0.8);
    },
  );

  it.each([
    [CONFORMIS, 1, 45, 135],
    [TUNIU, 1, 30, 120],
  ])('real contract %s page %i, words %i–%i', async (rel, page, from, to) => {
    const { ious, lines } = await checkSpan(path.join(corpusDir, rel), page, from, to);
    expect(lines).toBeGreaterThanOrEqual(3);
    expect(Math.min(...ious)).toBeGreaterThanOrEqual(0.8);
  });
});

describe.skipIf(!hasPoppler)('span → rectangles against poppler (pdftotext -bbox)', () => {
  it('generated page – every unique word box overlaps poppler’s with IoU ≥ 0.8', async () => {
    const file = path.join(tempHome('casefile-geo-'), 'words.pdf');
    writeFileSync(file, await uniqueWordsPdf());
    const ious = await wordIous(file, 1);
    expect(ious.length).toBeGreaterThan(20);
    expect(Math.min(...ious)).toBeGreaterThanOrEqual(0.8);
  });

  it('a line in another font (the Tahoma "Source: …" footer, 1.2 em tall in its FontDescriptor) gets boxes as tall as poppler’s', async () => {
    const file = path.join(corpusDir, CONFORMIS);
    const out = await parseFile({ bytes: readFileSync(file), name: 'x.pdf', maxBytes: Infinity });
    const doc = out.doc!;
    const geo = doc.index.pages[0]!;
    const pageText = doc.text.slice(geo.start, geo.end);
    const footer = popplerWordsUserSpace(file, 1, geo.view[3]).filter((w) => w.y1 < 60);
    expect(footer.map((w) => w.word)).toContain('Source:');
    for (const w of footer) {
      const at = pageText.indexOf(w.word);
      expect(at).toBeGreaterThanOrEqual(0);
      const [box] = spanToRects(doc.index, geo.start + at, geo.start + at + w.word.length, doc.text);
      const r = box!.rects[0]!;
      expect(r.height / (w.y1 - w.y0)).toBeCloseTo(1, 1);
      expect(boxIou(w, r), w.word).toBeGreaterThanOrEqual(0.95);
    }
    // Data stored before descriptor metrics (no box ascent/descent per font) keeps the capped pdf.js metrics.
    const old = {
      ...doc.index,
      pages: doc.index.pages.map((p) => ({ ...p, fonts: p.fonts.map((f) => [f[0], f[1], f[2], f[3]] as typeof f) })),
    };
    const at = pageText.indexOf('Source:');
    const [before] = spanToRects(old, geo.start + at, geo.start + at + 7, doc.text);
    const [now] = spanToRects(doc.index, geo.start + at, geo.start + at + 7, doc.text);
    expect(before!.rects[0]!.height).toBeLessThan(0.85 * now!.rects[0]!.height);
  });

  it('real contract – nearly all unique words on page 1 reach IoU ≥ 0.8', async () => {
    const file = path.join(
      corpusDir,
      'cuad/full_contract_pdf/Part_I/Development/ConformisInc_20191101_10-Q_EX-10.6_11861402_EX-10.6_Development Agreement.pdf',
    );
    const ious = await wordIous(file, 1);
    expect(ious.length).toBeGreaterThan(50);
    const good = ious.filter((x) => x >= 0.8).length / ious.length;
    expect(good).toBeGreaterThanOrEqual(0.98);
  });
});
