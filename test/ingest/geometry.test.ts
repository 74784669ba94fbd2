import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spanToRects, type Rect } from '../../src/core/citations/geometry';
import { parseFile } from '../../src/core/ingest/parse';
import { corpusDir, tempHome } from '../helpers/home';
import { uniqueWordsPdf } from '../fixtures/pdfs';

const hasPoppler = spawnSync('pdftotext', ['-v']).status === 0;

interface Box { word: string; x0: number; y0: number; x1: number; y1: number }

/** poppler's word boxes of one page, flipped to PDF user space (y up). */
function popplerWords(file: string, page: number, pageHeight: number): Box[] {
  const html = execFileSync('pdftotext', ['-bbox', '-f', String(page), '-l', String(page), file, '-']).toString();
  const unescape = (s: string) => s.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&apos;/g, "'");
  return [...html.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)].map((m) => ({
    word: unescape(m[5]!),
    x0: +m[1]!,
    x1: +m[3]!,
    y0: pageHeight - +m[4]!,
    y1: pageHeight - +m[2]!,
  }));
}

function iou(b: Box, r: Rect): number {
  const ix = Math.max(0, Math.min(b.x1, r.x + r.width) - Math.max(b.x0, r.x));
  const iy = Math.max(0, Math.min(b.y1, r.y + r.height) - Math.max(b.y0, r.y));
  const inter = ix * iy;
  return inter / ((b.x1 - b.x0) * (b.y1 - b.y0) + r.width * r.height - inter);
}

/** IoU of our box for each word that occurs exactly once on the page (in both readings) with poppler's box. */
async function wordIous(file: string, page: number): Promise<number[]> {
  const out = await parseFile({ bytes: readFileSync(file), name: 'x.pdf', maxBytes: Infinity });
  const doc = out.doc!;
  const geo = doc.index.pages[page - 1]!;
  const pageText = doc.text.slice(geo.start, geo.end);
  const words = popplerWords(file, page, geo.view[3]);
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
    ious.push(iou(w, boxes[0]!.rects[0]!));
  }
  return ious;
}

describe.skipIf(!hasPoppler)('span → rectangles against poppler (pdftotext -bbox)', () => {
  it('generated page – every unique word box overlaps poppler’s with IoU ≥ 0.8', async () => {
    const file = path.join(tempHome('casefile-geo-'), 'words.pdf');
    writeFileSync(file, await uniqueWordsPdf());
    const ious = await wordIous(file, 1);
    expect(ious.length).toBeGreaterThan(20);
    expect(Math.min(...ious)).toBeGreaterThanOrEqual(0.8);
  });

  it('real contract – nearly all unique words on page 1 reach IoU ≥ 0.8', async () => {
    const file = path.join(corpusDir, 'cuad/full_contract_pdf/Part_I/Development/ConformisInc_20191101_10-Q_EX-10.6_11861402_EX-10.6_Development Agreement.pdf');
    const ious = await wordIous(file, 1);
    expect(ious.length).toBeGreaterThan(50);
    const good = ious.filter((x) => x >= 0.8).length / ious.length;
    expect(good).toBeGreaterThanOrEqual(0.9);
  });
});
