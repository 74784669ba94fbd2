/**
 * `npm run bench million` (only when named: it takes tens of minutes and gigabytes of disk): issue
 * 41's scale. A synthetic production of one million passages is made from a real case's passages
 * and vectors (the "eval cuad-clauses" case `npm run eval:retrieval -- --home DIR` builds; give
 * that DIR as CASEFILE_BENCH_SOURCE_HOME): the case is copied until the store holds a million
 * passages, each copy with its documents' most frequent names and its years changed, so no two
 * copies' texts are alike; a copy's vector is the original's with a little noise, since changing
 * names and dates barely moves a passage's embedding (a full embedding of a million passages
 * would take this machine a day). The store is built in 10k-passage batches, then indexed (full
 * text and IVF-PQ) as a case's store is. A fresh process then searches it with the 363 clause
 * questions (keyword and hybrid, top 10; query embedding excluded, as in bench/index.ts, since it
 * does not depend on the store's size) and reports the median and p95, and its own peak memory.
 * Local disk, and with CASEFILE_BENCH_S3=1 the same on SeaweedFS (scripts/s3-server.mjs);
 * CASEFILE_BENCH_LOCAL=0 leaves the local disk out.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChunkRecord } from '../src/core/domain/types';
import { type SemanticState, searchChunks } from '../src/core/retrieval/search';
import { type IndexLocation, lanceStorageOptions } from '../src/core/cases/object-store';
import { ChunkStore } from '../src/core/retrieval/store';
// @ts-expect-error -- a plain .mjs script without type declarations
import { startWeed } from '../scripts/s3-server.mjs';
import { dirBytes, rng } from './index';
import type { Metrics } from './run';

const here = import.meta.dirname;
const TARGET = Number(process.env.CASEFILE_BENCH_PASSAGES ?? 1_000_000);
const BATCH = 10_000;
const DIM_NOISE = 0.01;

interface Row extends ChunkRecord {
  vector: Float32Array;
}

/** The passages and vectors of the source case "eval cuad-clauses". */
async function sourceRows(home: string): Promise<Row[]> {
  const casesDir = path.join(home, 'cases');
  const id = readdirSync(casesDir).find((d) => {
    const meta = path.join(casesDir, d, 'case.json');
    return (
      existsSync(meta) && (JSON.parse(readFileSync(meta, 'utf8')) as { name: string }).name === 'eval cuad-clauses'
    );
  });
  if (!id)
    throw new Error(
      `no case "eval cuad-clauses" in ${home}: run npm run eval:retrieval -- --sets cuad-clauses --home ${home}`,
    );
  const store = await ChunkStore.open(path.join(casesDir, id));
  try {
    const rows = (await (await store.table())!.query().where('is_latest = true').toArray()) as Row[];
    return rows.map((r) => ({ ...r, vector: Float32Array.from(r.vector) }));
  } finally {
    store.close();
  }
}

/** Words that name things in every contract, never a party. */
const COMMON = new Set(
  'Agreement Company Party Parties Section Products Product Services Customer Distributor Licensee Licensor Territory Effective Date This The Such Each Term Confidential Information Exhibit Schedule Article Notice Person State United States Inc Corporation Limited'.split(
    ' ',
  ),
);

/** Per document, its most frequent capitalised names (its parties, mostly): what each copy renames. */
function namesOf(rows: Row[]): Map<string, string[]> {
  const counts = new Map<string, Map<string, number>>();
  for (const r of rows) {
    const c = counts.get(r.file_id) ?? new Map<string, number>();
    counts.set(r.file_id, c);
    for (const m of r.text.matchAll(/\b[A-Z][a-zA-Z]{3,}\b/g))
      if (!COMMON.has(m[0])) c.set(m[0], (c.get(m[0]) ?? 0) + 1);
  }
  const out = new Map<string, string[]>();
  for (const [file, c] of counts)
    out.set(
      file,
      [...c.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([w]) => w),
    );
  return out;
}

const SYLLABLES = ['ka', 'lo', 'ver', 'tan', 'mi', 'sor', 'del', 'qua', 'ny', 'ber', 'ox', 'ril', 'zen', 'pa'];
function fakeName(seed: number): string {
  const r = rng(seed);
  const n = 2 + Math.floor(r() * 2);
  const word = Array.from({ length: n }, () => SYLLABLES[Math.floor(r() * SYLLABLES.length)]).join('');
  return word[0]!.toUpperCase() + word.slice(1);
}

/** Copy `k` of a passage: its document's names and its years changed, its vector moved a little. */
function copyOf(row: Row, k: number, names: string[], r: () => number): { chunk: ChunkRecord; vector: Float32Array } {
  let text = row.text;
  names.forEach((name, i) => {
    text = text.replaceAll(name, fakeName(k * 31 + i * 7 + name.length));
  });
  text = text.replace(/\b(19[5-9]\d|20[0-3]\d)\b/g, (y) => String(1950 + ((Number(y) - 1950 + k) % 85)));
  const fileName = `copy-${k}/${row.file_name}`;
  const chunk: ChunkRecord = {
    chunk_id: `${fileName}@v1#${row.chunk_index}`,
    file_id: `${row.file_id}-${k}`,
    file_name: fileName,
    version: 1,
    is_latest: true,
    chunk_index: row.chunk_index,
    start: row.start,
    end: row.end,
    page_start: row.page_start,
    page_end: row.page_end,
    text,
    context: row.context ?? '',
    hash: createHash('sha256').update(text).digest('hex'),
    doc_type: row.doc_type,
    doc_date: row.doc_date,
  };
  const v = new Float32Array(row.vector.length);
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    v[i] = row.vector[i]! + (r() * 2 - 1) * DIM_NOISE;
    n += v[i]! * v[i]!;
  }
  n = Math.sqrt(n);
  for (let i = 0; i < v.length; i++) v[i]! /= n;
  return { chunk, vector: v };
}

/** Build the store at `where`; seconds for the rows and for the indexes. */
async function build(where: string | IndexLocation, source: Row[]): Promise<{ rowsS: number; indexS: number }> {
  const names = namesOf(source);
  const store = await ChunkStore.open(where);
  const r = rng(42);
  try {
    const t0 = performance.now();
    let chunks: ChunkRecord[] = [];
    let vectors: Float32Array[] = [];
    for (let n = 0, k = 0; n < TARGET; k++)
      for (const row of source) {
        if (n++ >= TARGET) break;
        const c = copyOf(row, k, names.get(row.file_id) ?? [], r);
        chunks.push(c.chunk);
        vectors.push(c.vector);
        if (chunks.length === BATCH) {
          await store.append(chunks, vectors);
          chunks = [];
          vectors = [];
          if (n % 100_000 === 0) console.log(`  ${n} passages written`);
        }
      }
    if (chunks.length) await store.append(chunks, vectors);
    const t1 = performance.now();
    await store.optimize({ keepVersionsMs: 0 });
    return { rowsS: (t1 - t0) / 1000, indexS: (performance.now() - t1) / 1000 };
  } finally {
    store.close();
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** In this (fresh) process: search the store with the clause questions; times and peak memory. */
async function queryStore(where: string | IndexLocation, vectorsFile: string): Promise<Record<string, number>> {
  const questions = readFileSync(path.join(here, 'data', 'cuad-clause-questions.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { question: string }).question);
  const qvecs = JSON.parse(readFileSync(vectorsFile, 'utf8')) as number[][];
  const store = await ChunkStore.open(where);
  const out: Record<string, number> = {};
  try {
    for (const mode of ['keyword', 'hybrid'] as const) {
      const times: number[] = [];
      for (const [i, query] of questions.entries()) {
        const vec = Float32Array.from(qvecs[i % qvecs.length]!);
        const semantic: SemanticState = {
          embedder: { modelId: 'synthetic', dimension: vec.length, embedQuery: async () => vec },
        };
        const t = performance.now();
        await searchChunks(store, semantic, { query, mode, top_k: 10 });
        if (i >= 5) times.push(performance.now() - t); // the first queries open the indexes
      }
      times.sort((a, b) => a - b);
      out[`${mode}.p50`] = percentile(times, 50);
      out[`${mode}.p95`] = percentile(times, 95);
    }
  } finally {
    store.close();
  }
  out.max_rss_mb = process.resourceUsage().maxRSS / 1024;
  return out;
}

/** Run `queryStore` in a child process, so its memory is the query process's alone. */
function queryInChild(where: string | IndexLocation, vectorsFile: string): Record<string, number> {
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', import.meta.filename, '--query', JSON.stringify(where), vectorsFile],
    { encoding: 'utf8', env: { ...process.env, MALLOC_ARENA_MAX: '2' }, maxBuffer: 1 << 24 },
  );
  if (child.status !== 0) throw new Error(`query process failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
}

export async function millionBench(): Promise<Metrics> {
  const sourceHome = process.env.CASEFILE_BENCH_SOURCE_HOME;
  if (!sourceHome)
    throw new Error('set CASEFILE_BENCH_SOURCE_HOME to a data folder holding the case "eval cuad-clauses"');
  const source = await sourceRows(sourceHome);
  const r = rng(9);
  // CASEFILE_BENCH_KEEP=DIR keeps the stores in DIR (the local one, and SeaweedFS's data) and
  // reuses them when they are there, so the query side can be measured again without building a
  // million passages again.
  const keep = process.env.CASEFILE_BENCH_KEEP;
  const tmp = keep ?? mkdtempSync(path.join(os.tmpdir(), 'casefile-bench-million-'));
  mkdirSync(tmp, { recursive: true });
  const vectorsFile = path.join(tmp, 'query-vectors.json');
  // Query vectors: passages' own, as a question about a clause lands near its passage.
  const picked = Array.from({ length: 64 }, () => Array.from(source[Math.floor(r() * source.length)]!.vector));
  writeFileSync(vectorsFile, JSON.stringify(picked));
  const metrics: Metrics = {};
  const label = TARGET >= 1_000_000 ? `${TARGET / 1_000_000}m` : `${TARGET / 1000}k`;
  const note = (where: string) =>
    `${TARGET} passages (${source.length} CUAD passages copied with names and years changed), ${where}; 363 clause questions, top 10, query embedding excluded`;
  // `built` is null for a kept store searched again: it was not built in this run.
  const record = (
    where: 'local' | 's3',
    built: { rowsS: number; indexS: number } | null,
    q: Record<string, number>,
  ) => {
    const n = note(where === 'local' ? 'local disk' : 'SeaweedFS on loopback');
    if (built) {
      metrics[`million.${where}.write_s.${label}`] = { value: Number(built.rowsS.toFixed(1)), unit: 's', note: n };
      metrics[`million.${where}.index_s.${label}`] = {
        value: Number(built.indexS.toFixed(1)),
        unit: 's',
        note: `${n}; full text, compaction and IVF-PQ`,
      };
    }
    for (const [k, v] of Object.entries(q))
      metrics[`million.${where}.${k.replace('max_rss_mb', 'query_process_max_rss')}.${label}`] = {
        value: Number(v.toFixed(1)),
        unit: k === 'max_rss_mb' ? 'MB' : 'ms',
        note: n,
      };
  };
  try {
    if (process.env.CASEFILE_BENCH_LOCAL !== '0') {
      const local = path.join(tmp, 'case');
      const reuse = keep !== undefined && existsSync(path.join(local, 'lancedb'));
      console.log(reuse ? `  local: reusing ${local}` : `  local: building ${TARGET} passages`);
      const builtLocal = reuse ? null : await build(local, source);
      console.log(`  local: ${dirBytes(local) >> 20} MB on disk; searching`);
      record('local', builtLocal, queryInChild(local, vectorsFile));
      if (!keep) rmSync(local, { recursive: true, force: true });
    }
    if (process.env.CASEFILE_BENCH_S3 === '1') {
      const weedDir = keep ? path.join(tmp, 'weed') : undefined;
      const reuse = weedDir !== undefined && existsSync(weedDir);
      if (weedDir) mkdirSync(weedDir, { recursive: true });
      const weed = (await startWeed({ dir: weedDir })) as {
        endpoint: string;
        bucket: string;
        accessKeyId: string;
        secretAccessKey: string;
        stop(): Promise<void>;
      };
      try {
        const where: IndexLocation = {
          uri: `s3://${weed.bucket}/million/lancedb`,
          storageOptions: lanceStorageOptions({
            endpoint: weed.endpoint,
            region: 'us-east-1',
            bucket: weed.bucket,
            prefix: 'million',
            pathStyle: true,
            accessKeyId: weed.accessKeyId,
            secretAccessKey: weed.secretAccessKey,
          }),
        };
        console.log(reuse ? `  s3: reusing ${weedDir}` : `  s3: building ${TARGET} passages`);
        const builtS3 = reuse ? null : await build(where, source);
        record('s3', builtS3, queryInChild(where, vectorsFile));
      } finally {
        await weed.stop();
      }
    }
  } finally {
    if (!keep) rmSync(tmp, { recursive: true, force: true });
  }
  return metrics;
}

if (process.argv[2] === '--query') {
  const where = JSON.parse(process.argv[3]!) as string | IndexLocation;
  console.log(JSON.stringify(await queryStore(where, process.argv[4]!)));
}
