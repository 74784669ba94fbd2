/**
 * `npm run eval:retrieval`: retrieval quality of keyword (BM25), vector (MiniLM cosine) and hybrid
 * (RRF) search on labelled (question → gold file + character span) sets built from the ground truth
 * in ../shared/corpus:
 *   - LegalBench-RAG: contractnli, privacy_qa, and the MAUD subset (benchmarks/*.json, exact spans)
 *   - CUAD: derived_clause_spans_selected.jsonl (unique clause spans, one question per category)
 *   - cuad-clauses: 363 clause questions over the 94 CUAD PDFs, written by hand as a lawyer would
 *     ask them (bench/data/cuad-clause-questions.jsonl: each names its contract by party and/or
 *     type, never the category label or the clause's own phrases; `line` is the gold span's line in
 *     derived_clause_spans_selected.jsonl). The PDFs go through the real ingest as ONE case (a data
 *     room); a result is a hit when it is in the gold contract, on a gold page, and holds the
 *     clause (≥ 60 % of the clause's words, or of the result's when the clause is longer). Also
 *     reported: hybrid restricted to the gold contract (file_name), as if the routing were perfect.
 *   - cuad-client: HELD OUT, never tune on it. Clause questions over the same ingested case in a
 *     client's words, half naming the contract loosely (bench/data/cuad-client-questions.jsonl,
 *     frozen: its sha256 is checked in cuad-clauses.ts and a changed file is refused). Scored as
 *     cuad-clauses; run both in one go: --sets cuad-clauses,cuad-client.
 *   - cuad-client-tune: the tuning twin of cuad-client (bench/data/cuad-client-tune-questions.jsonl):
 *     120 client-worded questions over the same case, on (contract, category) pairs neither other
 *     set asks about. Tune on it and on cuad-clauses; scored the same way.
 * The LegalBench-RAG sets go through the real ingest: each corpus's TXT files in one drop
 * (`ingest.start`: reader process, text loader, chunker, index sink, embedding stage), one case per
 * set, its stored text checked equal to the TXT the spans refer to. CUAD is indexed into its own
 * case through the real index sink (ingest's chunker over pseudo-pages, real embeddings). Then every
 * question is searched in each mode. A result is a hit when its character range overlaps a gold
 * span of the same file.
 *
 *   recall@k  share of a question's gold spans overlapped by the top k (averaged over questions)
 *   MRR       1 / rank of the first hit (0 when none in the top 10)
 *   nDCG@10   binary gain, one credit per gold span (first result that overlaps it)
 *
 * The LegalBench-RAG sets are also scored as that benchmark's paper scores them (Pipitone & Alami,
 * 2024), in characters, per question and averaged, each mode searched 64 deep:
 *   precision@k    |union of the top k results' ranges ∩ gold| / |union of the top k's ranges|
 *   recall@k       |union of the top k results' ranges ∩ gold| / |gold|, k = 1, 2, 4, …, 64
 *   first_overlap  share of questions whose first result overlaps a gold span
 * merged as `legalbench.<set>.<mode>.<metric>`.
 *
 * Options: --max-queries N (per set, default 250; spread evenly; cuad-clauses takes all 363 unless
 * given), --sets a,b (default contractnli,privacy_qa,maud,cuad; add cuad-clauses: it ingests 94 PDFs),
 * --cuad-docs N (default 15), --home DIR (keep the data home there and reuse it: the cuad-clauses case
 * is ingested once and searched again by later runs; without it a temporary home is removed),
 * --variants FILE (with --home: the cuad-clauses questions, or those of cuad-client-tune or
 * cuad-client when --sets names it, again under each knob setting listed, e.g.
 * bench/data/tuning-variants.json; prints a table, merges nothing).
 * Prints a table and merges `retrieval.<set>.<mode>.<metric>` into bench/results.json.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine } from '../src/core/engine';
import {
  type ClauseQuestion,
  cuadClauses,
  cuadClientClauses,
  cuadClientTuneClauses,
  holdsClause,
} from './cuad-clauses';
import { createIndexSink } from '../src/core/retrieval/sink';
import { chunkDocument, structureOf } from '../src/core/text/structure';
import { CaseStore, compactChunks } from '../src/core/documents/case-store';
import type { ChunkRecord, PageIndex } from '../src/core/domain/types';
import { openCaseTools } from '../src/core/tools/index';
import { RETRIEVAL_TUNING, type RetrievalTuning } from '../src/core/retrieval/tuning';
import { installTestModels } from '../test/helpers/models';
import { mergeResults, printTable, type Metrics } from './run';

const here = import.meta.dirname;
const corpus = path.resolve(here, '..', '..', 'shared', 'corpus');
const MODES = ['keyword', 'vector', 'hybrid'] as const;
const PAGE_CHARS = 3000;

interface Gold {
  file: string;
  start: number;
  end: number;
}
interface Question {
  query: string;
  gold: Gold[];
}
interface EvalSet {
  name: string;
  /** file name (relative id) → text */
  docs: Map<string, string>;
  questions: Question[];
}

/** Python str offsets count code points; JS strings count UTF-16 units. */
function codePointToUtf16(text: string): (cp: number) => number {
  if (!/[\uD800-\uDFFF]/.test(text)) return (cp) => cp;
  const map: number[] = [];
  let u = 0;
  for (const ch of text) {
    map.push(u);
    u += ch.length;
  }
  map.push(u);
  return (cp) => map[Math.min(cp, map.length - 1)]!;
}

function legalbench(sub: string, file: string): EvalSet {
  const base = path.join(corpus, 'legalbench-rag');
  const tests = (
    JSON.parse(readFileSync(path.join(base, 'benchmarks', file), 'utf8')) as {
      tests: { query: string; snippets: { file_path: string; span: [number, number]; answer: string }[] }[];
    }
  ).tests;
  const docs = new Map<string, string>();
  const questions: Question[] = [];
  let skipped = 0;
  for (const t of tests) {
    const gold: Gold[] = [];
    for (const s of t.snippets) {
      const rel = s.file_path.replace(/: /g, '_ ');
      if (!docs.has(rel)) {
        try {
          docs.set(rel, readFileSync(path.join(base, 'corpus', rel), 'utf8'));
        } catch {
          continue;
        }
      }
      const text = docs.get(rel)!;
      const conv = codePointToUtf16(text);
      const start = conv(s.span[0]);
      const end = conv(s.span[1]);
      if (text.slice(start, end) !== s.answer) {
        skipped++;
        continue;
      }
      gold.push({ file: rel, start, end });
    }
    if (gold.length) questions.push({ query: t.query, gold });
  }
  if (skipped) console.log(`  ${sub}: ${skipped} snippets skipped (span does not match the text)`);
  return { name: sub, docs, questions };
}

const CUAD_SKIP = new Set([
  'Parties',
  'Document Name',
  'Agreement Date',
  'Effective Date',
  'Expiration Date',
  'Notice Period To Terminate Renewal- Answer',
]);

function cuad(maxDocs: number): EvalSet {
  const base = path.join(corpus, 'cuad');
  const rows = readFileSync(path.join(base, 'derived_clause_spans_selected.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(
      (l) =>
        JSON.parse(l) as {
          txt: string;
          category: string;
          clause_text: string;
          txt_span: [number, number] | null;
          txt_occurrences: number;
        },
    );
  const usable = rows.filter(
    (r) => r.txt_span && r.txt_occurrences === 1 && r.clause_text.length >= 60 && !CUAD_SKIP.has(r.category),
  );
  const files = [...new Set(usable.map((r) => r.txt))].sort().slice(0, maxDocs);
  const docs = new Map<string, string>();
  for (const f of files) docs.set(f, readFileSync(path.join(base, f), 'utf8'));
  const questions: Question[] = [];
  for (const r of usable) {
    const text = docs.get(r.txt);
    if (!text) continue;
    const conv = codePointToUtf16(text);
    const start = conv(r.txt_span![0]);
    const end = conv(r.txt_span![1]);
    if (text.slice(start, end) !== r.clause_text) continue;
    const stem = path.basename(r.txt, '.txt');
    const company = stem.split(/[_-]/)[0]!;
    const kind = (stem.split('-').pop() ?? 'agreement').toLowerCase();
    questions.push({
      query: `Consider the ${kind} of ${company}; what does it say about ${r.category.toLowerCase()}?`,
      gold: [{ file: r.txt, start, end }],
    });
  }
  return { name: 'cuad', docs, questions };
}

/** What ingest records for a document (its text, pages, structure, chunks and manifest entry), so the tools see it as a file of the case: routing needs its name and profile. */
async function registerDoc(
  store: CaseStore,
  fileId: string,
  name: string,
  text: string,
  chunks: ChunkRecord[],
): Promise<void> {
  const index = pagesOf(text);
  await store.writeArtifacts(fileId, 1, {
    text,
    index,
    structure: structureOf(text, index, name),
    chunks: compactChunks(chunks),
  });
  await store.update((m) => {
    m.files.push({
      id: fileId,
      name,
      doc_type_override: null,
      versions: [
        {
          version: 1,
          sha256: createHash('sha256').update(text).digest('hex'),
          size: text.length,
          kind: 'text',
          pages: index.pages.length,
          status: 'indexed',
          reason: '',
          doc_type: 'contract',
          doc_date: '',
          ingested_at: new Date().toISOString(),
          empty_pages: [],
          chunks: chunks.length,
        },
      ],
    });
  });
}

function pagesOf(text: string): PageIndex {
  const pages = Array.from({ length: Math.max(1, Math.ceil(text.length / PAGE_CHARS)) }, (_, i) => ({
    page: i + 1,
    start: i * PAGE_CHARS,
    end: Math.min(text.length, (i + 1) * PAGE_CHARS),
    view: [0, 0, 0, 0] as [number, number, number, number],
    rotate: 0,
    fonts: [],
    items: [],
  }));
  return { kind: 'text', pages };
}

/** The product's chunking (structure-aware, with contexts) over pseudo-pages of PAGE_CHARS characters. */
function chunksOf(fileId: string, name: string, text: string): ChunkRecord[] {
  return chunkDocument(
    { text, index: pagesOf(text) },
    { fileId, name, version: 1, isLatest: true, docType: 'contract', docDate: '' },
  );
}

function spread<T>(items: T[], max: number): T[] {
  if (items.length <= max) return items;
  const step = items.length / max;
  return Array.from({ length: max }, (_, i) => items[Math.floor(i * step)]!);
}

interface Scores {
  r1: number;
  r5: number;
  r10: number;
  mrr: number;
  ndcg: number;
}

function score(results: { file: string; start: number; end: number }[], gold: Gold[]): Scores {
  const overlaps = (r: { file: string; start: number; end: number }, g: Gold) =>
    r.file === g.file && r.start < g.end && r.end > g.start;
  const recallAt = (k: number) =>
    gold.filter((g) => results.slice(0, k).some((r) => overlaps(r, g))).length / gold.length;
  const first = results.slice(0, 10).findIndex((r) => gold.some((g) => overlaps(r, g)));
  const credited = new Set<number>();
  let dcg = 0;
  results.slice(0, 10).forEach((r, i) => {
    const gi = gold.findIndex((g, j) => !credited.has(j) && overlaps(r, g));
    if (gi >= 0) {
      credited.add(gi);
      dcg += 1 / Math.log2(i + 2);
    }
  });
  let idcg = 0;
  for (let i = 0; i < Math.min(10, gold.length); i++) idcg += 1 / Math.log2(i + 2);
  return {
    r1: recallAt(1),
    r5: recallAt(5),
    r10: recallAt(10),
    mrr: first >= 0 ? 1 / (first + 1) : 0,
    ndcg: idcg ? dcg / idcg : 0,
  };
}

/** The three modes searched over the whole case (focus off), and the product's default: hybrid, focused on the documents a question names. */
const KINDS = [...MODES, 'default'] as const;
type Kind = (typeof KINDS)[number];

async function evaluate(
  engine: Engine,
  set: EvalSet,
  maxQueries: number,
): Promise<Record<Kind, Scores> & { queries: number; chunks: number; indexSeconds: number }> {
  const { id: caseId } = await engine.cases.create(`eval ${set.name}`);
  const sink = await createIndexSink(await engine.indexSinkOptions(caseId));
  const store = new CaseStore(engine.cases.caseDir(caseId));
  const fileIds = new Map<string, string>();
  let chunks = 0;
  const t0 = performance.now();
  let i = 0;
  for (const [name, text] of set.docs) {
    const fileId = `f${i++}`;
    fileIds.set(fileId, name);
    const records = chunksOf(fileId, name, text);
    chunks += records.length;
    await registerDoc(store, fileId, name, text, records);
    await sink.indexVersion(records, {});
    process.stdout.write(`\r  ${set.name}: indexed ${i}/${set.docs.size} files, ${chunks} chunks`);
  }
  await sink.close();
  const indexSeconds = (performance.now() - t0) / 1000;
  process.stdout.write(` in ${indexSeconds.toFixed(0)} s\n`);
  const tools = await openCaseTools(engine, caseId);
  const questions = spread(set.questions, maxQueries);
  const sums = Object.fromEntries(KINDS.map((m) => [m, { r1: 0, r5: 0, r10: 0, mrr: 0, ndcg: 0 }])) as Record<
    Kind,
    Scores
  >;
  for (const q of questions) {
    for (const mode of KINDS) {
      const res = await tools.search(mode === 'default' ? 'hybrid' : mode, {
        query: q.query,
        top_k: 10,
        ...(mode === 'default' ? {} : { focus: 'off' as const }),
      });
      if (mode !== 'keyword' && !res.semantic) throw new Error(`semantic search is off: ${res.semantic_reason}`);
      const s = score(
        res.results.map((r) => ({ file: fileIds.get(r.file_id)!, start: r.start, end: r.end })),
        q.gold,
      );
      for (const k of Object.keys(s) as (keyof Scores)[]) sums[mode][k] += s[k];
    }
  }
  for (const mode of KINDS)
    for (const k of Object.keys(sums[mode]) as (keyof Scores)[]) sums[mode][k] /= questions.length;
  return { ...sums, queries: questions.length, chunks, indexSeconds };
}

// ------------------------------------------------------------------ LegalBench-RAG's character-level measure

/** The depths LegalBench-RAG (Pipitone & Alami, 2024) reports precision and recall at. */
const LB_KS = [1, 2, 4, 8, 16, 32, 64] as const;

interface CharScores {
  /** Per depth of LB_KS: share of the retrieved characters that are gold. */
  precision: number[];
  /** Per depth of LB_KS: share of the gold characters retrieved. */
  recall: number[];
  /** 1 when the first passage overlaps a gold span. */
  first: number;
}

/** Sorted, overlapping or touching ranges merged, so a character counts once. */
function unionOf(ranges: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (const [s, e] of [...ranges].sort((a, b) => a[0] - b[0])) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

const lengthOf = (ranges: [number, number][]) => ranges.reduce((n, [s, e]) => n + (e - s), 0);

/** Characters two merged range lists share. */
function sharedChars(a: [number, number][], b: [number, number][]): number {
  let n = 0;
  for (const [s, e] of a) for (const [t, f] of b) n += Math.max(0, Math.min(e, f) - Math.max(s, t));
  return n;
}

/**
 * The benchmark's measure at each depth: the union of the top k passages' character ranges in
 * their files against the union of the gold spans (a query with nothing retrieved has precision 0).
 * The paper's code sums the overlap snippet by snippet; its chunks do not overlap, so that is the
 * union. Ours can (chunk overlap, a passage extended to its sentence end), so the union is taken.
 */
function charScores(results: { file: string; start: number; end: number }[], gold: Gold[]): CharScores {
  const byFile = (spans: { file: string; start: number; end: number }[]) => {
    const m = new Map<string, [number, number][]>();
    for (const s of spans) m.set(s.file, [...(m.get(s.file) ?? []), [s.start, s.end]]);
    return new Map([...m].map(([f, r]) => [f, unionOf(r)]));
  };
  const goldBy = byFile(gold);
  const goldChars = [...goldBy.values()].reduce((n, r) => n + lengthOf(r), 0);
  const precision: number[] = [];
  const recall: number[] = [];
  for (const k of LB_KS) {
    let retrieved = 0;
    let shared = 0;
    for (const [file, ranges] of byFile(results.slice(0, k))) {
      retrieved += lengthOf(ranges);
      shared += sharedChars(ranges, goldBy.get(file) ?? []);
    }
    precision.push(retrieved ? shared / retrieved : 0);
    recall.push(goldChars ? shared / goldChars : 0);
  }
  const top = results[0];
  const first = top && gold.some((g) => g.file === top.file && top.start < g.end && top.end > g.start) ? 1 : 0;
  return { precision, recall, first };
}

/**
 * A LegalBench-RAG corpus as a user would add it: its TXT files in one drop through `ingest.start`
 * (reader process, the text loader, ingest's chunker, the index sink, the embedding stage), then
 * every question searched in each mode, 64 deep. The stored text of each file must equal the TXT
 * the spans refer to, and each result's range must slice its own text from it; the run stops if not.
 */
async function evaluateLegalbench(
  engine: Engine,
  set: EvalSet,
  maxQueries: number,
): Promise<{
  rows: Record<Kind, Scores>;
  chars: Record<Kind, CharScores>;
  queries: number;
  chunks: number;
  ingestSeconds: number;
  checkedRanges: number;
}> {
  const base = path.join(corpus, 'legalbench-rag', 'corpus');
  const { id: caseId } = await engine.cases.create(`eval legalbench ${set.name}`);
  const relOf = new Map([...set.docs.keys()].map((rel) => [path.basename(rel), rel]));
  if (relOf.size !== set.docs.size) throw new Error(`${set.name}: two files share a name`);
  const t0 = performance.now();
  const run = await engine.router.call('ingest.start', {
    case_id: caseId,
    paths: [...set.docs.keys()].map((rel) => path.join(base, rel)),
  });
  const ingestSeconds = (performance.now() - t0) / 1000;
  if (!('results' in run)) throw new Error('ingest did not finish');
  const bad = run.results.filter((r) => r.status !== 'indexed');
  if (bad.length)
    throw new Error(`${set.name}: not indexed: ${bad.map((b) => `${b.name} (${b.status} ${b.reason})`).join(', ')}`);
  const store = new CaseStore(engine.cases.caseDir(caseId));
  const fileIds = new Map<string, string>();
  // Where a file's stored text starts in its TXT: ingest's decoder drops a leading byte-order mark
  // (the MAUD files have one), which the benchmark's spans count.
  const shiftOf = new Map<string, number>();
  for (const r of run.results) {
    const rel = relOf.get(r.name);
    if (!rel) throw new Error(`${set.name}: ingest named a file "${r.name}" that is not in the corpus`);
    // The spans are offsets into the TXT: the text ingest stored must be that text, character for character.
    const stored = await store.readText(r.file_id, r.version);
    const txt = set.docs.get(rel)!;
    const shift = stored === txt ? 0 : txt.startsWith('\uFEFF') && stored === txt.slice(1) ? 1 : -1;
    if (shift < 0) throw new Error(`${set.name}: the stored text of ${rel} differs from its TXT`);
    fileIds.set(r.file_id, rel);
    shiftOf.set(r.file_id, shift);
  }
  const files = (await engine.router.call('files.list', { case_id: caseId })).files;
  const chunks = files.reduce((n, f) => n + (f.versions.at(-1)?.chunks ?? 0), 0);
  console.log(`  ${set.name}: ${set.docs.size} TXT files ingested in ${ingestSeconds.toFixed(0)} s (${chunks} chunks)`);
  const tools = await openCaseTools(engine, caseId);
  const questions = spread(set.questions, maxQueries);
  const rows = Object.fromEntries(KINDS.map((m) => [m, { r1: 0, r5: 0, r10: 0, mrr: 0, ndcg: 0 }])) as Record<
    Kind,
    Scores
  >;
  const chars = Object.fromEntries(
    KINDS.map((m) => [m, { precision: LB_KS.map(() => 0), recall: LB_KS.map(() => 0), first: 0 }]),
  ) as Record<Kind, CharScores>;
  let checkedRanges = 0;
  for (const [qi, q] of questions.entries()) {
    for (const mode of KINDS) {
      const res = await tools.search(mode === 'default' ? 'hybrid' : mode, {
        query: q.query,
        top_k: 64,
        ...(mode === 'default' ? {} : { focus: 'off' as const }),
      });
      if (mode !== 'keyword' && !res.semantic) throw new Error(`semantic search is off: ${res.semantic_reason}`);
      const spans = res.results.map((r) => {
        const file = fileIds.get(r.file_id)!;
        const shift = shiftOf.get(r.file_id)!;
        const span = { file, start: r.start + shift, end: r.end + shift };
        if (set.docs.get(file)!.slice(span.start, span.end) !== r.text)
          throw new Error(
            `${set.name}: a result's range does not slice its text from ${file} (${span.start}-${span.end})`,
          );
        checkedRanges++;
        return span;
      });
      const s = score(spans, q.gold);
      for (const k of Object.keys(s) as (keyof Scores)[]) rows[mode][k] += s[k];
      const c = charScores(spans, q.gold);
      LB_KS.forEach((_, i) => {
        chars[mode].precision[i]! += c.precision[i]!;
        chars[mode].recall[i]! += c.recall[i]!;
      });
      chars[mode].first += c.first;
    }
    process.stdout.write(`\r  ${set.name}: ${qi + 1}/${questions.length} questions`);
  }
  process.stdout.write(` (${checkedRanges} result ranges checked against the TXT)\n`);
  const n = questions.length;
  for (const mode of KINDS) {
    for (const k of Object.keys(rows[mode]) as (keyof Scores)[]) rows[mode][k] /= n;
    chars[mode].precision = chars[mode].precision.map((v) => v / n);
    chars[mode].recall = chars[mode].recall.map((v) => v / n);
    chars[mode].first /= n;
  }
  return { rows, chars, queries: n, chunks, ingestSeconds, checkedRanges };
}

// ------------------------------------------------------------------ cuad-clauses (ingested PDFs)

const CLAUSE_CASE = 'eval cuad-clauses';

/** The clause sets asked over the ingested CUAD case. */
type ClauseSet = 'cuad-clauses' | 'cuad-client' | 'cuad-client-tune';
const CLAUSE_SETS: readonly ClauseSet[] = ['cuad-clauses', 'cuad-client', 'cuad-client-tune'];
const isClauseSet = (name: string): name is ClauseSet => (CLAUSE_SETS as readonly string[]).includes(name);

/** The questions of a clause set; the ingested case is always the cuad-clauses one. */
function clauseQuestions(setName: ClauseSet, all: ClauseQuestion[]): ClauseQuestion[] {
  if (setName === 'cuad-client') return cuadClientClauses();
  if (setName === 'cuad-client-tune') return cuadClientTuneClauses();
  return all;
}

const DEFAULT_KIND = 'default (hybrid, focused)';
const GOLD_ONLY = 'hybrid, gold contract only';

async function evaluateClauses(
  engine: Engine,
  maxQueries: number,
  setName: ClauseSet = 'cuad-clauses',
): Promise<{
  rows: Record<string, Scores>;
  routing: Record<string, number>;
  queries: number;
  docs: number;
  chunks: number;
  ingestSeconds: number;
  reindexSeconds: number;
}> {
  const all = cuadClauses();
  const pdfs = [...new Set(all.map((q) => q.pdf))].sort();
  // Every contract in one drop, as a user drags a data room in (each file keeps its own name).
  const nameOf = new Map(pdfs.map((pdf) => [path.basename(pdf), pdf]));
  if (nameOf.size !== pdfs.length) throw new Error('two CUAD PDFs share a file name');
  const kept = (await engine.router.call('cases.list', {})).cases.find((c) => c.name === CLAUSE_CASE);
  let ingestSeconds = NaN;
  const caseId = kept ? kept.id : (await engine.cases.create(CLAUSE_CASE)).id;
  let reindexSeconds = NaN;
  if (kept) {
    console.log(`  cuad-clauses: reusing the ingested case in this home (${caseId})`);
    // A case kept from an earlier run is upgraded to the current chunking from its stored text, as the app does.
    const t0 = performance.now();
    const r = await engine.router.call('index.reindex', {
      case_id: caseId,
      ...(process.env.EVAL_REINDEX_ALL ? { all: true } : {}),
    });
    if (r.versions) {
      reindexSeconds = (performance.now() - t0) / 1000;
      console.log(
        `  cuad-clauses: re-indexed ${r.versions} documents (${r.chunks} chunks) from stored text in ${reindexSeconds.toFixed(0)} s`,
      );
    }
  } else {
    const t0 = performance.now();
    const run = await engine.router.call('ingest.start', {
      case_id: caseId,
      paths: pdfs.map((pdf) => path.join(corpus, 'cuad', pdf)),
    });
    ingestSeconds = (performance.now() - t0) / 1000;
    if (!('results' in run)) throw new Error('ingest did not finish');
    const bad = run.results.filter((r) => r.status !== 'indexed');
    if (bad.length)
      console.log(
        `  cuad-clauses: ${bad.length} files not indexed: ${bad.map((b) => `${b.name} (${b.status})`).join(', ')}`,
      );
  }
  const files = (await engine.router.call('files.list', { case_id: caseId })).files;
  const chunks = files.reduce((n, f) => n + (f.versions.at(-1)?.chunks ?? 0), 0);
  console.log(
    `  cuad-clauses: ${pdfs.length} PDFs (${chunks} chunks)${kept ? '' : `, ingested in ${ingestSeconds.toFixed(0)} s`}`,
  );
  const tools = await openCaseTools(engine, caseId);
  // The client sets ask about the same case: the 363 set's PDFs are what is ingested.
  const asked = clauseQuestions(setName, all);
  const stray = asked.find((q) => !pdfs.includes(q.pdf));
  if (stray) throw new Error(`${setName}: ${stray.pdf} is not in the ingested case`);
  const questions = spread(asked, maxQueries);
  const kinds = [...MODES, DEFAULT_KIND, GOLD_ONLY] as const;
  const sums = Object.fromEntries(kinds.map((k) => [k, { r1: 0, r5: 0, r10: 0, mrr: 0, ndcg: 0 }])) as Record<
    string,
    Scores
  >;
  const routing = { goldFocused: 0, focused: 0, focusSize: 0, unnamed: 0, unnamedFocused: 0 };
  for (const q of questions) {
    const goldName = [...nameOf].find(([, pdf]) => pdf === q.pdf)![0];
    for (const kind of kinds) {
      const args =
        kind === GOLD_ONLY ? { file_name: goldName } : kind === DEFAULT_KIND ? {} : { focus: 'off' as const };
      const res = await tools.search(kind === GOLD_ONLY || kind === DEFAULT_KIND ? 'hybrid' : kind, {
        query: q.query,
        top_k: 10,
        ...args,
      });
      if (kind !== 'keyword' && !res.semantic) throw new Error(`semantic search is off: ${res.semantic_reason}`);
      if (kind === DEFAULT_KIND && res.focus) {
        routing.focused++;
        routing.focusSize += res.focus.files.length;
        if (res.focus.files.some((f) => f.file_name === goldName)) routing.goldFocused++;
      }
      const hits = res.results.map((r) =>
        holdsClause({ file: nameOf.get(r.file_name) ?? '', pages: r.pages, text: r.text }, q),
      );
      const first = hits.indexOf(true);
      const at = (k: number) => (hits.slice(0, k).some(Boolean) ? 1 : 0);
      const s = sums[kind]!;
      s.r1 += at(1);
      s.r5 += at(5);
      s.r10 += at(10);
      s.mrr += first >= 0 ? 1 / (first + 1) : 0;
      s.ndcg += first >= 0 ? 1 / Math.log2(first + 2) : 0;
    }
  }
  for (const line of readFileSync(path.join(here, 'data', 'unnamed-questions.txt'), 'utf8').split('\n')) {
    if (!line.trim() || line.startsWith('#') || setName !== 'cuad-clauses') continue;
    routing.unnamed++;
    const res = await tools.search('hybrid', { query: line, top_k: 10 });
    if (res.focus) {
      routing.unnamedFocused++;
      if (process.env.EVAL_VERBOSE)
        console.log(
          `  focused an unnamed question: "${line}" → ${res.focus.files.map((f) => f.file_name).join(', ')} (${res.focus.matched.join(', ')})`,
        );
    }
  }
  for (const k of kinds) for (const m of Object.keys(sums[k]!) as (keyof Scores)[]) sums[k]![m] /= questions.length;
  const routed = {
    gold_in_focus: routing.goldFocused / questions.length,
    focused: routing.focused / questions.length,
    mean_focus_size: routing.focused ? routing.focusSize / routing.focused : 0,
    ...(setName === 'cuad-clauses'
      ? { unnamed_focused: routing.unnamed ? routing.unnamedFocused / routing.unnamed : 0 }
      : {}),
  };
  return {
    rows: sums,
    routing: routed,
    queries: questions.length,
    docs: pdfs.length,
    chunks,
    ingestSeconds,
    reindexSeconds,
  };
}

/** A knob setting to try: overrides of RETRIEVAL_TUNING (src/core/retrieval/tuning.ts). */
interface Variant {
  name: string;
  tuning: Partial<Omit<RetrievalTuning, 'routing'>> & { routing?: Partial<RetrievalTuning['routing']> };
}

/**
 * `--variants FILE` (a JSON list of {name, tuning}): the default search and the gold-contract-only
 * search again under each setting, in this process (the index is the same; only query-time knobs
 * change). How the values in tuning.ts were chosen.
 */
async function sweepClauses(
  engine: Engine,
  variants: Variant[],
  maxQueries: number,
  setName: ClauseSet,
): Promise<void> {
  const all = cuadClauses();
  // The held-out set is swept only to report a lever chosen without it (issue 35: report both sets);
  // cuad-client-tune is the client-worded set to choose levers on.
  const asked = clauseQuestions(setName, all);
  const nameOf = new Map([...new Set(all.map((q) => q.pdf))].map((pdf) => [path.basename(pdf), pdf]));
  const caseId = (await engine.router.call('cases.list', {})).cases.find((c) => c.name === CLAUSE_CASE)?.id;
  if (!caseId) throw new Error('--variants needs the cuad-clauses case: run with --sets cuad-clauses --home DIR first');
  const questions = spread(asked, maxQueries);
  const saved = structuredClone(RETRIEVAL_TUNING);
  console.log('\nvariant                         R@1    R@5    R@10   MRR    gold-only R@10');
  for (const v of variants) {
    Object.assign(RETRIEVAL_TUNING, structuredClone(saved), v.tuning, {
      routing: { ...saved.routing, ...v.tuning.routing },
    });
    const tools = await openCaseTools(engine, caseId);
    const s = { r1: 0, r5: 0, r10: 0, mrr: 0, gold: 0 };
    for (const q of questions) {
      const goldName = [...nameOf].find(([, pdf]) => pdf === q.pdf)![0];
      for (const gold of [false, true]) {
        const res = await tools.search('hybrid', {
          query: q.query,
          top_k: 10,
          ...(gold ? { file_name: goldName } : {}),
        });
        const hits = res.results.map((r) =>
          holdsClause({ file: nameOf.get(r.file_name) ?? '', pages: r.pages, text: r.text }, q),
        );
        const first = hits.indexOf(true);
        if (gold) {
          s.gold += first >= 0 ? 1 : 0;
          continue;
        }
        s.r1 += first === 0 ? 1 : 0;
        s.r5 += first >= 0 && first < 5 ? 1 : 0;
        s.r10 += first >= 0 ? 1 : 0;
        s.mrr += first >= 0 ? 1 / (first + 1) : 0;
      }
    }
    const n = questions.length;
    console.log(
      `${v.name.padEnd(30)}  ${[s.r1, s.r5, s.r10, s.mrr, s.gold].map((x) => (x / n).toFixed(3)).join('  ')}`,
    );
  }
  Object.assign(RETRIEVAL_TUNING, saved);
}

/** The sets scored as LegalBench-RAG scores them, each ingested through the real pipeline. */
const LEGALBENCH = new Set(['contractnli', 'privacy_qa', 'maud']);

/** `legalbench.<set>.<mode>.precision@k` / `recall@k` / `first_overlap` into the metrics, and the rows of the printed table. */
function putLegalbench(
  metrics: Metrics,
  table: string[][],
  set: EvalSet,
  lb: Awaited<ReturnType<typeof evaluateLegalbench>>,
): void {
  const note = `${lb.queries} of ${set.questions.length} questions, ${set.docs.size} TXT files ingested through ingest.start (${lb.chunks} chunks), all-MiniLM-L6-v2; characters, as LegalBench-RAG`;
  for (const mode of KINDS) {
    const c = lb.chars[mode];
    const put = (metric: string, value: number) => {
      metrics[`legalbench.${set.name}.${mode}.${metric}`] = { value: Number(value.toFixed(4)), unit: 'ratio', note };
    };
    LB_KS.forEach((k, i) => {
      put(`precision@${k}`, c.precision[i]!);
      put(`recall@${k}`, c.recall[i]!);
    });
    put('first_overlap', c.first);
    table.push([set.name, mode, 'precision', ...c.precision.map((v) => v.toFixed(3))]);
    table.push([set.name, mode, 'recall', ...c.recall.map((v) => v.toFixed(3))]);
    table.push([set.name, mode, 'first', c.first.toFixed(3), ...LB_KS.slice(1).map(() => '')]);
  }
  metrics[`legalbench.${set.name}.ingest_seconds`] = {
    value: Number(lb.ingestSeconds.toFixed(1)),
    unit: 's',
    note: `${set.docs.size} TXT files, one drop, embedding included`,
  };
  metrics[`legalbench.${set.name}.queries`] = { value: lb.queries, unit: 'questions', note };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'max-queries': { type: 'string' },
      sets: { type: 'string' },
      'cuad-docs': { type: 'string' },
      home: { type: 'string' },
      variants: { type: 'string' },
    },
  });
  const maxQueries = Number(values['max-queries'] ?? 250);
  const cuadDocs = Number(values['cuad-docs'] ?? 15);
  const wanted = (values.sets ?? 'contractnli,privacy_qa,maud,cuad').split(',');
  const keepHome = values.home !== undefined;
  const home = keepHome ? path.resolve(values.home!) : mkdtempSync(path.join(os.tmpdir(), 'casefile-eval-'));
  mkdirSync(home, { recursive: true });
  const metrics: Metrics = {};
  const rows: string[][] = [];
  const charRows: string[][] = [];
  try {
    if (!existsSync(path.join(home, 'models'))) await installTestModels(home);
    const engine = await Engine.open({ home });
    try {
      const loaders: Record<string, () => EvalSet> = {
        contractnli: () => legalbench('contractnli', 'contractnli.json'),
        privacy_qa: () => legalbench('privacy_qa', 'privacy_qa.json'),
        maud: () => legalbench('maud', 'derived_maud_subset.json'),
        cuad: () => cuad(cuadDocs),
      };
      if (values.variants) {
        const variants = JSON.parse(readFileSync(values.variants, 'utf8')) as Variant[];
        await sweepClauses(
          engine,
          variants,
          values['max-queries'] ? maxQueries : Infinity,
          wanted.includes('cuad-client')
            ? 'cuad-client'
            : wanted.includes('cuad-client-tune')
              ? 'cuad-client-tune'
              : 'cuad-clauses',
        );
        return;
      }
      for (const name of wanted) {
        if (isClauseSet(name)) {
          const r = await evaluateClauses(engine, values['max-queries'] ? maxQueries : Infinity, name);
          const what =
            name === 'cuad-client'
              ? 'held-out client-worded clause questions'
              : name === 'cuad-client-tune'
                ? 'client-worded clause questions to tune on'
                : 'hand-written clause questions';
          const note = `${r.queries} ${what}, ${r.docs} CUAD PDFs ingested as one case (${r.chunks} chunks), all-MiniLM-L6-v2`;
          for (const [kind, s] of Object.entries(r.rows)) {
            rows.push([name, kind, ...[s.r1, s.r5, s.r10, s.mrr, s.ndcg].map((v) => v.toFixed(3)), String(r.queries)]);
            const key = kind === GOLD_ONLY ? 'hybrid_gold_doc' : kind === DEFAULT_KIND ? 'default' : kind;
            for (const [metric, value] of [
              ['recall@1', s.r1],
              ['recall@5', s.r5],
              ['recall@10', s.r10],
              ['mrr@10', s.mrr],
            ] as const) {
              metrics[`retrieval.${name}.${key}.${metric}`] = { value: Number(value.toFixed(4)), unit: 'ratio', note };
            }
          }
          for (const [routingName, value] of Object.entries(r.routing)) {
            console.log(`  ${name} routing ${routingName}: ${value.toFixed(3)}`);
            metrics[`retrieval.${name}.routing.${routingName}`] = {
              value: Number(value.toFixed(4)),
              unit: routingName === 'mean_focus_size' ? 'docs' : 'ratio',
              note,
            };
          }
          if (Number.isFinite(r.reindexSeconds))
            metrics['retrieval.cuad-clauses.reindex_seconds'] = {
              value: Number(r.reindexSeconds.toFixed(1)),
              unit: 's',
              note: `${r.docs} PDFs upgraded from stored text (no parsing), embedding included`,
            };
          if (Number.isFinite(r.ingestSeconds))
            metrics['retrieval.cuad-clauses.ingest_seconds'] = {
              value: Number(r.ingestSeconds.toFixed(1)),
              unit: 's',
              note: `${r.docs} PDFs, one drop, embedding included`,
            };
          continue;
        }
        const load = loaders[name];
        if (!load)
          throw new Error(`unknown set "${name}" (sets: ${[...Object.keys(loaders), ...CLAUSE_SETS].join(', ')})`);
        const set = load();
        const lb = LEGALBENCH.has(name) ? await evaluateLegalbench(engine, set, maxQueries) : null;
        if (lb) putLegalbench(metrics, charRows, set, lb);
        // Each set's figures are kept as soon as it is done: a long run stopped later keeps them.
        if (lb) await mergeResults(metrics);
        const r = lb ? { ...lb.rows, queries: lb.queries, chunks: lb.chunks } : await evaluate(engine, set, maxQueries);
        const note = `${r.queries} questions, ${set.docs.size} docs, ${r.chunks} chunks, all-MiniLM-L6-v2${lb ? ', TXT ingested through ingest.start' : ''}`;
        for (const mode of KINDS) {
          const s = r[mode];
          rows.push([
            set.name,
            mode,
            ...[s.r1, s.r5, s.r10, s.mrr, s.ndcg].map((v) => v.toFixed(3)),
            String(r.queries),
          ]);
          const put = (metric: string, value: number) => {
            metrics[`retrieval.${set.name}.${mode}.${metric}`] = {
              value: Number(value.toFixed(4)),
              unit: 'ratio',
              note,
            };
          };
          put('recall@1', s.r1);
          put('recall@5', s.r5);
          put('recall@10', s.r10);
          put('mrr@10', s.mrr);
          put('ndcg@10', s.ndcg);
        }
      }
    } finally {
      await engine.close();
    }
  } finally {
    if (!keepHome) rmSync(home, { recursive: true, force: true });
  }
  const header = ['set', 'mode', 'R@1', 'R@5', 'R@10', 'MRR', 'nDCG@10', 'n'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  console.log('\n' + [header, ...rows].map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ')).join('\n'));
  if (charRows.length) {
    const lbHeader = ['set', 'mode', 'measure', ...LB_KS.map((k) => `@${k}`)];
    const lbWidths = lbHeader.map((h, i) => Math.max(h.length, ...charRows.map((r) => r[i]!.length)));
    console.log(
      '\nLegalBench-RAG, characters (precision, recall at k; first = first passage overlaps gold)\n' +
        [lbHeader, ...charRows].map((r) => r.map((c, i) => c.padEnd(lbWidths[i]!)).join('  ')).join('\n'),
    );
  }
  await mergeResults(metrics);
  console.log('\nmerged into bench/results.json:');
  printTable(metrics);
}

await main();
