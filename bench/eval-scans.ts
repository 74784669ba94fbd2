/**
 * `npm run eval:scans`: does OCR make scanned contracts as findable as their text versions? The
 * cuad-clauses questions (bench/cuad-clauses.ts) of the shortest CUAD contracts that have at least
 * two questions are asked against two cases built through the real pipeline with the real
 * embedding model: the contracts as published (text PDFs), and scanned copies of them (every
 * page drawn by poppler at --dpi, default 200, rebuilt as an image-only PDF of the same page size,
 * so the case reads them by OCR). Reports recall@10 of the default search on each and the
 * difference (target: within 0.1), and the mean OCR confidence; writes bench/scan-results.json.
 * Options: --docs N (contracts, default 8), --dpi D, --home DIR (kept between runs; default a
 * temporary folder).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PDFDocument } from 'pdf-lib';
import { Engine } from '../src/core/engine';
import { installTestModels } from '../test/helpers/models';
import { cuadClauses, holdsClause, type ClauseQuestion } from './cuad-clauses';

const { values } = parseArgs({
  options: { docs: { type: 'string' }, dpi: { type: 'string' }, home: { type: 'string' } },
});
const DOCS = Number(values.docs ?? 8);
const DPI = Number(values.dpi ?? 200);
const CUAD = path.resolve(import.meta.dirname, '..', '..', 'shared', 'corpus', 'cuad');
const home = values.home ? path.resolve(values.home) : mkdtempSync(path.join(os.tmpdir(), 'casefile-eval-scans-'));

const pagesOf = (pdf: string) =>
  Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [path.join(CUAD, pdf)], { encoding: 'utf8' }))?.[1] ?? 0);
const sizeOf = (pdf: string, page: number): [number, number] => {
  const m = /Page\s+\d+ size:\s+([\d.]+) x ([\d.]+)/.exec(
    execFileSync('pdfinfo', ['-f', String(page), '-l', String(page), path.join(CUAD, pdf)], { encoding: 'utf8' }),
  )!;
  return [Number(m[1]), Number(m[2])];
};

/** The contracts: the shortest with at least two questions. */
const byPdf = new Map<string, ClauseQuestion[]>();
for (const q of cuadClauses()) byPdf.set(q.pdf, [...(byPdf.get(q.pdf) ?? []), q]);
const chosen = [...byPdf.entries()]
  .filter(([, qs]) => qs.length >= 2)
  .map(([pdf, qs]) => ({ pdf, qs, pages: pagesOf(pdf) }))
  .sort((a, b) => a.pages - b.pages || a.pdf.localeCompare(b.pdf))
  .slice(0, DOCS);

/** An image-only copy of `pdf`: each page drawn at DPI, on a page of its own size. */
async function scanned(pdf: string, pages: number, work: string): Promise<Uint8Array> {
  const out = await PDFDocument.create();
  for (let n = 1; n <= pages; n++) {
    const prefix = path.join(work, `p${n}`);
    execFileSync('pdftoppm', [
      '-r',
      String(DPI),
      '-f',
      String(n),
      '-l',
      String(n),
      '-singlefile',
      '-png',
      path.join(CUAD, pdf),
      prefix,
    ]);
    const [w, h] = sizeOf(pdf, n);
    out
      .addPage([w, h])
      .drawImage(await out.embedPng(readFileSync(`${prefix}.png`)), { x: 0, y: 0, width: w, height: h });
  }
  return out.save();
}

async function caseOf(
  engine: Engine,
  name: string,
  write: (file: string, pdf: string, pages: number) => Promise<void>,
): Promise<string> {
  const existing = (await engine.cases.list()).find((c) => c.name === name);
  if (existing) return existing.id;
  const folder = path.join(home, 'drops', name);
  for (const c of chosen) {
    const file = path.join(folder, c.pdf);
    mkdirSync(path.dirname(file), { recursive: true });
    await write(file, c.pdf, c.pages);
  }
  const { id } = await engine.router.call('cases.create', { name });
  const t0 = performance.now();
  await engine.router.call('ingest.start', { case_id: id, paths: [folder] });
  console.log(`${name}: ingested in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return id;
}

await installTestModels(home).catch(() => undefined); // already there when --home is reused
const engine = await Engine.open({ home });
try {
  const work = mkdtempSync(path.join(os.tmpdir(), 'casefile-scan-pages-'));
  const text = await caseOf(engine, 'eval text', async (file, pdf) =>
    writeFileSync(file, readFileSync(path.join(CUAD, pdf))),
  );
  const scans = await caseOf(engine, `eval scans ${DPI} dpi`, async (file, pdf, pages) =>
    writeFileSync(file, await scanned(pdf, pages, work)),
  );
  rmSync(work, { recursive: true, force: true });

  const recall = async (caseId: string) => {
    let hits = 0;
    let n = 0;
    for (const c of chosen) {
      for (const q of c.qs) {
        const res = await engine.router.call('search', { case_id: caseId, query: q.query, k: 10 });
        n++;
        // The folder keeps the corpus's layout, so a result's file name is the question's contract path.
        if (res.results.some((r) => holdsClause({ file: r.file_name, pages: r.pages, text: r.text }, q))) hits++;
      }
    }
    return { recall: hits / n, questions: n };
  };
  const t = await recall(text);
  const s = await recall(scans);
  const files = (await engine.router.call('files.list', { case_id: scans })).files;
  const conf = files.flatMap((f) => f.versions.at(-1)?.ocr_pages ?? []).map((p) => p.confidence);
  const result = {
    contracts: chosen.length,
    pages: chosen.reduce((a, c) => a + c.pages, 0),
    questions: t.questions,
    dpi: DPI,
    recall_at_10_text: Number(t.recall.toFixed(3)),
    recall_at_10_scans: Number(s.recall.toFixed(3)),
    difference: Number((t.recall - s.recall).toFixed(3)),
    target: 'difference ≤ 0.1',
    ocr_pages: conf.length,
    mean_ocr_confidence: conf.length ? Math.round(conf.reduce((a, b) => a + b, 0) / conf.length) : null,
    files_read_by_ocr: files.filter((f) => f.versions.at(-1)?.ocr_pages?.length).length,
  };
  console.log(JSON.stringify(result, null, 2));
  writeFileSync(path.join(import.meta.dirname, 'scan-results.json'), `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await engine.close();
  if (!values.home) rmSync(home, { recursive: true, force: true });
}
