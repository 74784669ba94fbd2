/**
 * `node --import tsx bench/eval-outline.ts`: the outline detector (src/core/text/outline.ts)
 * against the hand-labelled outlines in bench/data/outline-labels/ (10 documents of
 * ../shared/corpus: contracts and opinions, PDF and DOCX). Each document is parsed by the real
 * ingest parser (pdf.js, mammoth); a detected heading matches a label on the same page (any page for
 * DOCX) when one's printed line begins with the other's (case, spaces and look-alike punctuation
 * ignored). Prints precision and recall per document and overall, and merges
 * `outline.precision` / `outline.recall` into bench/results.json.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { detectOutline } from '../src/core/text/outline';
import { parseFile } from '../src/core/reader/parse';
import { mergeResults, printTable } from './run';

const here = import.meta.dirname;
const corpus = path.resolve(here, '..', '..', 'shared', 'corpus');
const labelsDir = path.join(here, 'data', 'outline-labels');

interface Label {
  page: number | null;
  text: string;
}

const norm = (s: string) =>
  s
    .normalize('NFKC')
    .replace(/\u037e/g, ';')
    .replace(/[“”]/g, '"')
    .replace(/[‘’]/g, "'")
    .replace(/\s+/g, '')
    .toLowerCase();
const begins = (a: string, b: string) =>
  a.length > 0 && b.length > 0 && a.startsWith(b.slice(0, Math.min(40, b.length)));

export async function evaluateOutline(
  verbose = false,
): Promise<{ precision: number; recall: number; rows: string[][] }> {
  const rows: string[][] = [];
  let detected = 0;
  let labelled = 0;
  let matchedDetected = 0;
  let matchedLabels = 0;
  for (const f of readdirSync(labelsDir)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    const spec = JSON.parse(readFileSync(path.join(labelsDir, f), 'utf8')) as { file: string; headings: Label[] };
    const bytes = new Uint8Array(readFileSync(path.join(corpus, spec.file)));
    const parsed = await parseFile({ bytes, name: path.basename(spec.file), maxBytes: 200 << 20 });
    if (!parsed.doc) throw new Error(`${spec.file}: ${parsed.status} (${parsed.reason})`);
    const { text, index } = parsed.doc;
    const found = detectOutline(text, index.pages.length ? index.pages.map((p) => p.start) : [0], parsed.doc.html);
    const used = new Set<number>();
    let hits = 0;
    for (const h of found) {
      const line = norm(text.slice(h.start, h.end));
      const i = spec.headings.findIndex(
        (l, j) =>
          !used.has(j) &&
          (l.page === null || l.page === h.page) &&
          (begins(line, norm(l.text)) || begins(norm(l.text), line)),
      );
      if (i >= 0) {
        used.add(i);
        hits++;
      } else if (verbose) console.log(`  + ${f.slice(0, 30)} p${h.page}: ${line.slice(0, 80)}`);
    }
    if (verbose)
      spec.headings.forEach(
        (l, j) => used.has(j) || console.log(`  - ${f.slice(0, 30)} p${l.page}: ${norm(l.text).slice(0, 80)}`),
      );
    detected += found.length;
    labelled += spec.headings.length;
    matchedDetected += hits;
    matchedLabels += used.size;
    rows.push([
      f.replace(/\.json$/, '').slice(0, 48),
      String(spec.headings.length),
      String(found.length),
      (hits / Math.max(1, found.length)).toFixed(2),
      (used.size / Math.max(1, spec.headings.length)).toFixed(2),
    ]);
  }
  return { precision: matchedDetected / Math.max(1, detected), recall: matchedLabels / Math.max(1, labelled), rows };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const r = await evaluateOutline(process.argv.includes('--verbose'));
  const header = ['document', 'labels', 'found', 'precision', 'recall'];
  const widths = header.map((h, i) => Math.max(h.length, ...r.rows.map((row) => row[i]!.length)));
  console.log([header, ...r.rows].map((row) => row.map((c, i) => c.padEnd(widths[i]!)).join('  ')).join('\n'));
  console.log(`\noverall: precision ${r.precision.toFixed(3)}, recall ${r.recall.toFixed(3)}`);
  const note = `${r.rows.length} hand-labelled documents (bench/data/outline-labels), detected headings matched by page and printed line`;
  const metrics = {
    'outline.precision': { value: Number(r.precision.toFixed(4)), unit: 'ratio', note },
    'outline.recall': { value: Number(r.recall.toFixed(4)), unit: 'ratio', note },
  };
  await mergeResults(metrics);
  printTable(metrics);
}
