import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { PDFDocument, rgb, StandardFonts } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { ocrNote } from '../../src/core/reader/parse';
import { ocrPage, ORIENTATION_CHECK_CONFIDENCE } from '../../src/core/reader/ocr-page';
import { loadPdfJs, pdfjsDataOptions } from '../../src/core/util/pdfjs';
import { languageData, OcrEngine, type OcrPage } from '../../src/core/ocr/tesseract';
import { corpusDir, cuadPdf, tempHome } from '../helpers/home';
import { hasPoppler, popplerWords } from '../helpers/poppler';

/**
 * The OCR engine against an oracle: a text PDF's page rendered to an image by poppler (pdftoppm),
 * read back by tesseract.js, compared with poppler's own text and word boxes of the original.
 */
const PDF = cuadPdf('Affiliate_Agreements/LinkPlusCorp_20050802_8-K_EX-10_3240252_EX-10_Affiliate Agreement.pdf');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'casefile-ocr-'));
const engine = new OcrEngine();
afterAll(async () => {
  await engine.dispose();
  rmSync(tmp, { recursive: true, force: true });
});

/** The test's OCR engine, keeping each image it is handed in `images`. */
function seeing(images: Buffer[]): OcrEngine {
  return {
    recognize: (bytes: Uint8Array, signal?: AbortSignal) => (
      images.push(Buffer.from(bytes)), engine.recognize(bytes, signal)
    ),
  } as OcrEngine;
}

/**
 * How much of page 1, from the top, the tests that look only for its "wireless mesh networking
 * technology" (a quarter of the way down) keep of a scan of it: the title and the first recitals,
 * about 150 of its 432 words, down to the gap between two lines (y 341 and 355 of 842 pt).
 */
const KEEP = 348 / 842;

/**
 * The page image with everything below KEEP of its height painted white: the same page, the same
 * size and resolution, the words of its top part where they were — a third of the words to read.
 */
async function topOnly(image: Uint8Array): Promise<Buffer> {
  const { createCanvas, loadImage } = await import('@napi-rs/canvas');
  const img = await loadImage(Buffer.from(image));
  const canvas = createCanvas(img.width, img.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, Math.round(img.height * KEEP), img.width, img.height);
  return canvas.encode('png');
}

function render(dpi: number): Uint8Array {
  const prefix = path.join(tmp, `p${dpi}`);
  execFileSync('pdftoppm', ['-r', String(dpi), '-f', '1', '-l', '1', '-singlefile', '-png', PDF, prefix]);
  return readFileSync(`${prefix}.png`);
}

/** Levenshtein distance over two sequences (two rows). */
function distance<T>(a: readonly T[], b: readonly T[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur.push(Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = cur;
  }
  return prev[b.length]!;
}

const flat = (t: string) => t.replace(/\s+/g, ' ').trim();

function errorRates(page: OcrPage): { cer: number; wer: number } {
  const truth = flat(execFileSync('pdftotext', ['-f', '1', '-l', '1', PDF, '-'], { encoding: 'utf8' }));
  const read = flat(page.text);
  return {
    cer: distance([...read], [...truth]) / truth.length,
    wer: distance(read.split(' '), truth.split(' ')) / truth.split(' ').length,
  };
}

/** Share of OCR words whose box overlaps poppler's box of the same word (IoU ≥ 0.7), among the words matched by text. */
function boxAgreement(page: OcrPage, dpi: number): { matched: number; goodShare: number } {
  const scale = dpi / 72;
  const truth = popplerWords(PDF, 1).map((w) => ({
    ...w,
    x0: w.x0 * scale,
    y0: w.y0 * scale,
    x1: w.x1 * scale,
    y1: w.y1 * scale,
  }));
  let matched = 0;
  let good = 0;
  for (const w of page.words) {
    const cx = (w.x0 + w.x1) / 2;
    const cy = (w.y0 + w.y1) / 2;
    const same = truth
      .filter((t) => t.word === w.text)
      .sort(
        (a, b) =>
          Math.hypot((a.x0 + a.x1) / 2 - cx, (a.y0 + a.y1) / 2 - cy) -
          Math.hypot((b.x0 + b.x1) / 2 - cx, (b.y0 + b.y1) / 2 - cy),
      )[0];
    if (!same) continue;
    matched++;
    const ix = Math.max(0, Math.min(w.x1, same.x1) - Math.max(w.x0, same.x0));
    const iy = Math.max(0, Math.min(w.y1, same.y1) - Math.max(w.y0, same.y0));
    const inter = ix * iy;
    const iou = inter / ((w.x1 - w.x0) * (w.y1 - w.y0) + (same.x1 - same.x0) * (same.y1 - same.y0) - inter);
    if (iou >= 0.7) good++;
  }
  return { matched, goodShare: good / Math.max(1, matched) };
}

describe.skipIf(!hasPoppler)('OCR engine (tesseract.js, offline language data)', () => {
  it('the English data comes from the installed npm package, not a CDN', () => {
    expect(languageData('eng')).toMatch(/@tesseract\.js-data[\\/]eng[\\/]4\.0\.0_best_int$/);
    expect(languageData('xx-not-a-lang')).toBeNull();
    expect(languageData('klingon')).toBeNull();
  });

  it('300 dpi: character error ≤ 2 % against the text layer; ≥ 95 % of words boxed where poppler boxes them', {
    timeout: 120_000,
  }, async () => {
    const page = await engine.recognize(render(300));
    const { cer, wer } = errorRates(page);
    expect(cer).toBeLessThanOrEqual(0.02);
    expect(wer).toBeLessThanOrEqual(0.05);
    const boxes = boxAgreement(page, 300);
    expect(boxes.matched).toBeGreaterThan(300);
    expect(boxes.goodShare).toBeGreaterThanOrEqual(0.95);
    expect(page.confidence).toBeGreaterThan(80);
    // Every word's offsets point at its text in the page text.
    for (const w of page.words) expect(page.text.slice(w.start, w.end)).toBe(w.text);
  });

  it('150 dpi: character error ≤ 5 %', { timeout: 120_000 }, async () => {
    const page = await engine.recognize(render(150));
    expect(errorRates(page).cer).toBeLessThanOrEqual(0.05);
    expect(boxAgreement(page, 150).goodShare).toBeGreaterThanOrEqual(0.9);
  });

  it('a page scanned 3° askew: character error ≤ 3 %', { timeout: 120_000 }, async () => {
    const { createCanvas, loadImage } = await import('@napi-rs/canvas');
    const img = await loadImage(Buffer.from(render(300)));
    const canvas = createCanvas(img.width, img.height);
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, img.width, img.height);
    ctx.translate(img.width / 2, img.height / 2);
    ctx.rotate((3 * Math.PI) / 180);
    ctx.drawImage(img, -img.width / 2, -img.height / 2);
    const page = await engine.recognize(await canvas.encode('png'));
    expect(errorRates(page).cer).toBeLessThanOrEqual(0.03);
  });

  it('the file list says which pages were read by OCR, and flags the unsure ones', () => {
    expect(ocrNote([])).toBe('');
    expect(ocrNote([1, 2, 3, 5].map((page) => ({ page, confidence: page === 5 ? 61 : 95 })))).toBe(
      'read by OCR: pages 1-3, 5 (mean confidence 87%); page 5 under 80% — check the original',
    );
  });

  it('an upright page printed poorly (under 70 % sure) is read once, not again turned three ways', {
    timeout: 120_000,
  }, async () => {
    // Page 72 of this exhibit is a scan without a text layer that tesseract reads at about 68 %.
    const file = path.join(
      corpusDir,
      'cuad/full_contract_pdf/Part_III/Collaboration/FOUNDATIONMEDICINE,INC_02_02_2015-EX-10.2-Collaboration Agreement.PDF',
    );
    const pdfjs = await loadPdfJs();
    const task = pdfjs.getDocument({ data: new Uint8Array(readFileSync(file)), ...pdfjsDataOptions() });
    const doc = await task.promise;
    const images: Buffer[] = [];
    const counting = seeing(images);
    try {
      const read = await ocrPage(await doc.getPage(72), counting);
      expect(read.confidence).toBeLessThan(ORIENTATION_CHECK_CONFIDENCE);
      expect(read.text).toMatch(/Foundation Medicine/i);
      expect(images).toHaveLength(1);
    } finally {
      await task.destroy();
    }
  });

  it('a scan is read at its own resolution up to 300 dpi: a 150-dpi scan at 150 (not drawn at 300), a 100-dpi one at 150, a 300-dpi one at 300', {
    timeout: 180_000,
  }, async () => {
    const pdfjs = await loadPdfJs();
    let read150: OcrPage | undefined;
    for (const [scanned, drawn] of [
      [150, 150],
      [100, 150],
      [300, 300],
    ] as const) {
      // The top of page 1 at `scanned` dpi, on a page of its own size (so the scan is `scanned` dpi both ways).
      const image = await topOnly(render(scanned));
      const pdf = await PDFDocument.create();
      const png = await pdf.embedPng(image);
      pdf
        .addPage([(png.width * 72) / scanned, (png.height * 72) / scanned])
        .drawImage(png, { x: 0, y: 0, width: (png.width * 72) / scanned, height: (png.height * 72) / scanned });
      const task = pdfjs.getDocument({ data: await pdf.save(), ...pdfjsDataOptions() });
      const images: Buffer[] = [];
      // The 100-dpi scan's text is not checked, only the size it is drawn at: its image is kept
      // and answered with the 150-dpi read (an upright page), without reading it again.
      const counting =
        scanned === 100
          ? ({ recognize: async (bytes: Uint8Array) => (images.push(Buffer.from(bytes)), read150!) } as OcrEngine)
          : ({
              recognize: async (bytes: Uint8Array, signal?: AbortSignal) => {
                images.push(Buffer.from(bytes));
                const page = await engine.recognize(bytes, signal);
                if (scanned === 150) read150 ??= page;
                return page;
              },
            } as OcrEngine);
      try {
        const read = await ocrPage(await (await task.promise).getPage(1), counting);
        // The width of the image handed to the OCR engine, from its PNG header.
        expect(
          Math.abs(images[0]!.readUInt32BE(16) - (png.width * drawn) / scanned),
          `a ${scanned}-dpi scan`,
        ).toBeLessThanOrEqual(1);
        if (scanned >= 150) expect(read.text).toMatch(/wireless mesh networking technology/);
      } finally {
        await task.destroy();
      }
    }
  });

  it('a page drawing nothing but rules is not handed to OCR; a word, a speck or faint grey text beside the rule is', {
    timeout: 120_000,
  }, async () => {
    const pdfjs = await loadPdfJs();
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    const rule = (p: ReturnType<typeof pdf.addPage>) => {
      p.drawLine({ start: { x: 72, y: 60 }, end: { x: 540, y: 60 }, thickness: 0.75 });
      p.drawLine({ start: { x: 40, y: 100 }, end: { x: 40, y: 700 }, thickness: 2 });
    };
    rule(pdf.addPage([612, 792])); // 1: a footer line and a margin line, nothing else
    pdf.addPage([612, 792]); // 2: nothing at all
    const worded = pdf.addPage([612, 792]); // 3: the rules and a word
    rule(worded);
    worded.drawText('Exhibit', { x: 72, y: 700, size: 24, font });
    const speck = pdf.addPage([612, 792]); // 4: the rules and a speck
    rule(speck);
    speck.drawRectangle({ x: 300, y: 400, width: 1, height: 1, color: rgb(0, 0, 0) });
    const faint = pdf.addPage([612, 792]); // 5: the rules and light grey text
    rule(faint);
    faint.drawText('Confidential draft', { x: 72, y: 500, size: 28, font, color: rgb(0.85, 0.85, 0.85) });
    const task = pdfjs.getDocument({ data: await pdf.save(), ...pdfjsDataOptions() });
    const doc = await task.promise;
    try {
      const handed = async (n: number) => {
        const images: Buffer[] = [];
        const read = await ocrPage(await doc.getPage(n), seeing(images));
        return { images: images.length, read };
      };
      for (const n of [1, 2]) {
        const { images, read } = await handed(n);
        expect(images, `page ${n}`).toBe(0);
        expect(read).toEqual({ text: '', items: [], confidence: 0, words: 0 });
      }
      const word = await handed(3);
      expect(word.images).toBeGreaterThan(0);
      expect(word.read.text).toMatch(/Exhibit/);
      expect((await handed(4)).images).toBeGreaterThan(0);
      expect((await handed(5)).images).toBeGreaterThan(0);
    } finally {
      await task.destroy();
    }
  });

  it('a cancelled read rejects at once with the reason', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(engine.recognize(render(150), controller.signal)).rejects.toThrow('stop');
  });
});

describe.skipIf(!hasPoppler)(
  'ingest with OCR (on by default): a scanned page becomes searchable and citable with boxes on the words',
  () => {
    it('an image-only copy of a contract page: indexed, found by a phrase, cited with boxes where poppler boxes the original words', {
      timeout: 240_000,
    }, async () => {
      // The scan: the top of page 1 at 200 dpi as an image filling an A4 page, no text layer.
      const prefix = path.join(tmp, 'scan');
      execFileSync('pdftoppm', ['-r', '200', '-f', '1', '-l', '1', '-singlefile', '-png', PDF, prefix]);
      const pdf = await PDFDocument.create();
      const png = await pdf.embedPng(await topOnly(readFileSync(`${prefix}.png`)));
      pdf.addPage([595, 842]).drawImage(png, { x: 0, y: 0, width: 595, height: 842 });
      const folder = path.join(tmp, 'folder');
      mkdirSync(folder, { recursive: true });
      writeFileSync(path.join(folder, 'scanned affiliate agreement.pdf'), await pdf.save());

      const engine = await Engine.open({ home: tempHome() });
      try {
        const { id: caseId } = await engine.router.call('cases.create', { name: 'Scans' });
        await engine.router.call('ingest.start', { case_id: caseId, paths: [folder], wait: true });
        const { files } = await engine.router.call('files.list', { case_id: caseId });
        expect(files[0]).toMatchObject({ status: 'indexed' });
        // The list says the page was read by OCR, and how surely.
        const v = files[0]!.versions.at(-1)!;
        expect(v.ocr_pages).toEqual([{ page: 1, confidence: expect.any(Number) }]);
        expect(v.ocr_pages![0]!.confidence).toBeGreaterThan(80);
        expect(v.reason).toMatch(/^read by OCR: page 1 \(mean confidence \d+%\)$/);
        const res = await engine.router.call('search', {
          case_id: caseId,
          query: 'wireless mesh networking technology',
          mode: 'keyword',
          k: 3,
        });
        const hit = res.results[0]!;
        expect(hit.text).toMatch(/wireless mesh networking technology/);
        const phrase = 'wireless mesh networking technology';
        const { text } = await engine.router.call('files.read', { case_id: caseId, file_id: hit.file_id });
        const at = text.indexOf(phrase);
        const img = await engine.router.call('citations.page', {
          case_id: caseId,
          file_id: hit.file_id,
          page: 1,
          scale: 1,
          start: at,
          end: at + phrase.length,
        });
        expect(img.rects.length).toBeGreaterThan(0);
        // The boxes cover the phrase's words where poppler puts them in the original (same page size, points).
        const truth = popplerWords(PDF, 1);
        for (const word of phrase.split(' ')) {
          const t = truth.find((w) => w.word === word)!;
          const cx = (t.x0 + t.x1) / 2;
          const cy = (t.y0 + t.y1) / 2;
          expect(
            img.rects.some((r) => cx >= r.x && cx <= r.x + r.width && cy >= r.y && cy <= r.y + r.height),
            word,
          ).toBe(true);
        }
      } finally {
        await engine.close();
      }
    });
  },
);

/** An image-only PDF of the first `pages` pages of `pdf`, drawn at `dpi` (a "scan"); the pages in `tops` keep only their top (topOnly). */
async function scanOf(pdf: string, pages: number, dpi: number, tops: number[] = []): Promise<Uint8Array> {
  const out = await PDFDocument.create();
  for (let n = 1; n <= pages; n++) {
    const prefix = path.join(tmp, `scan-of-${n}-${dpi}`);
    execFileSync('pdftoppm', ['-r', String(dpi), '-f', String(n), '-l', String(n), '-singlefile', '-png', pdf, prefix]);
    const image = readFileSync(`${prefix}.png`);
    const png = await out.embedPng(tops.includes(n) ? await topOnly(image) : image);
    out.addPage([612, 792]).drawImage(png, { x: 0, y: 0, width: 612, height: 792 });
  }
  return out.save();
}

describe.skipIf(!hasPoppler)('OCR in a case: progress by page, resume at the page, the case setting', () => {
  it('says which page OCR reads; a cancelled read resumes at the page it stopped on, not at page 1', {
    timeout: 300_000,
  }, async () => {
    const folder = path.join(tmp, 'resume');
    mkdirSync(folder, { recursive: true });
    // Pages 1 and 3 only their tops (page 1 holds the phrase searched for); page 2, the one read
    // when the cancel comes, whole, so the cancel lands while it is being read.
    writeFileSync(path.join(folder, 'scanned.pdf'), await scanOf(PDF, 3, 150, [1, 3]));
    const engine = await Engine.open({ home: tempHome() });
    try {
      const { id: caseId } = await engine.router.call('cases.create', { name: 'Resume' });
      const seen: { page: number; pages: number | null }[] = [];
      let cancelled = false;
      const off = engine.events.on('ingest.progress', (p) => {
        for (const c of p.current)
          if (c.ocr_page !== undefined && seen.at(-1)?.page !== c.ocr_page)
            seen.push({ page: c.ocr_page, pages: c.pages });
        if (!cancelled && p.current.some((c) => c.ocr_page === 2)) {
          cancelled = true;
          void engine.router.call('ingest.cancel', { case_id: caseId });
        }
      });
      const first = await engine.router.call('ingest.start', { case_id: caseId, paths: [folder], wait: true });
      expect(first).toMatchObject({ state: 'cancelled' });
      // "OCR page 1 of 3", then page 2, when the cancel came.
      expect(seen.slice(0, 2)).toEqual([
        { page: 1, pages: 3 },
        { page: 2, pages: 3 },
      ]);
      seen.length = 0;
      const { resumed } = await engine.router.call('ingest.resume', { case_id: caseId });
      off();
      expect(resumed[0]!.results[0]).toMatchObject({ name: 'scanned.pdf', status: 'indexed' });
      // Page 1 was kept: the resumed read goes on from the page that was cut off (page 2, unless
      // page 2 had just finished when the cancel arrived).
      expect(seen.map((s) => s.page)).not.toContain(1);
      expect(seen.at(-1)?.page).toBe(3);
      const { files } = await engine.router.call('files.list', { case_id: caseId });
      expect(files[0]!.versions[0]!.ocr_pages!.map((p) => p.page)).toEqual([1, 2, 3]);
      const hit = (
        await engine.router.call('search', {
          case_id: caseId,
          query: 'wireless mesh networking technology',
          mode: 'keyword',
          k: 1,
        })
      ).results[0];
      expect(hit?.pages[0]).toBe(1);
    } finally {
      await engine.close();
    }
  });

  it('a case with OCR turned off keeps scans as "needs OCR"; languages are the installed ones', {
    timeout: 120_000,
  }, async () => {
    const folder = path.join(tmp, 'off');
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'scanned.pdf'), await scanOf(PDF, 1, 100, [1]));
    const engine = await Engine.open({ home: tempHome() });
    try {
      const info = await engine.router.call('app.info', {});
      expect(info.ocr).toEqual({ available: true, languages: ['eng'] });
      const created = await engine.router.call('cases.create', { name: 'No OCR' });
      expect(created.ocr).toEqual({ enabled: true, language: 'eng' });
      await expect(
        engine.router.call('cases.setOcr', { case_id: created.id, language: 'klingon' }),
      ).rejects.toMatchObject({
        code: 'invalid_input',
        message: 'No OCR language "klingon" is installed (installed: eng).',
      });
      const off = await engine.router.call('cases.setOcr', { case_id: created.id, enabled: false });
      expect(off.ocr).toEqual({ enabled: false, language: 'eng' });
      const run = await engine.router.call('ingest.start', { case_id: created.id, paths: [folder], wait: true });
      if (!('results' in run)) throw new Error('expected results');
      expect(run.results[0]).toMatchObject({
        status: 'needs_ocr',
        reason: 'scanned pages without a text layer — turn on OCR in the case settings to make it searchable',
      });
      // Turned on again, a retry reads it.
      await engine.router.call('cases.setOcr', { case_id: created.id, enabled: true });
      const retried = await engine.router.call('files.retry', {
        case_id: created.id,
        file_id: run.results[0]!.file_id,
      });
      if (!('results' in retried)) throw new Error('expected results');
      expect(retried.results[0]).toMatchObject({
        status: 'indexed',
        reason: expect.stringMatching(/^read by OCR: page 1/),
      });
    } finally {
      await engine.close();
    }
  });

  it('a scan under a stamp ("Page 1") or under a layer of garbage is read by OCR; a typed page keeps its text layer', {
    timeout: 300_000,
  }, async () => {
    const folder = path.join(tmp, 'weak-layers');
    mkdirSync(folder, { recursive: true });
    const prefix = path.join(tmp, 'weak');
    execFileSync('pdftoppm', ['-r', '150', '-f', '1', '-l', '1', '-singlefile', '-png', PDF, prefix]);
    const top = await topOnly(readFileSync(`${prefix}.png`));
    const scanWith = async (layer: string, opacity: number) => {
      const pdf = await PDFDocument.create();
      const png = await pdf.embedPng(top);
      const page = pdf.addPage([612, 792]);
      page.drawImage(png, { x: 0, y: 0, width: 612, height: 792 });
      page.drawText(layer, { x: 20, y: 10, size: 6, opacity });
      return pdf.save();
    };
    // A Bates-style stamp printed on the scan; a scanner's unreadable hidden text layer.
    writeFileSync(path.join(folder, 'stamped.pdf'), await scanWith('LKPL 000123', 1));
    writeFileSync(
      path.join(folder, 'garbage.pdf'),
      await scanWith('Qxzrt wrtpl fghjk mnbvc xzlkj ppqrs tttv bcdfg hjklm', 0),
    );
    writeFileSync(path.join(folder, 'typed.pdf'), readFileSync(PDF));
    // A few typed words and no image (a cover sheet): a short text, not a stamp on a scan.
    const cover = await PDFDocument.create();
    cover.addPage([612, 792]).drawText('EXHIBIT B', { x: 250, y: 400, size: 24 });
    writeFileSync(path.join(folder, 'cover.pdf'), await cover.save());
    const engine = await Engine.open({ home: tempHome() });
    try {
      const { id: caseId } = await engine.router.call('cases.create', { name: 'Layers' });
      await engine.router.call('ingest.start', { case_id: caseId, paths: [folder], wait: true });
      const { files } = await engine.router.call('files.list', { case_id: caseId });
      const v = (name: string) => files.find((f) => f.name === name)!.versions[0]!;
      for (const name of ['stamped.pdf', 'garbage.pdf']) {
        expect(v(name), name).toMatchObject({
          status: 'indexed',
          ocr_pages: [{ page: 1, confidence: expect.any(Number) }],
        });
        const { text } = await engine.router.call('files.read', {
          case_id: caseId,
          file_id: files.find((f) => f.name === name)!.id,
        });
        expect(text, name).toMatch(/wireless mesh networking technology/);
        expect(text, name).not.toMatch(/Qxzrt/);
      }
      for (const name of ['typed.pdf', 'cover.pdf']) {
        expect(v(name), name).toMatchObject({ status: 'indexed' });
        expect(v(name).ocr_pages, name).toBeUndefined();
      }
      const cover = await engine.router.call('files.read', {
        case_id: caseId,
        file_id: files.find((f) => f.name === 'cover.pdf')!.id,
      });
      expect(cover.text).toBe('EXHIBIT B');
    } finally {
      await engine.close();
    }
  });

  it('a page scanned sideways is read turned upright, with boxes on its words as the page shows', {
    timeout: 300_000,
  }, async () => {
    const folder = path.join(tmp, 'sideways');
    mkdirSync(folder, { recursive: true });
    // The top of page 1 (A4) at 150 dpi, turned 90° clockwise, on a landscape A4 page (842 × 595 pt).
    const prefix = path.join(tmp, 'sideways');
    execFileSync('pdftoppm', ['-r', '150', '-f', '1', '-l', '1', '-singlefile', '-png', PDF, prefix]);
    const { createCanvas, loadImage } = await import('@napi-rs/canvas');
    const img = await loadImage(await topOnly(readFileSync(`${prefix}.png`)));
    const canvas = createCanvas(img.height, img.width);
    const ctx = canvas.getContext('2d');
    ctx.translate(img.height, 0);
    ctx.rotate(Math.PI / 2);
    ctx.drawImage(img, 0, 0);
    const pdf = await PDFDocument.create();
    const png = await pdf.embedPng(await canvas.encode('png'));
    pdf.addPage([842, 595]).drawImage(png, { x: 0, y: 0, width: 842, height: 595 });
    writeFileSync(path.join(folder, 'sideways.pdf'), await pdf.save());
    const engine = await Engine.open({ home: tempHome() });
    try {
      const { id: caseId } = await engine.router.call('cases.create', { name: 'Sideways' });
      await engine.router.call('ingest.start', { case_id: caseId, paths: [folder], wait: true });
      const [file] = (await engine.router.call('files.list', { case_id: caseId })).files;
      expect(file!.versions[0]!.ocr_pages![0]!.confidence).toBeGreaterThan(80);
      const phrase = 'wireless mesh networking technology';
      const { text } = await engine.router.call('files.read', { case_id: caseId, file_id: file!.id });
      const at = text.indexOf(phrase);
      expect(at).toBeGreaterThanOrEqual(0);
      const page = await engine.router.call('citations.page', {
        case_id: caseId,
        file_id: file!.id,
        page: 1,
        scale: 1,
        start: at,
        end: at + phrase.length,
      });
      // Where poppler puts each word on the upright original (x, y from the top), turned 90° clockwise: (842 − y, x).
      for (const word of phrase.split(' ')) {
        const t = popplerWords(PDF, 1).find((w) => w.word === word)!;
        const [cx, cy] = [842 - (t.y0 + t.y1) / 2, (t.x0 + t.x1) / 2];
        expect(
          page.rects.some((r) => cx >= r.x && cx <= r.x + r.width && cy >= r.y && cy <= r.y + r.height),
          word,
        ).toBe(true);
      }
    } finally {
      await engine.close();
    }
  });
});
