import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { detectKind, imageFormat } from '../../src/core/domain/detect';
import { pageSize } from '../../src/core/reader/images';
import type { FileInfo } from '../../src/shared/contract/ingest';
import { cropped, multiPageTiff, pagePng, pixels, pngClaiming, topOnlyPixels, topOnlyPng } from '../fixtures/images';
import { cuadPdf } from '../helpers/home';
import { hasPoppler, popplerWords } from '../helpers/poppler';

const PDF = cuadPdf('Affiliate_Agreements/LinkPlusCorp_20050802_8-K_EX-10_3240252_EX-10_Affiliate Agreement.pdf');

describe('image files: recognised by their bytes', () => {
  it('PNG, JPEG, TIFF, WebP, GIF, BMP are images whatever their names; a page size from their resolution', () => {
    expect(imageFormat(pngClaiming(10, 10))).toBe('png');
    expect(detectKind(pngClaiming(10, 10), 'scan.txt')).toEqual({ kind: 'image', reason: '' });
    expect(imageFormat(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('jpeg');
    expect(imageFormat(Buffer.from('II*\0'))).toBe('tiff');
    expect(imageFormat(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('webp');
    expect(imageFormat(Buffer.from('BM is how this text file starts'))).toBeNull();
    // 150 dpi Letter → 612 × 792 pt; no resolution: a full-width scan fills 8.5 in; a screenshot is 96 dpi.
    expect(pageSize(1275, 1650, 150)).toEqual([612, 792]);
    expect(pageSize(2550, 3300, null)).toEqual([612, 792]);
    expect(pageSize(800, 450, null)).toEqual([600, 337.5]);
  });
});

describe.skipIf(!hasPoppler)('image files in a case: read by OCR, searchable, cited with boxes on the words', () => {
  // One home for the whole block (tempHome() is removed after each test).
  const home = mkdtempSync(path.join(os.tmpdir(), 'casefile-images-case-'));
  const folder = path.join(home, 'drop');
  let engine: Engine;
  let caseId: string;
  let files: FileInfo[];
  const named = (name: string) => files.find((f) => f.name === name)!;

  beforeAll(async () => {
    mkdirSync(folder, { recursive: true });
    const page1 = pagePng(PDF, 1, 150);
    const page2 = pagePng(PDF, 2, 150);
    // Page 1 keeps only its top 40 % (the title and the recitals): no test reads further down it,
    // and OCR reads a third of its words (page 2 of the TIFF, where a phrase is looked for, is whole).
    writeFileSync(path.join(folder, 'page one.png'), await topOnlyPng(page1, 0.4));
    // The top quarter of page 1 as a phone might send it, and as WebP.
    writeFileSync(path.join(folder, 'letterhead.jpg'), await cropped(page1, 0.25, 'jpeg'));
    writeFileSync(path.join(folder, 'letterhead.webp'), await cropped(page1, 0.25, 'webp'));
    // A two-page fax-style TIFF of pages 1 (its top, as above) and 2.
    writeFileSync(
      path.join(folder, 'fax.tif'),
      multiPageTiff([await topOnlyPixels(page1, 0.4), await pixels(page2)], 150),
    );
    // Hostile and broken ones.
    writeFileSync(path.join(folder, 'bomb.png'), pngClaiming(100_000, 100_000));
    writeFileSync(path.join(folder, 'cut.png'), page1.subarray(0, 400));
    engine = await Engine.open({ home });
    caseId = (await engine.router.call('cases.create', { name: 'Images' })).id;
    await engine.router.call('ingest.start', { case_id: caseId, paths: [folder], wait: true });
    files = (await engine.router.call('files.list', { case_id: caseId })).files;
  }, 400_000);
  afterAll(async () => {
    await engine?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('each image is a document of kind image, one page per image (two for the two-page TIFF), read by OCR', () => {
    for (const [name, pages] of [
      ['page one.png', 1],
      ['letterhead.jpg', 1],
      ['letterhead.webp', 1],
      ['fax.tif', 2],
    ] as const) {
      const f = named(name);
      expect(f, name).toMatchObject({ status: 'indexed', pages });
      expect(f.versions[0]!.kind).toBe('image');
      expect(f.reason).toMatch(/^read by OCR: pages? 1/);
    }
  });

  it('a huge or cut image fails with a plain reason, and nothing else is lost', () => {
    expect(named('bomb.png')).toMatchObject({
      status: 'failed',
      reason: 'the image is too large (100,000 × 100,000 pixels; the limit is 100 million)',
    });
    expect(named('cut.png')).toMatchObject({
      status: 'failed',
      reason: 'damaged or incomplete PNG image, it could not be read (it ends before its last part)',
    });
  });

  it('a phrase of page 2 is found in the TIFF; its citation opens page 2 with boxes where poppler puts the words in the original', async () => {
    const truth = popplerWords(PDF, 2);
    const fax = named('fax.tif');
    const { text, pages } = await engine.router.call('files.read', { case_id: caseId, file_id: fax.id });
    const page2 = text.slice(pages[1]!.start, pages[1]!.end);
    // The first five ordinary words in a row of the original's page 2 that OCR read exactly (150 dpi: a few words differ).
    let at = -1;
    let found: RegExpExecArray | null = null;
    for (let i = 0; i + 5 <= truth.length && !found; i++) {
      const run = truth.slice(i, i + 5).map((w) => w.word);
      if (!run.every((w) => /^[a-z]{3,}$/.test(w))) continue;
      found = new RegExp(`(?<![a-z])${run.join('\\s+')}(?![a-z])`).exec(page2);
      at = i;
    }
    expect(found, page2.slice(0, 300)).not.toBeNull();
    const phrase = truth
      .slice(at, at + 5)
      .map((w) => w.word)
      .join(' ');
    const start = pages[1]!.start + found!.index;
    const img = await engine.router.call('citations.page', {
      case_id: caseId,
      file_id: fax.id,
      page: 2,
      scale: 1,
      start,
      end: start + found![0].length,
    });
    expect(img.page_count).toBe(2);
    // The image was 150 dpi, so its page has the original's size in points: poppler's boxes apply as they are.
    const words = truth.slice(at, at + 5);
    for (const t of words) {
      const cx = (t.x0 + t.x1) / 2;
      const cy = (t.y0 + t.y1) / 2;
      expect(
        img.rects.some((r) => cx >= r.x && cx <= r.x + r.width && cy >= r.y && cy <= r.y + r.height),
        t.word,
      ).toBe(true);
    }
    const hit = (
      await engine.router.call('search', { case_id: caseId, query: phrase, mode: 'keyword', k: 10 })
    ).results.find((r) => r.file_id === fax.id);
    expect(hit?.pages[0]).toBe(2);
  });

  it('with OCR off for the case, an image is listed as needing OCR', async () => {
    const { id } = await engine.router.call('cases.create', { name: 'No OCR' });
    await engine.router.call('cases.setOcr', { case_id: id, enabled: false });
    const one = path.join(home, 'one');
    mkdirSync(one);
    writeFileSync(path.join(one, 'photo.jpg'), await cropped(pagePng(PDF, 1, 72), 0.2, 'jpeg'));
    const run = await engine.router.call('ingest.start', { case_id: id, paths: [one], wait: true });
    if (!('results' in run)) throw new Error('expected results');
    expect(run.results[0]).toMatchObject({
      status: 'needs_ocr',
      reason: 'an image (a photo or scan): turn on OCR in the case settings to read it',
    });
  });
});
