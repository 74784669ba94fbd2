/**
 * Measures the text-layer rules of src/core/reader/text-quality.ts over the corpus: every page of
 * every PDF of ../shared/corpus that pdf.js opens, its text layer judged as OCR at ingest would
 * judge it. A typed page judged "sparse" or "garbage" would be read by OCR for nothing (a false
 * alarm); the scans' pages should be judged so. Prints the pages flagged per file, and totals.
 * Run: node --import tsx bench/text-quality.ts [--verbose]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { weakTextLayer, wordCounts } from '../src/core/reader/text-quality';
import { loadPdfJs, pdfjsDataOptions } from '../src/core/util/pdfjs';

const CORPUS = path.resolve(import.meta.dirname, '..', '..', 'shared', 'corpus');
const verbose = process.argv.includes('--verbose');
const rows = readFileSync(path.join(CORPUS, 'MANIFEST.tsv'), 'utf8')
  .split('\n')
  .slice(1)
  .map((l) => l.split('\t'))
  .filter((r) => r[2] === 'pdf');
const pdfjs = await loadPdfJs();
const IMAGE_OPS = new Set([
  pdfjs.OPS.paintImageXObject,
  pdfjs.OPS.paintInlineImageXObject,
  pdfjs.OPS.paintImageMaskXObject,
  pdfjs.OPS.paintImageXObjectRepeat,
]);
let pages = 0;
let textPages = 0;
const flagged: { file: string; page: number; why: string; sample: string }[] = [];
for (const [rel] of rows) {
  let doc;
  try {
    doc = await pdfjs.getDocument({
      data: new Uint8Array(readFileSync(path.join(CORPUS, rel!))),
      ...pdfjsDataOptions(),
      verbosity: 0,
    }).promise;
  } catch {
    continue; // encrypted or damaged: not a text layer to judge
  }
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const text = (await page.getTextContent()).items
      .map((i) => ('str' in i ? i.str + (i.hasEOL ? '\n' : ' ') : ''))
      .join('');
    pages++;
    if (!text.trim()) continue; // no layer at all: OCR'd anyway
    textPages++;
    let hasImage = false;
    if (text.replace(/\s+/g, '').length < 20) {
      const ops = await page.getOperatorList();
      hasImage = ops.fnArray.some((f) => IMAGE_OPS.has(f));
    }
    const why = weakTextLayer(text, hasImage);
    if (why)
      flagged.push({
        file: rel!,
        page: n,
        why,
        sample: `${text.replace(/\s+/g, ' ').trim().slice(0, 80)} (${JSON.stringify(wordCounts(text))})`,
      });
    page.cleanup();
  }
  await doc.loadingTask.destroy();
}
const byFile = new Map<string, typeof flagged>();
for (const f of flagged) byFile.set(f.file, [...(byFile.get(f.file) ?? []), f]);
for (const [file, fs] of byFile) {
  console.log(`${file}: ${fs.length} page(s) ${fs.map((f) => `${f.page}:${f.why}`).join(' ')}`);
  if (verbose) for (const f of fs) console.log(`    p${f.page} ${f.sample}`);
}
console.log(
  JSON.stringify({
    pdfs: rows.length,
    pages,
    pagesWithText: textPages,
    flagged: flagged.length,
    sparse: flagged.filter((f) => f.why === 'sparse').length,
    garbage: flagged.filter((f) => f.why === 'garbage').length,
  }),
);
