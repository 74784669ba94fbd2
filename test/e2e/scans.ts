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
  const m = new RegExp(`Page\\s+${page} size:\\s+([\\d.]+) x ([\\d.]+) pts`).exec(info) ?? /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(info);
  if (!m) throw new Error(`pdfinfo gave no page size for page ${page} of ${pdf}`);
  return [Number(m[1]), Number(m[2])];
}

/** Pages 1..`pages` of `pdf` drawn at `dpi` as an image-only PDF: no text layer, every page a picture. */
export async function scanOf(pdf: string, pages: number, dpi = 150): Promise<Uint8Array> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-scan-'));
  try {
    const out = await PDFDocument.create();
    for (let n = 1; n <= pages; n++) {
      const prefix = path.join(tmp, `page-${n}`);
      execFileSync('pdftoppm', ['-r', String(dpi), '-f', String(n), '-l', String(n), '-singlefile', '-png', pdf, prefix]);
      const png = await out.embedPng(readFileSync(`${prefix}.png`));
      const [width, height] = pageSize(pdf, n);
      out.addPage([width, height]).drawImage(png, { x: 0, y: 0, width, height });
    }
    return await out.save();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
