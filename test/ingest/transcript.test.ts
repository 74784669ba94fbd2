import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { loadPdf, loadText } from '../../src/core/reader/loaders';
import { deponentOf, detectTranscript, pinCite, type TranscriptLayout } from '../../src/core/text/transcript';
import { corpusDir } from '../helpers/home';
import { multiPagePdf } from '../fixtures/pdfs';
import { lineText, transcriptPdf } from '../fixtures/legal-pdfs';

/** The range of `from` … `to` (inclusive), searched in the text from `after`. */
function rangeOf(text: string, from: string, to: string, after = 0): [number, number] {
  const start = text.indexOf(from, after);
  expect(start).toBeGreaterThanOrEqual(0);
  const end = text.indexOf(to, start) + to.length;
  expect(end).toBeGreaterThan(start);
  return [start, end];
}

function expectLines(text: string, layout: TranscriptLayout): void {
  for (const page of layout.pages) {
    expect(page.lines.map((l) => l.line)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    for (const l of page.lines) expect(text.slice(l.start, l.end)).toBe(lineText(page.page, l.line));
  }
}

describe('transcripts', () => {
  it('reads a generated deposition: 25 numbered lines a page, printed page numbers, the deponent, pin cites', async () => {
    const doc = await loadPdf(await transcriptPdf());
    const layout = detectTranscript(doc.text, doc.index);
    expect(layout).not.toBeNull();
    expect(layout!.deponent).toBe('Smith');
    expect(layout!.pages.map((p) => [p.page, p.transcriptPage])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    expectLines(doc.text, layout!);
    const [start, end] = rangeOf(doc.text, 'sign the lease', 'date?', doc.index.pages[1]!.start);
    expect(pinCite(layout!, start, end)).toBe('2:10–12');
  });

  it('cites by the printed page numbers, across pages, whichever order the margin column is drawn in', async () => {
    for (const numbersFirst of [false, true]) {
      const doc = await loadPdf(await transcriptPdf(3, 41, numbersFirst));
      const layout = detectTranscript(doc.text, doc.index)!;
      expect(layout.pages.map((p) => p.transcriptPage)).toEqual([41, 42, 43]);
      expectLines(doc.text, layout);
      const page2 = doc.index.pages[1]!.start;
      expect(pinCite(layout, ...rangeOf(doc.text, 'sign the lease', 'date?', page2))).toBe('42:10–12');
      expect(pinCite(layout, ...rangeOf(doc.text, 'Friday', 'Friday', page2))).toBe('42:12');
      expect(pinCite(layout, ...rangeOf(doc.text, 'Answer 1-24', 'Question 2-3', 0))).toBe('41:24–42:3');
      // The printed page number and the reporter's footer are on no line.
      expect(pinCite(layout, ...rangeOf(doc.text, 'Reported by', 'Roe', 0))).toBeNull();
    }
  });

  it('reads a plain-text transcript (line numbers at line starts, the page number on a line of its own)', () => {
    const page = (p: number) =>
      [
        `${' '.repeat(40)}${p}`,
        ...Array.from({ length: 25 }, (_, i) => `${String(i + 1).padStart(2)}   ${lineText(p === 1 ? 2 : 3, i + 1)}`),
      ].join('\n');
    const doc = loadText(
      new TextEncoder().encode(['ORAL DEPOSITION OF DR. MARY O’BRIEN, M.D.', page(1), '\f', page(2)].join('\n')),
    );
    const layout = detectTranscript(doc.text, doc.index)!;
    expect(layout).not.toBeNull();
    expect(layout.deponent).toBe('O’Brien');
    expect(layout.pages.map((p) => [p.transcriptPage, p.lines.length])).toEqual([
      [1, 25],
      [2, 25],
    ]);
    expect(pinCite(layout, ...rangeOf(doc.text, 'sign the lease', 'closing', 0))).toBe('1:10–11');
  });

  it('names the deponent from the caption', () => {
    expect(deponentOf('VIDEOTAPED DEPOSITION OF JOHN Q. SMITH, JR.\ntaken on behalf of')).toBe('Smith');
    expect(deponentOf('DEPOSITION OF\n 4 JANE DOE-RAMIREZ')).toBe('Doe-Ramirez');
    expect(deponentOf('Deposition of Ms. Ann Lee taken March 3')).toBe('Lee');
    expect(deponentOf('TRANSCRIPT OF PROCEEDINGS\nMOTION HEARING')).toBeNull();
  });

  it('leaves contracts and line-numbered pleading paper alone', async () => {
    const contract = await loadPdf(await multiPagePdf(3, 25));
    expect(detectTranscript(contract.text, contract.index)).toBeNull();
    // Pleading paper: 28 numbered lines, a page number, but no questions, answers, speakers or reporter.
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.TimesRoman);
    for (let p = 1; p <= 2; p++) {
      const page = doc.addPage([612, 792]);
      for (let l = 1; l <= 28; l++) {
        page.drawText(String(l), { x: 40, y: 730 - (l - 1) * 24, size: 12, font });
        if (l > 3)
          page.drawText(`Plaintiff alleges fact ${p}.${l} in support of the motion.`, {
            x: 90,
            y: 730 - (l - 1) * 24,
            size: 12,
            font,
          });
      }
      page.drawText(String(p), { x: 300, y: 30, size: 12, font });
    }
    const pleading = await loadPdf(await doc.save());
    expect(detectTranscript(pleading.text, pleading.index)).toBeNull();
  });

  const okWords = path.join(corpusDir, 'freelaw-x-ray/ok_words.pdf');
  const pleading = path.join(corpusDir, 'freelaw-doctor/recap_extract/gov.uscourts.cacd.652774.40.0.pdf');
  it.skipIf(!existsSync(okWords) || !existsSync(pleading))(
    'reads a real hearing transcript page, and not a real pleading',
    async () => {
      const hearing = await loadPdf(readFileSync(okWords));
      const layout = detectTranscript(hearing.text, hearing.index)!;
      expect(layout.pages.map((p) => [p.page, p.transcriptPage, p.lines.length])).toEqual([[1, 7, 25]]);
      expect(pinCite(layout, ...rangeOf(hearing.text, 'tea leaves', 'tea leaves'))).toBe('7:3');
      const order = await loadPdf(readFileSync(pleading));
      expect(detectTranscript(order.text, order.index)).toBeNull();
    },
  );
});
