/**
 * Citation boxes against poppler (`pdftotext -bbox`): IoU of our box with poppler's for every word
 * that occurs once on the page (≥3 characters), on the first 12 CUAD PDFs with a text layer
 * (MANIFEST order; SET=all: every PDF of the corpus with a text layer; MATCH=s: paths containing s), pages 1–3 (PAGES=n).
 * Unrotated pages whose view box starts at 0,0 only (poppler reports the displayed page).
 * Prints median / min / share under 0.8 (and the same for the horizontal and vertical overlaps
 * alone). Run: [FILES=n] [PAGES=n] [SET=all] [MATCH=s] [VERBOSE=1] node --import tsx bench/geometry-vs-poppler.ts
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { spanToRects } from '../src/core/citations/geometry';
import { parseFile } from '../src/core/reader/parse';
import { boxIou, popplerWordsUserSpace } from '../test/helpers/poppler';

const CORPUS = path.resolve(import.meta.dirname, '..', '..', 'shared', 'corpus');
const FILES = Number(process.env.FILES ?? 12);
const PAGES = Number(process.env.PAGES ?? 3);

function files(): string[] {
  const rows = readFileSync(path.join(CORPUS, 'MANIFEST.tsv'), 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.split('\t'));
  const all = process.env.SET === 'all';
  return rows
    .filter(
      (r) => r[2] === 'pdf' && (all ? r[7] === 'yes' : r[0]?.startsWith('cuad/') && r[7] !== 'none' && r[7] !== 'no'),
    )
    .filter((r) => !process.env.MATCH || r[0]!.includes(process.env.MATCH))
    .slice(0, FILES)
    .map((r) => r[0]!);
}

function wholeWord(text: string, word: string): number[] {
  const out: number[] = [];
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
    if (
      (at === 0 || /\s/.test(text[at - 1]!)) &&
      (at + word.length === text.length || /\s/.test(text[at + word.length]!))
    )
      out.push(at);
  }
  return out;
}

const overlap = (a0: number, a1: number, b0: number, b1: number) =>
  Math.max(0, Math.min(a1, b1) - Math.max(a0, b0)) / (Math.max(a1, b1) - Math.min(a0, b0));
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))]!;

const all: number[] = [];
const hx: number[] = [];
const vy: number[] = [];
const worst: string[] = [];
let docs = 0;
let pagesChecked = 0;
for (const rel of files()) {
  const file = path.join(CORPUS, rel);
  const doc = (await parseFile({ bytes: readFileSync(file), name: 'x.pdf', maxBytes: Infinity })).doc;
  if (doc?.index.kind !== 'pdf') continue;
  docs++;
  for (let page = 1; page <= Math.min(PAGES, doc.index.kind === 'pdf' ? doc.index.pages.length : 0); page++) {
    const geo = doc.index.pages[page - 1]!;
    if (geo.rotate !== 0 || geo.view[0] !== 0 || geo.view[1] !== 0) continue;
    pagesChecked++;
    const pageText = doc.text.slice(geo.start, geo.end);
    const words = popplerWordsUserSpace(file, page, geo.view[3]);
    const counts = new Map<string, number>();
    for (const w of words) counts.set(w.word, (counts.get(w.word) ?? 0) + 1);
    for (const w of words) {
      if (counts.get(w.word) !== 1 || w.word.length < 3) continue;
      // The same whole word (whitespace around it) exactly once in our text.
      const hits = wholeWord(pageText, w.word);
      if (hits.length !== 1) continue;
      const at = hits[0]!;
      const start = geo.start + at;
      const boxes = spanToRects(doc.index, start, start + w.word.length, doc.text);
      if (boxes.length !== 1 || boxes[0]!.rects.length !== 1) continue;
      const r = boxes[0]!.rects[0]!;
      const iou = boxIou(w, r);
      all.push(iou);
      hx.push(overlap(w.x0, w.x1, r.x, r.x + r.width));
      vy.push(overlap(w.y0, w.y1, r.y, r.y + r.height));
      if (iou < 0.8 && process.env.VERBOSE)
        worst.push(
          `${iou.toFixed(2)} ${path.basename(rel).slice(0, 24)} p${page} "${w.word}" poppler y ${w.y0.toFixed(1)}–${w.y1.toFixed(1)} ours ${r.y.toFixed(1)}–${(r.y + r.height).toFixed(1)} x ${w.x0.toFixed(1)}/${r.x.toFixed(1)}`,
        );
    }
  }
}
const line = (name: string, xs: number[]) =>
  `${name}: median ${q(xs, 0.5).toFixed(3)}  min ${xs.reduce((m, x) => Math.min(m, x), Infinity).toFixed(3)}  under 0.8 ${xs.filter((x) => x < 0.8).length} (${((100 * xs.filter((x) => x < 0.8).length) / xs.length).toFixed(2)}%)`;
console.log(`${docs} PDFs, ${pagesChecked} pages, ${all.length} words`);
console.log(line('IoU', all));
console.log(line('horizontal', hx));
console.log(line('vertical', vy));
if (worst.length) console.log(worst.join('\n'));
