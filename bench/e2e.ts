/**
 * `npm run bench e2e`: a dropped case from drop to usable, through the engine with the real
 * embedding model (the test models' all-MiniLM-L6-v2), on the 94 CUAD PDFs of ../shared/corpus
 * (1,969 pages; CASEFILE_BENCH_E2E_PAGES=250 for the quick set of the ingest bench):
 * - time until every file is searchable by its words (parsed and in the full-text index), as a
 *   ratio to single-process `pdftotext` over the same files in the same run (target ≤ 1.3);
 * - time until every passage has its vector, as a ratio to embedding the same passages through
 *   onnxruntime-node directly (bench/ort-raw.ts: same model file and batch size, tokenized before
 *   the clock) with every core — what the stage runs with once parsing is done — and with the
 *   thread count it runs with beside parsing (target ≤ 1.15);
 * - peak resident memory of the engine process (its embedding worker thread included).
 * The 20,000-page scaling run is bench/scale.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../src/core/engine';
import { defaultConcurrency } from '../src/core/ingest/pool';
import { ingestEmbedThreads } from '../src/core/retrieval/embed-protocol';
import { ChunkStore, embeddingText } from '../src/core/retrieval/store';
import { installTestModels, miniLmDir } from '../test/helpers/models';
import { corpusSet } from './ingest';
import { rawOrtEmbed } from './ort-raw';
import type { Metrics } from './run';

/** The e2e set: every CUAD PDF with a text layer, or the first `CASEFILE_BENCH_E2E_PAGES` pages' worth. */
export function e2eSet(): { files: string[]; pages: number } {
  const budget = Number(process.env.CASEFILE_BENCH_E2E_PAGES);
  return budget > 0 ? corpusSet(budget) : corpusSet(Infinity, Infinity);
}

/** Seconds for single-process `pdftotext` over `files`, one after another. */
export function pdftotextSeconds(files: string[]): number {
  const t0 = performance.now();
  for (const f of files) spawnSync('pdftotext', ['-q', '-enc', 'UTF-8', f, '-'], { maxBuffer: 1 << 28 });
  return (performance.now() - t0) / 1000;
}

export async function e2eBench(): Promise<Metrics> {
  const { files, pages } = e2eSet();
  const home = mkdtempSync(path.join(os.tmpdir(), 'casefile-bench-e2e-'));
  try {
    await installTestModels(home);
    const popplerS = pdftotextSeconds(files);
    const engine = await Engine.open({ home });
    let searchableS = 0;
    let embeddedS = 0;
    let texts: string[] = [];
    let ingestPeakMb = 0;
    try {
      const { id: caseId } = await engine.router.call('cases.create', { name: 'Bench e2e' });
      const indexed = new Set<string>();
      const start = performance.now();
      let searchable!: () => void;
      const allSearchable = new Promise<void>((resolve) => (searchable = resolve));
      const off = engine.events.on('ingest.file', (e) => {
        if (e.caseId === caseId && e.status === 'indexed') indexed.add(e.name);
        if (indexed.size === files.length && !searchableS) {
          searchableS = (performance.now() - start) / 1000;
          searchable();
        }
      });
      await engine.router.call('ingest.start', { caseId, paths: files });
      embeddedS = (performance.now() - start) / 1000;
      ingestPeakMb = Math.round(process.resourceUsage().maxRSS / 1024);
      await allSearchable;
      off();
      const store = await ChunkStore.open(engine.cases.caseDir(caseId));
      texts = (await store.rows(undefined)).map(embeddingText);
      store.close();
    } finally {
      await engine.close();
    }
    // What the stage takes once parsing is done on an idle machine: every core (up to 8).
    const alone = ingestEmbedThreads(0, { current: 1, idle: os.availableParallelism() });
    const beside = ingestEmbedThreads(defaultConcurrency());
    const rawAll = (await rawOrtEmbed(miniLmDir, texts, alone)).seconds;
    const rawBeside = beside === alone ? rawAll : (await rawOrtEmbed(miniLmDir, texts, beside)).seconds;
    return {
      'ingest.e2e.searchable_s': { value: searchableS, unit: 's', note: `${files.length} CUAD PDFs, ${pages} pages: drop to every file searchable by its words` },
      'ingest.e2e.searchable_vs_pdftotext': { value: searchableS / popplerS, unit: 'ratio', note: `÷ pdftotext over the same files in one process each, in this run (${popplerS.toFixed(1)} s); target ≤ 1.3` },
      'ingest.e2e.embedded_s': { value: embeddedS, unit: 's', note: `drop to every one of ${texts.length} passages with its vector (parsing and embedding overlap)` },
      'ingest.e2e.embedded_vs_raw': {
        value: embeddedS / rawAll,
        unit: 'ratio',
        note: `÷ onnxruntime-node alone on the same passages with ${alone} threads (${rawAll.toFixed(1)} s; with ${beside}, as beside parsing: ${rawBeside.toFixed(1)} s); target ≤ 1.15`,
      },
      'ingest.e2e.peak_rss_mb': { value: ingestPeakMb, unit: 'MB', note: 'peak RSS of the engine process up to the end of the ingest (embedding worker thread included; reader processes apart); target ≤ 600' },
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
