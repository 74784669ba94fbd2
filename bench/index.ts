/**
 * Index benchmark (part of `npm run bench`): one case's LanceDB store at 10k and 100k chunks of
 * generated legal-ish text with synthetic normalised 384-d vectors (the size all-MiniLM-L6-v2
 * makes). Reports build time (add + full-text index + compaction, and the ANN index where the
 * store builds one), bytes on disk per chunk, and query latency p50/p95 per mode. Query
 * embedding time is not included (vectors are synthetic); see eval:retrieval for quality.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { searchChunks, type SemanticState } from '../src/core/retrieval/search';
import { ANN_MIN_ROWS, ChunkStore } from '../src/core/retrieval/store';
import { RETRIEVAL_TUNING } from '../src/core/retrieval/tuning';
import type { ChunkRecord } from '../src/core/domain/types';

interface Metric {
  value: number;
  unit: string;
  note: string;
}

const DIM = 384;
/** How clients ask about clauses (the lexicon widens each): the lexicon's cost is measured on these. */
const CLAUSE_ASKS = [
  'can they drop us whenever they want',
  'how long does it last and does it renew',
  'who owns what we build',
  'can they hand it over if they get bought',
  'is there a cap on damages',
];
const WORDS = (
  'agreement party parties shall term termination notice confidential information disclose receiving disclosing ' +
  'indemnify liability damages breach warranty license grant territory exclusive payment invoice fee royalty ' +
  'court jurisdiction governing law arbitration dispute plaintiff defendant witness deposition exhibit medical ' +
  'record treatment physician diagnosis injury accident police report officer vehicle insurance claim policy ' +
  'premium coverage lease tenant landlord rent premises assignment successor affiliate subsidiary merger ' +
  'consideration closing representation covenant condition remedy injunction specific performance audit records ' +
  'books inspection renewal expiration effective date amendment waiver severability counterpart entire'
).split(' ');

/** Deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function zipfWord(r: () => number): string {
  // Skewed word choice so BM25 sees frequent and rare terms; rare synthetic tokens add a long tail.
  const u = r();
  if (u < 0.05) return `term${Math.floor(r() * 20000)}`;
  return WORDS[Math.floor(Math.pow(r(), 2) * WORDS.length)]!;
}

function vector(r: () => number): Float32Array {
  const v = new Float32Array(DIM);
  let n = 0;
  for (let i = 0; i < DIM; i++) {
    v[i] = r() * 2 - 1;
    n += v[i]! * v[i]!;
  }
  n = Math.sqrt(n);
  for (let i = 0; i < DIM; i++) v[i]! /= n;
  return v;
}

function makeChunks(n: number, seed: number): { chunks: ChunkRecord[]; vectors: Float32Array[] } {
  const r = rng(seed);
  const chunks: ChunkRecord[] = [];
  const vectors: Float32Array[] = [];
  const perFile = 50;
  for (let i = 0; i < n; i++) {
    const words = Array.from({ length: 150 }, () => zipfWord(r));
    const text = words.join(' ');
    const file = Math.floor(i / perFile);
    const index = i % perFile;
    chunks.push({
      chunk_id: `doc-${file}.pdf@v1#${index}`,
      file_id: `f${file}`,
      file_name: `folder/doc-${file}.pdf`,
      version: 1,
      is_latest: true,
      chunk_index: index,
      start: index * 900,
      end: index * 900 + text.length,
      page_start: Math.floor(index / 3) + 1,
      page_end: Math.floor(index / 3) + 1,
      text,
      context: `Agreement ${file} › ${(index % 12) + 1} Section ${index % 12 === 7 ? 'Limitation of Liability' : 'Terms'}`,
      hash: createHash('sha256').update(text).digest('hex'),
      doc_type: file % 3 === 0 ? 'medical_record' : 'contract',
      doc_date: '',
    });
    vectors.push(vector(r));
  }
  return { chunks, vectors };
}

export function dirBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return total;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function benchSize(n: number, queries: number, bulk: boolean): Promise<Record<string, Metric>> {
  const caseDir = mkdtempSync(path.join(os.tmpdir(), 'casefile-index-bench-'));
  const out: Record<string, Metric> = {};
  const label = n >= 1000 ? `${n / 1000}k` : String(n);
  try {
    const { chunks, vectors } = makeChunks(n, 42);
    const store = await ChunkStore.open(caseDir);
    const t0 = performance.now();
    if (bulk) {
      // Scale test: 10k-chunk batches, then one optimize (FTS + compaction + ANN index).
      for (let i = 0; i < n; i += 10_000) await store.append(chunks.slice(i, i + 10_000), vectors.slice(i, i + 10_000));
    } else {
      // Ingest-like: one indexVersion per file (50 chunks), compaction every 25 files.
      const perFile = 50;
      for (let i = 0, files = 0; i < n; i += perFile, files++) {
        const slice = chunks.slice(i, i + perFile);
        await store.replaceVersion(slice[0]!.file_id, 1, slice, vectors.slice(i, i + perFile));
        if (files % 25 === 24) await store.optimize();
      }
    }
    await store.optimize();
    const buildS = (performance.now() - t0) / 1000;
    await store.optimize({ keepVersionsMs: 0 }); // steady state: superseded versions removed
    const ann = n >= ANN_MIN_ROWS;
    out[`index.build_s.${label}`] = {
      value: Number(buildS.toFixed(2)),
      unit: 's',
      note: `${n} chunks ${bulk ? 'added in 10k batches' : 'as 50-chunk file versions (ingest-like)'}, FTS + compaction${ann ? ' + IVF-PQ' : ''}, 384-d vectors`,
    };
    out[`index.bytes_per_chunk.${label}`] = {
      value: Math.round(dirBytes(path.join(caseDir, 'lancedb')) / n),
      unit: 'B',
      note: `on disk after optimize (~${chunks[0]!.text.length} chars of text + 1536 B vector per chunk)`,
    };

    const r = rng(7);
    const qs = Array.from({ length: queries }, () => ({
      text: `${zipfWord(r)} ${zipfWord(r)} ${zipfWord(r)}`,
      vec: vector(r),
    }));
    for (const mode of ['keyword', 'vector', 'hybrid'] as const) {
      const times: number[] = [];
      for (const [i, q] of qs.entries()) {
        const semantic: SemanticState = {
          embedder: { modelId: 'synthetic', dimension: DIM, embedQuery: async () => q.vec },
        };
        const t = performance.now();
        await searchChunks(store, semantic, { query: q.text, mode, top_k: 10 });
        if (i >= 3) times.push(performance.now() - t); // first queries warm caches
      }
      times.sort((a, b) => a - b);
      const note = `${label} chunks, top 10 (50 candidates per component), ${times.length} queries${mode !== 'keyword' && ann ? ', IVF-PQ index' : mode !== 'keyword' ? ', exact scan' : ''}; excludes query embedding`;
      out[`index.query_ms.${mode}.p50.${label}`] = {
        value: Number(percentile(times, 50).toFixed(2)),
        unit: 'ms',
        note,
      };
      out[`index.query_ms.${mode}.p95.${label}`] = {
        value: Number(percentile(times, 95).toFixed(2)),
        unit: 'ms',
        note,
      };
    }
    {
      // What the clause lexicon costs: each question searched with it and without, in turn, so the
      // two lists meet the same caches and the same load. The questions speak of clauses.
      const asks = qs.map((q, i) => ({ ...q, text: `${CLAUSE_ASKS[i % CLAUSE_ASKS.length]} ${q.text}` }));
      const times: Record<'on' | 'off', number[]> = { on: [], off: [] };
      const saved = { lexicon: RETRIEVAL_TUNING.lexicon, lexiconVector: RETRIEVAL_TUNING.lexiconVector };
      try {
        for (const [i, q] of asks.entries()) {
          const semantic: SemanticState = {
            embedder: { modelId: 'synthetic', dimension: DIM, embedQuery: async () => q.vec },
          };
          for (const side of i % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
            Object.assign(RETRIEVAL_TUNING, side === 'on' ? saved : { lexicon: false, lexiconVector: false });
            const t = performance.now();
            await searchChunks(store, semantic, { query: q.text, mode: 'hybrid', top_k: 10 });
            if (i >= 3) times[side].push(performance.now() - t);
          }
        }
      } finally {
        Object.assign(RETRIEVAL_TUNING, saved);
      }
      for (const side of ['on', 'off'] as const) {
        const t = times[side].sort((a, b) => a - b);
        const note = `${label} chunks, hybrid, clause questions, lexicon ${side}, ${t.length} queries alternating with lexicon ${side === 'on' ? 'off' : 'on'}; excludes query embedding`;
        out[`index.query_ms.hybrid_lexicon_${side}.p50.${label}`] = {
          value: Number(percentile(t, 50).toFixed(2)),
          unit: 'ms',
          note,
        };
        out[`index.query_ms.hybrid_lexicon_${side}.p95.${label}`] = {
          value: Number(percentile(t, 95).toFixed(2)),
          unit: 'ms',
          note,
        };
      }
    }
    if (ann) {
      // Where the ANN index pays off: the same queries as an exact scan over every vector.
      const times: number[] = [];
      for (const [i, q] of qs.entries()) {
        const t = performance.now();
        await store.vector(q.vec, 'is_latest = true', 50, { exact: true });
        if (i >= 3) times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      const note = `${label} chunks, exact cosine scan bypassing the IVF-PQ index (compare index.query_ms.vector.*.${label})`;
      out[`index.query_ms.vector_exact.p50.${label}`] = {
        value: Number(percentile(times, 50).toFixed(2)),
        unit: 'ms',
        note,
      };
      out[`index.query_ms.vector_exact.p95.${label}`] = {
        value: Number(percentile(times, 95).toFixed(2)),
        unit: 'ms',
        note,
      };
    }
    store.close();
  } finally {
    rmSync(caseDir, { recursive: true, force: true });
  }
  return out;
}

export async function indexBench(): Promise<Record<string, { value: number; unit: string; note: string }>> {
  const metrics: Record<string, Metric> = {};
  Object.assign(metrics, await benchSize(10_000, 60, false));
  if (process.env.CASEFILE_BENCH_100K !== '0') Object.assign(metrics, await benchSize(100_000, 40, true));
  return metrics;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const m = await indexBench();
  for (const [k, v] of Object.entries(m))
    console.log(`${k.padEnd(36)} ${String(v.value).padStart(10)} ${v.unit.padEnd(3)} ${v.note}`);
}
