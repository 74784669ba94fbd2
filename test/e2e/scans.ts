/**
 * Scans made in the test from a typed PDF of the corpus, as test/ingest/ocr.test.ts makes them:
 * each page drawn by poppler (`pdftoppm`) and put back, as a picture only, on a page of the same
 * size with pdf-lib. The typed original stays the oracle for where the words are.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';

/** Width and height in points of page `page` of `pdf` (pdfinfo). */
export function pageSize(pdf: string, page: number): [number, number] {
  const info = execFileSync('pdfinfo', ['-f', String(page), '-l', String(page), pdf], { encoding: 'utf8' });
  const m =
    new RegExp(`Page\\s+${page} size:\\s+([\\d.]+) x ([\\d.]+) pts`).exec(info) ??
    /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(info);
  if (!m) throw new Error(`pdfinfo gave no page size for page ${page} of ${pdf}`);
  return [Number(m[1]), Number(m[2])];
}

/**
 * The page image `png` with everything below `fraction` of its height painted white, from the first
 * row there without ink (a gap between two lines, so no line is cut in two): the same page at the
 * same size and resolution, with only its top words left for OCR to read.
 */
export async function topOnly(png: Uint8Array, fraction: number): Promise<Buffer> {
  const { createCanvas, loadImage } = await import('@napi-rs/canvas');
  const img = await loadImage(Buffer.from(png));
  const canvas = createCanvas(img.width, img.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const { data } = ctx.getImageData(0, 0, img.width, img.height);
  const inked = (y: number): boolean => {
    for (let i = y * img.width * 4, end = i + img.width * 4; i < end; i += 4)
      if (data[i]! < 200 || data[i + 1]! < 200 || data[i + 2]! < 200) return true;
    return false;
  };
  let cut = Math.round(img.height * fraction);
  while (cut < img.height && inked(cut)) cut++;
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, cut, img.width, img.height - cut);
  return canvas.encode('png');
}

/**
 * Pages 1..`pages` of `pdf` drawn at `dpi` as an image-only PDF: no text layer, every page a picture.
 * The pages listed in `tops` keep only their top `fraction` (topOnly): fewer words to read where a
 * test needs a page read, not its every word.
 */
export async function scanOf(
  pdf: string,
  pages: number,
  dpi = 150,
  { tops = [], fraction = 0.4 }: { tops?: number[]; fraction?: number } = {},
): Promise<Uint8Array> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-scan-'));
  try {
    const out = await PDFDocument.create();
    for (let n = 1; n <= pages; n++) {
      const prefix = path.join(tmp, `page-${n}`);
      execFileSync('pdftoppm', [
        '-r',
        String(dpi),
        '-f',
        String(n),
        '-l',
        String(n),
        '-singlefile',
        '-png',
        pdf,
        prefix,
      ]);
      const image = readFileSync(`${prefix}.png`);
      const png = await out.embedPng(tops.includes(n) ? await topOnly(image, fraction) : image);
      const [width, height] = pageSize(pdf, n);
      out.addPage([width, height]).drawImage(png, { x: 0, y: 0, width, height });
    }
    return await out.save();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
