/**
 * Ingest benchmark (part of `npm run bench`), on a fixed set of real contracts from
 * ../shared/corpus (the first CUAD PDFs with a text layer, in MANIFEST order, up to ~250 pages):
 * - pdf.js parse throughput (pages/s, one worker thread: text + geometry, chunked and stored);
 * - chunking throughput (MB of document text per second, default splitter settings);
 * - the whole pipeline through the engine (worker pool, store, index sink without embeddings);
 * - poppler's `pdftotext` on the same files, timed in the same run, as a ratio;
 * - peak RSS of this process.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../src/core/engine';
import { splitText } from '../src/core/text/chunker';
import { WorkerPool } from '../src/core/ingest/pool';
import { CaseStore } from '../src/core/documents/case-store';
import { chunkDocument } from '../src/core/text/structure';
import { Embedder } from '../src/core/retrieval/embedder';
import { embeddingText } from '../src/core/retrieval/store';
import { MINILM_ID, miniLmDir } from '../test/helpers/models';
import type { PageIndex } from '../src/core/domain/types';
import { DEFAULT_CHUNKING } from '../src/core/domain/types';

interface Metric {
  value: number;
  unit: string;
  note: string;
}

const CORPUS = path.resolve(import.meta.dirname, '..', '..', 'shared', 'corpus');
const PAGE_BUDGET = 250;

/** The CUAD PDFs with a text layer of ../shared/corpus, in MANIFEST order, up to `budget` pages (files over `maxPages` left out). */
export function corpusSet(budget = PAGE_BUDGET, maxPages = 60): { files: string[]; pages: number } {
  const manifest = readFileSync(path.join(CORPUS, 'MANIFEST.tsv'), 'utf8').split('\n').slice(1);
  const files: string[] = [];
  let pages = 0;
  for (const line of manifest) {
    const cols = line.split('\t');
    if (cols[2] !== 'pdf' || cols[7] !== 'yes' || !cols[0]!.startsWith('cuad/')) continue;
    const n = Number(cols[5]);
    if (!(n > 0) || n > maxPages || pages + n > budget) continue;
    files.push(path.join(CORPUS, cols[0]!));
    pages += n;
  }
  return { files, pages };
}

function hasPdftotext(): boolean {
  const r = spawnSync('pdftotext', ['-v'], { encoding: 'utf8' });
  return r.status === 0 || /pdftotext/i.test(`${r.stderr}${r.stdout}`);
}

export async function ingestBench(): Promise<Record<string, Metric>> {
  const metrics: Record<string, Metric> = {};
  if (!existsSync(path.join(CORPUS, 'MANIFEST.tsv'))) {
    metrics['ingest.skipped'] = { value: 0, unit: '', note: `corpus not found at ${CORPUS}` };
    return metrics;
  }
  const { files, pages } = corpusSet();
  const work = mkdtempSync(path.join(os.tmpdir(), 'casefile-bench-parse-'));
  const texts: string[] = [];
  const docs: { text: string; index: PageIndex; name: string }[] = [];
  let parsedPages = 0;
  let parseSec = 0;
  // The production path: one worker thread (pdf.js loaded natively there), parse + chunk + store.
  const pool = new WorkerPool({ concurrency: 1 });
  try {
    const store = new CaseStore(work);
    const blobs: { sha256: string }[] = [];
    for (const f of files) blobs.push(await store.importBlob(f, Infinity));
    const task = (i: number, version: number) => ({
      caseDir: work,
      blobPath: store.blobPath(blobs[i]!.sha256),
      name: path.basename(files[i]!),
      fileId: `f${i}`,
      version,
      isLatest: true,
      maxBytes: Infinity,
      chunking: DEFAULT_CHUNKING,
    });
    await pool.run(task(0, 99)); // warm-up: worker start, pdf.js load, font data
    const t0 = performance.now();
    for (let i = 0; i < files.length; i++) {
      const r = await pool.run(task(i, 1));
      parsedPages += r.summary.pages;
    }
    parseSec = (performance.now() - t0) / 1000;
    for (let i = 0; i < files.length; i++) {
      const t = await store.readText(`f${i}`, 1);
      const index = await store.readPages(`f${i}`, 1);
      if (t) texts.push(t);
      if (t && index) docs.push({ text: t, index, name: path.basename(files[i]!) });
    }
  } finally {
    await pool.close();
    rmSync(work, { recursive: true, force: true });
  }
  metrics['ingest.pdf_parse_pages_per_s'] = {
    value: parsedPages / parseSec,
    unit: 'pages/s',
    note: `pdf.js text + geometry in one worker thread (incl. chunking and storing), ${files.length} CUAD PDFs, ${parsedPages} pages (${parseSec.toFixed(2)} s)`,
  };

  const chars = texts.reduce((n, t) => n + t.length, 0);
  let chunks = 0;
  const rounds = 5;
  const t1 = performance.now();
  for (let r = 0; r < rounds; r++) for (const t of texts) chunks += splitText(t).length;
  const chunkSec = (performance.now() - t1) / 1000;
  metrics['ingest.chunk_mb_per_s'] = {
    value: (chars * rounds) / 1e6 / chunkSec,
    unit: 'MB/s',
    note: `recursive splitter (1000/150), ${(chars / 1e6).toFixed(2)}M chars × ${rounds}, ${chunks / rounds} chunks per round`,
  };

  // Structure: outline + profile + structure-aware chunks with contexts, against the parse it follows.
  const t4 = performance.now();
  let structured = 0;
  for (let r = 0; r < rounds; r++) {
    for (const d of docs)
      structured += chunkDocument(d, {
        fileId: 'f',
        name: d.name,
        version: 1,
        isLatest: true,
        docType: 'contract',
        docDate: '',
      }).length;
  }
  const structureSec = (performance.now() - t4) / 1000 / rounds;
  metrics['ingest.structure_share_of_parse'] = {
    value: structureSec / parseSec,
    unit: 'ratio',
    note: `outline, profile and structure-aware chunks with contexts (${(structureSec * 1000).toFixed(0)} ms per pass, ${structured / rounds} chunks) ÷ the pdf.js parse of the same files (${parseSec.toFixed(2)} s)`,
  };

  // Contexts make each embedded text longer: the embedding time of the same chunks with and without them.
  if (existsSync(miniLmDir)) {
    const sample = docs
      .flatMap((d) =>
        chunkDocument(d, { fileId: 'f', name: d.name, version: 1, isLatest: true, docType: 'contract', docDate: '' }),
      )
      .slice(0, 256);
    const embedder = new Embedder({ id: MINILM_ID, dir: miniLmDir });
    try {
      await embedder.embed(sample.slice(0, 8).map((c) => c.text)); // load
      const time = async (texts: string[]) => {
        const runs: number[] = [];
        for (let r = 0; r < 3; r++) {
          const t = performance.now();
          await embedder.embed(texts);
          runs.push(performance.now() - t);
        }
        return runs.sort((a, b) => a - b)[1]!;
      };
      const plain = await time(sample.map((c) => c.text));
      const withContext = await time(sample.map(embeddingText));
      metrics['ingest.context_embed_overhead'] = {
        value: withContext / plain - 1,
        unit: 'ratio',
        note: `embedding ${sample.length} chunks with their contexts vs their text alone (all-MiniLM-L6-v2, median of 3: ${withContext.toFixed(0)} vs ${plain.toFixed(0)} ms)`,
      };
    } finally {
      await embedder.dispose();
    }
  }

  if (hasPdftotext()) {
    const t2 = performance.now();
    for (const f of files) spawnSync('pdftotext', ['-q', '-enc', 'UTF-8', f, '-'], { maxBuffer: 1 << 28 });
    const popplerSec = (performance.now() - t2) / 1000;
    metrics['ingest.pdftotext_pages_per_s'] = {
      value: pages / popplerSec,
      unit: 'pages/s',
      note: `poppler pdftotext on the same ${files.length} files (process per file)`,
    };
    metrics['ingest.pdfjs_vs_pdftotext'] = {
      value: popplerSec / parseSec,
      unit: 'ratio',
      note: 'pdf.js throughput ÷ pdftotext throughput (1.0 = as fast; pdf.js also records geometry per text item)',
    };
  } else {
    metrics['ingest.pdfjs_vs_pdftotext'] = {
      value: Number.NaN,
      unit: 'ratio',
      note: 'skipped: pdftotext (poppler-utils) is not installed',
    };
  }

  // Whole pipeline through the engine: walk, hash+copy, worker pool parse, chunk, store, index sink.
  const home = mkdtempSync(path.join(os.tmpdir(), 'casefile-bench-ingest-'));
  try {
    const engine = await Engine.open({ home });
    try {
      const c = await engine.cases.create('bench');
      const t3 = performance.now();
      const ingest = await engine.ingestService();
      const run = await ingest.start(c.id, files);
      const pipeSec = (performance.now() - t3) / 1000;
      const indexed = run.results.filter((r) => r.status === 'indexed').length;
      metrics['ingest.pipeline_pages_per_s'] = {
        value: pages / pipeSec,
        unit: 'pages/s',
        note: `engine ingest of the same files with ${ingest.concurrency} worker(s) on ${os.availableParallelism?.() ?? os.cpus().length} cores, ${indexed}/${files.length} indexed, no embedding model (${pipeSec.toFixed(2)} s)`,
      };
    } finally {
      await engine.close();
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }

  await smallFiles(metrics);

  metrics['ingest.peak_rss_mb'] = {
    value: process.resourceUsage().maxRSS / 1024,
    unit: 'MB',
    note: 'peak resident set of the bench process, worker threads included (pdf.js runs only in workers)',
  };
  return metrics;
}

/** Files of a few lines each (an email export, a folder of notes): what a file costs beyond its pages. */
const SMALL_FILES = 300;

async function smallFiles(metrics: Record<string, Metric>): Promise<void> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'casefile-bench-small-'));
  try {
    const drop = path.join(home, 'drop');
    mkdirSync(drop);
    for (let i = 0; i < SMALL_FILES; i++)
      writeFileSync(
        path.join(drop, `note-${i}.txt`),
        `Memo ${i}\n\nOn March ${1 + (i % 27)}, 2019 the client called about invoice ${i}. The lease ends on June 30, 2020.\n`,
      );
    const engine = await Engine.open({ home });
    try {
      const c = await engine.cases.create('bench small files');
      const ingest = await engine.ingestService();
      const t = performance.now();
      const run = await ingest.start(c.id, [drop]);
      const sec = (performance.now() - t) / 1000;
      const indexed = run.results.filter((r) => r.status === 'indexed').length;
      metrics['ingest.small_files_per_s'] = {
        value: SMALL_FILES / sec,
        unit: 'files/s',
        note: `engine ingest of ${SMALL_FILES} text files of two lines with ${ingest.concurrency} worker(s), ${indexed} indexed, no embedding model (${sec.toFixed(2)} s)`,
      };
    } finally {
      await engine.close();
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
