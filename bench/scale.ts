/**
 * `npm run bench scale`: does ingest stay linear as a case grows? The e2e set (the 94 CUAD PDFs,
 * 1,969 pages) and a synthetic case of about 20,000 pages made of the same PDFs repeated under
 * other names (each copy a distinct file: a comment after its %%EOF), each ingested from drop to
 * searchable by its words (`searchable: true`: the vectors are the e2e group's, and 80,000
 * passages' worth would take an hour on 2 cores). Reports pages/s of both and their ratio
 * (target ≥ 0.8), and keyword-search latency (median, p95) on the big case.
 * CASEFILE_BENCH_SCALE_PAGES sets the big case's size (default 20,000).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../src/core/engine';
import { e2eSet, ingestSearchable } from './e2e';
import type { Metrics } from './run';

const QUERIES = [
  'governing law',
  'termination for convenience',
  'limitation of liability',
  'exclusivity',
  'non-compete',
  'change of control',
  'anti-assignment',
  'audit rights',
  'insurance',
  'most favored nation',
  'renewal term',
  'notice period to terminate renewal',
  'warranty duration',
  'uncapped liability',
  'minimum commitment',
  'ip ownership assignment',
  'license grant',
  'revenue sharing',
  'liquidated damages',
  'covenant not to sue',
];

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export async function scaleBench(): Promise<Metrics> {
  const { files, pages } = e2eSet();
  const target = Number(process.env.CASEFILE_BENCH_SCALE_PAGES) || 20_000;
  const copies = Math.max(2, Math.ceil(target / pages));
  const root = mkdtempSync(path.join(os.tmpdir(), 'casefile-bench-scale-'));
  try {
    const small = path.join(root, 'small');
    const big = path.join(root, 'big');
    for (const [dir, n] of [
      [small, 1],
      [big, copies],
    ] as const) {
      for (let k = 0; k < n; k++) {
        mkdirSync(path.join(dir, `set-${k}`), { recursive: true });
        for (const f of files)
          writeFileSync(
            path.join(dir, `set-${k}`, path.basename(f)),
            Buffer.concat([readFileSync(f), Buffer.from(`\n% copy ${k}\n`)]),
          );
      }
    }
    // One engine for both, its readers started and warm (a first file read) before either is timed.
    const engine = await Engine.open({ home: path.join(root, 'home') });
    const times: number[] = [];
    let one: { seconds: number; caseId: string };
    let many: { seconds: number; caseId: string };
    try {
      const warm = path.join(root, 'warm');
      mkdirSync(warm);
      writeFileSync(path.join(warm, 'first.pdf'), readFileSync(files[0]!));
      await ingestSearchable(engine, [warm], 'Scale warm-up');
      one = await ingestSearchable(engine, [small], 'Scale small');
      many = await ingestSearchable(engine, [big], 'Scale big');
      for (let round = 0; round < 3; round++) {
        for (const query of QUERIES) {
          const t0 = performance.now();
          await engine.router.call('search', { case_id: many.caseId, query, mode: 'keyword', k: 10 });
          if (round > 0) times.push(performance.now() - t0);
        }
      }
    } finally {
      await engine.close();
    }
    times.sort((a, b) => a - b);
    const smallRate = pages / one.seconds;
    const bigRate = (pages * copies) / many.seconds;
    return {
      'ingest.scale.small_pages_per_s': {
        value: smallRate,
        unit: 'pages/s',
        note: `${files.length} CUAD PDFs, ${pages} pages, drop to searchable by words (${one.seconds.toFixed(0)} s)`,
      },
      'ingest.scale.big_pages_per_s': {
        value: bigRate,
        unit: 'pages/s',
        note: `the same ${copies} times under other names: ${files.length * copies} files, ${pages * copies} pages (${many.seconds.toFixed(0)} s)`,
      },
      'ingest.scale.linearity': {
        value: bigRate / smallRate,
        unit: 'ratio',
        note: 'pages/s of the big case ÷ the small one, in this run; target ≥ 0.8',
      },
      'ingest.scale.search_median_ms': {
        value: quantile(times, 0.5),
        unit: 'ms',
        note: `keyword search (k 10) on the ${pages * copies}-page case, ${times.length} searches of ${QUERIES.length} clause questions`,
      },
      'ingest.scale.search_p95_ms': {
        value: quantile(times, 0.95),
        unit: 'ms',
        note: 'the same searches, 95th percentile',
      },
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
