import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { keywordLabel, vectorLabel } from '../../src/core/retrieval/labels';
import { createIndexSink } from '../../src/core/retrieval/sink';
import { sqlString } from '../../src/core/retrieval/sql';
import { ChunkStore, filterToWhere } from '../../src/core/retrieval/store';
import { openCaseTools } from '../../src/core/tools/index';
import { CasefileError } from '../../src/shared/errors';
import { tempHome } from '../helpers/home';
import { chunkDoc, corpusText, indexDocs, recordDocs, type DocSpec } from './helpers';

const BT = corpusText('legalbench-rag/corpus/contractnli/BT_NDA.txt');
const COPACC = corpusText('legalbench-rag/corpus/contractnli/CopAcc_NDA-and-ToP-Mentors_2.0_2017.txt');
const FIVERR = corpusText('legalbench-rag/corpus/privacy_qa/Fiverr.txt');

const DOCS: DocSpec[] = [
  { fileId: 'f-bt', name: 'contracts/BT_NDA.txt', text: BT, docType: 'contract', date: '2017-03-01' },
  {
    fileId: 'f-copacc',
    name: "contracts/CopAcc O'Mentors NDA.txt",
    text: COPACC,
    docType: 'contract',
    date: '2017-06-15',
  },
  { fileId: 'f-fiverr', name: 'policies/Fiverr.txt', text: FIVERR, docType: 'correspondence' },
];

let engine: Engine;
let home: string;

beforeEach(async () => {
  home = tempHome();
  engine = await Engine.open({ home });
});
afterEach(async () => {
  await engine.close();
});

async function newCase(name: string, docs: DocSpec[] = DOCS): Promise<string> {
  const { id } = await engine.cases.create(name);
  await indexDocs(engine, id, docs);
  return id;
}

describe('quality labels', () => {
  it('keywordLabel / vectorLabel – follow the thresholds of the issue', () => {
    expect([15, 14.99, 8, 7.99, 3, 2.99, 1, 0.99, 0].map(keywordLabel)).toEqual([
      'strong',
      'good',
      'good',
      'partial',
      'partial',
      'weak',
      'weak',
      'none',
      'none',
    ]);
    expect([0.5, 0.49, 0.35, 0.34, 0.2, 0.19, -0.1].map(vectorLabel)).toEqual([
      'strong',
      'good',
      'good',
      'marginal',
      'marginal',
      'noise',
      'noise',
    ]);
  });
});

describe('filters – SQL escaping', () => {
  it('sqlString – doubles quotes so user text cannot end the literal', () => {
    expect(sqlString("O'Brien")).toBe("'O''Brien'");
    const where = filterToWhere({ file_name: "x' OR '1'='1", file_version: 'latest' })!;
    expect(where).toContain("file_name = 'x'' OR ''1''=''1'");
  });
});

describe('a case whose first write is still making its table', () => {
  it('reads as a case with nothing indexed yet, not as an error (the embedding stage asks then)', async () => {
    const dir = tempHome();
    // What another connection sees while the first add is under way: the table's folder, no version yet.
    mkdirSync(path.join(dir, 'lancedb', 'chunks.lance', 'data'), { recursive: true });
    const store = await ChunkStore.open(dir);
    try {
      expect(await store.table()).toBeNull();
      expect(await store.embeddedShare()).toBeNull();
    } finally {
      store.close();
    }
  });
});

describe('keyword search (LanceDB BM25)', () => {
  it('keyword_search – finds the governing-law clause with BM25 scores, labels and citation records', async () => {
    const caseId = await newCase('K');
    const tools = await openCaseTools(engine, caseId);
    const res = await tools.keyword_search({ query: 'governed by the laws of the Republic of South Africa', top_k: 5 });
    expect(res.semantic).toBe(false);
    expect(res.semantic_reason).toMatch(/embedding model/i);
    expect(res.results.length).toBeGreaterThan(0);
    const top = res.results[0]!;
    expect(top.file_name).toBe('contracts/BT_NDA.txt');
    expect(top.text).toContain('Republic of South Africa');
    expect(BT.slice(top.start, top.end)).toBe(top.text);
    expect(top.score).toBeGreaterThan(0);
    expect(top.label).toBe(keywordLabel(top.score));
    expect(top.scores.keyword).toEqual({ rank: 1, score: top.score, label: top.label });
    // Scores descend; citation ids are short and unique.
    for (let i = 1; i < res.results.length; i++)
      expect(res.results[i - 1]!.score).toBeGreaterThanOrEqual(res.results[i]!.score);
    const ids = res.results.map((r) => r.citation.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(top.citation).toMatchObject({
      file_id: 'f-bt',
      file_name: 'contracts/BT_NDA.txt',
      version: 1,
      start: top.start,
      end: top.end,
    });
    expect(top.citation.id).toMatch(/^c[0-9a-z]{5}$/);
    expect(tools.ledger.get(top.citation.id)).toEqual(top.citation);
  });

  it('retrieve – without an embedding model falls back to keyword and says semantic search is off', async () => {
    const caseId = await newCase('K');
    const tools = await openCaseTools(engine, caseId);
    const res = await tools.retrieve({ query: 'Federal Republic of Germany material laws' });
    expect(res.semantic).toBe(false);
    expect(res.semantic_reason).toBeTruthy();
    expect(res.results[0]!.file_id).toBe('f-copacc');
    await expect(tools.vector_search({ query: 'x' })).rejects.toMatchObject({ code: 'unavailable' });
    expect(res.reranked).toBeUndefined();
  });

  it('retrieve – reranking asked for without a reranker model says it did not happen, and why', async () => {
    const caseId = await newCase('K');
    const tools = await openCaseTools(engine, caseId);
    const plain = await tools.retrieve({ query: 'Federal Republic of Germany material laws' });
    const res = await tools.retrieve({ query: 'Federal Republic of Germany material laws', rerank_top_n: 5 });
    expect(res.reranked).toBe(false);
    expect(res.rerank_reason).toMatch(/no reranker model/);
    expect(res.results.map((r) => r.chunk_id)).toEqual(plain.results.map((r) => r.chunk_id));
    const keyword = await tools.search('keyword', {
      query: 'Federal Republic of Germany material laws',
      top_k: 5,
      rerank_top_n: 5,
    });
    expect(keyword).toMatchObject({ reranked: false, rerank_reason: 'reranking applies to hybrid search only' });
  });

  it('filters – file_name, file_name_contains (quotes and case), doc_type, date range, score_threshold', async () => {
    const caseId = await newCase('K');
    const tools = await openCaseTools(engine, caseId);
    const q = { query: 'confidential information disclosure' };
    const all = await tools.keyword_search({ ...q, top_k: 50 });
    expect(new Set(all.results.map((r) => r.file_id)).size).toBe(3);
    const byName = await tools.keyword_search({ ...q, file_name: 'contracts/BT_NDA.txt' });
    expect(byName.results.length).toBeGreaterThan(0);
    expect(byName.results.every((r) => r.file_id === 'f-bt')).toBe(true);
    const contains = await tools.keyword_search({ ...q, file_name_contains: "copacc o'MENTORS" });
    expect(contains.results.length).toBeGreaterThan(0);
    expect(contains.results.every((r) => r.file_id === 'f-copacc')).toBe(true);
    const injection = await tools.keyword_search({ ...q, file_name: "x' OR '1'='1" });
    expect(injection.results).toEqual([]);
    const policies = await tools.keyword_search({ ...q, doc_type: 'correspondence', top_k: 50 });
    expect(policies.results.every((r) => r.file_id === 'f-fiverr')).toBe(true);
    const dated = await tools.keyword_search({ ...q, date_from: '2017-05-01', date_to: '2017-12-31', top_k: 50 });
    expect(new Set(dated.results.map((r) => r.file_id))).toEqual(new Set(['f-copacc']));
    const threshold = all.results[2]!.score;
    const strong = await tools.keyword_search({ ...q, top_k: 50, score_threshold: threshold });
    expect(strong.results.length).toBeGreaterThanOrEqual(3);
    expect(strong.results.every((r) => r.score >= threshold)).toBe(true);
  });

  it('file_version – latest by default, a given version on request; removeFile drops chunks', async () => {
    const { id: caseId } = await engine.cases.create('V');
    const v1 = 'The rent is one thousand dollars per month, payable on the first day of each month.';
    const v2 = 'The rent is two thousand dollars per month, payable on the fifth day of each month.';
    await recordDocs(engine, caseId, [
      { fileId: 'f-lease', name: 'lease.txt', text: v1, version: 1 },
      { fileId: 'f-lease', name: 'lease.txt', text: v2, version: 2 },
    ]);
    const sink = await createIndexSink(await engine.indexSinkOptions(caseId));
    await sink.indexVersion(chunkDoc({ fileId: 'f-lease', name: 'lease.txt', text: v1, version: 1 }), {});
    await sink.indexVersion(chunkDoc({ fileId: 'f-lease', name: 'lease.txt', text: v2, version: 2 }), {});
    await sink.setLatest('f-lease', 2);
    // Re-indexing a version (a resumed ingest) leaves one copy.
    await sink.indexVersion(chunkDoc({ fileId: 'f-lease', name: 'lease.txt', text: v2, version: 2 }), {});
    await sink.setLatest('f-lease', 2);
    await sink.close();
    const tools = await openCaseTools(engine, caseId);
    const latest = await tools.keyword_search({ query: 'rent dollars per month' });
    expect(latest.results.map((r) => r.version)).toEqual([2]);
    const old = await tools.keyword_search({ query: 'rent dollars per month', file_version: 1 });
    expect(old.results.map((r) => r.text)).toEqual([v1]);
    const every = await tools.keyword_search({ query: 'rent dollars per month', file_version: 'all' });
    expect(every.results.map((r) => r.version).sort()).toEqual([1, 2]);
    const files = await tools.findFiles();
    expect(files.files).toMatchObject([{ id: 'f-lease', name: 'lease.txt', version: 2, versions: [1, 2] }]);

    const sink2 = await createIndexSink(await engine.indexSinkOptions(caseId));
    await sink2.removeFile('f-lease', [2]);
    await sink2.setLatest('f-lease', 1);
    await sink2.close();
    expect((await tools.keyword_search({ query: 'rent dollars per month' })).results.map((r) => r.version)).toEqual([
      1,
    ]);
    const sink3 = await createIndexSink(await engine.indexSinkOptions(caseId));
    await sink3.removeFile('f-lease');
    await sink3.close();
    expect((await tools.keyword_search({ query: 'rent', file_version: 'all' })).results).toEqual([]);
  });

  it('dedup and rejection – identical chunk text appears once (best score); rejected hashes never', async () => {
    const { id: caseId } = await engine.cases.create('D');
    const clause =
      'Each party shall indemnify and hold harmless the other party against all claims arising from its negligence.';
    await indexDocs(engine, caseId, [
      { fileId: 'f-a', name: 'a.txt', text: clause },
      { fileId: 'f-b', name: 'b.txt', text: clause },
      { fileId: 'f-c', name: 'c.txt', text: `${clause} Indemnify means indemnify.` },
    ]);
    const tools = await openCaseTools(engine, caseId);
    const res = await tools.keyword_search({ query: 'indemnify hold harmless' });
    const hashes = res.results.map((r) => r.hash);
    expect(new Set(hashes).size).toBe(hashes.length);
    expect(res.results).toHaveLength(2);
    const rejected = await tools.keyword_search({
      query: 'indemnify hold harmless',
      reject_hashes: [res.results[0]!.hash],
    });
    expect(rejected.results.map((r) => r.hash)).toEqual([res.results[1]!.hash]);
  });

  it('sink – concurrent indexVersion calls (ingest lanes) store every version exactly once', async () => {
    const { id: caseId } = await engine.cases.create('Lanes');
    const docs = await recordDocs(
      engine,
      caseId,
      Array.from({ length: 8 }, (_, i) => ({
        fileId: `f${i}`,
        name: `f${i}.txt`,
        text: `${BT.slice(i * 500, i * 500 + 2500)} marker${i}`,
      })),
    );
    const sink = await createIndexSink(await engine.indexSinkOptions(caseId));
    await Promise.all([...docs, docs[3]!, docs[5]!].map((c) => sink.indexVersion(c, {})));
    await sink.close();
    const store = await ChunkStore.open(engine.cases.caseDir(caseId));
    expect(await store.count()).toBe(docs.reduce((n, d) => n + d.length, 0));
    store.close();
    const tools = await openCaseTools(engine, caseId);
    expect((await tools.keyword_search({ query: 'marker5' })).results.map((r) => r.file_id)).toEqual(['f5']);
  });

  it('store – many small ingests are compacted and the indexes stay current', async () => {
    const { id: caseId } = await engine.cases.create('Many');
    const docs: DocSpec[] = Array.from({ length: 30 }, (_, i) => ({
      fileId: `f${i}`,
      name: `note-${i}.txt`,
      text: `Memo ${i}: the witness number ${i} saw a zebracrossing${i}.`,
    }));
    await indexDocs(engine, caseId, docs);
    const store = await ChunkStore.open(engine.cases.caseDir(caseId));
    const table = (await store.table())!;
    const stats = await table.stats();
    expect(stats.fragmentStats.numFragments).toBeLessThan(5);
    // Full text on text and context; the columns every search filters by, so a query never reads them whole.
    const indices = await table.listIndices();
    expect(indices.map((i) => `${i.columns[0]}:${i.indexType}`).sort()).toEqual([
      'context:FTS',
      'file_id:BTree',
      'is_latest:Bitmap',
      'text:FTS',
    ]);
    for (const index of indices) expect((await table.indexStats(index.name))?.numUnindexedRows).toBe(0);
    store.close();
    const tools = await openCaseTools(engine, caseId);
    const hit = await tools.keyword_search({ query: 'zebracrossing17' });
    expect(hit.results.map((r) => r.file_name)).toEqual(['note-17.txt']);
  });
});

describe('query words are words', () => {
  it('quotes, AND/OR and field:value in a query are searched as words, never parsed as query syntax', async () => {
    const { id: caseId } = await engine.cases.create('Syntax');
    await indexDocs(engine, caseId, [
      {
        fileId: 'f1',
        name: 'memo.txt',
        text: 'The tenant shall pay rent monthly. Notice: text:field AND OR "quoted words" appear here.',
      },
    ]);
    const tools = await openCaseTools(engine, caseId);
    for (const query of ['"pay rent monthly"', 'rent AND', 'text:field', '(unbalanced "quote']) {
      const res = await tools.keyword_search({ query, top_k: 3 });
      expect(
        res.results.map((r) => r.file_name),
        query,
      ).toEqual(['memo.txt']);
    }
  });
});

describe('adjacency expansion', () => {
  it('a passage cut mid-sentence by its chunk comes with the rest of the sentence, still the document’s exact words', async () => {
    const { id: caseId } = await engine.cases.create('Cut');
    const sentences = Array.from(
      { length: 12 },
      (_, i) =>
        `Clause ${i}: the supplier shall deliver every order within ${i + 10} days of the purchase order and keep written records of each delivery.`,
    );
    const text = sentences.join(' ');
    const [chunks] = await indexDocs(engine, caseId, [{ fileId: 'f1', name: 'supply.txt', text }]);
    const first = chunks![0]!;
    expect(first.text).not.toMatch(/[.;:]\s*$/); // the chunker cut it mid-sentence
    const unique = first.text.trim().split(' ').slice(-6, -1).join(' ');
    const tools = await openCaseTools(engine, caseId);
    const res = await tools.keyword_search({ query: unique, top_k: 1 });
    const r = res.results[0]!;
    expect(r.chunk_id).toBe(first.chunk_id);
    expect(r.end).toBeGreaterThan(first.end);
    expect(r.text).toBe(text.slice(r.start, r.end));
    expect(r.citation.end).toBe(r.end);
    // The sentence that was cut is whole in the result.
    const cutSentence = sentences.find((s) => text.indexOf(s) < first.end && text.indexOf(s) + s.length > first.end)!;
    expect(r.text).toContain(cutSentence);
  });
});

describe('isolation', () => {
  it('two cases with identical names and text – nothing of B is ever returned from A; deleting A leaves B searchable', async () => {
    const a = await newCase('Same name');
    const b = await newCase('Same name');
    const toolsA = await openCaseTools(engine, a);
    const toolsB = await openCaseTools(engine, b);
    const queries = ['confidential information', 'Republic of South Africa', 'Fiverr', 'governed'];
    const aCitations = new Set<string>();
    for (const query of queries) {
      for (const res of [
        await toolsA.keyword_search({ query, top_k: 50 }),
        await toolsA.retrieve({ query, top_k: 50, file_version: 'all' }),
        await toolsA.keyword_search({ query, file_name_contains: 'nda', top_k: 50 }),
      ]) {
        for (const r of res.results) aCitations.add(r.citation.id);
      }
    }
    // Same file ids and texts in both: a leak cannot be told apart by content, so count: A's results are exactly A's chunks.
    const storeA = await ChunkStore.open(engine.cases.caseDir(a));
    const storeB = await ChunkStore.open(engine.cases.caseDir(b));
    expect(await storeA.count()).toBe(await storeB.count());
    const allA = await toolsA.keyword_search({ query: 'the', file_version: 'all', top_k: 100 });
    expect(allA.results.length).toBeLessThanOrEqual(await storeA.count());
    storeA.close();
    storeB.close();
    // Grep across the case sees one copy of each file (3 files), not six.
    const grepA = await toolsA.grepCase({ pattern: 'Confidential', flags: 'i' });
    expect(grepA.coverage.files_searched).toBe(3);
    const filesA = await toolsA.findFiles();
    expect(filesA.total).toBe(3);

    // Index one more file into B only: A never sees it, whatever the query or tool.
    await indexDocs(engine, b, [
      {
        fileId: 'f-only-b',
        name: 'only-in-b.txt',
        text: 'The quokka clause: the distributor shall deliver quokkas weekly.',
      },
    ]);
    expect((await toolsA.keyword_search({ query: 'quokka', file_version: 'all' })).results).toEqual([]);
    expect(
      (await toolsA.retrieve({ query: 'quokka distributor' })).results.every((r) => r.file_id !== 'f-only-b'),
    ).toBe(true);
    expect((await toolsA.grepCase({ pattern: 'quokka' })).total_matches).toBe(0);
    expect((await toolsA.findFiles({ file_name_contains: 'only-in-b' })).total).toBe(0);
    await expect(toolsA.readFile({ file_id: 'f-only-b' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(toolsA.grepFile({ file_id: 'f-only-b', pattern: 'quokka' })).rejects.toMatchObject({
      code: 'not_found',
    });
    const bHit = (await toolsB.keyword_search({ query: 'quokka' })).results[0]!;
    await expect(toolsA.getAdjacentChunks({ chunk_id: bHit.chunk_id })).rejects.toMatchObject({ code: 'not_found' });

    await engine.router.call('cases.delete', { case_id: a });
    const after = await toolsB.keyword_search({ query: 'Republic of South Africa' });
    expect(after.results[0]!.file_name).toBe('contracts/BT_NDA.txt');
    const fresh = await openCaseTools(engine, b);
    expect((await fresh.keyword_search({ query: 'quokka' })).results).toHaveLength(1);
    await expect(openCaseTools(engine, a)).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('tools', () => {
  it('readFile – a window with its range and pages; reading past the end is not an error', async () => {
    const caseId = await newCase('R');
    const tools = await openCaseTools(engine, caseId);
    const w = await tools.readFile({ file_id: 'f-bt', offset: 2900, max_length: 200 });
    expect(w).toMatchObject({
      file_id: 'f-bt',
      file_name: 'contracts/BT_NDA.txt',
      version: 1,
      start: 2900,
      end: 3100,
      eof: false,
    });
    // Pages rebuilt from chunks are exact away from page boundaries (exact everywhere with ingest's page index).
    expect(w.pages.length).toBeGreaterThan(0);
    expect(w.pages.every((p) => p === 1 || p === 2)).toBe(true);
    expect((await tools.readFile({ file_id: 'f-bt', offset: 100, max_length: 100 })).pages).toEqual([1]);
    expect(w.text).toBe(BT.slice(2900, 3100));
    expect(w.total_length).toBe(BT.length);
    const tail = await tools.readFile({ file_id: 'f-bt', offset: w.total_length - 10, max_length: 1000 });
    expect(tail.eof).toBe(true);
    expect(tail.text).toHaveLength(10);
    const past = await tools.readFile({ file_id: 'f-bt', offset: 10_000_000 });
    expect(past).toMatchObject({ text: '', eof: true, start: w.total_length, end: w.total_length });
    await expect(tools.readFile({ file_id: 'nope' })).rejects.toBeInstanceOf(CasefileError);
    await expect(tools.readFile({ file_id: 'f-bt', offset: -1 })).rejects.toMatchObject({
      code: 'invalid_input',
      fields: [{ field: 'offset' }],
    });
  });

  it('grepFile – matches with offsets, pages, context and citations; invalid and catastrophic patterns are refused clearly', async () => {
    const caseId = await newCase('G');
    const tools = await openCaseTools(engine, caseId);
    const res = await tools.grepFile({
      file_id: 'f-bt',
      pattern: 'confidential',
      flags: 'i',
      context_chars: 20,
      limit: 3,
    });
    expect(res.matches).toHaveLength(3);
    expect(res.total).toBeGreaterThan(3);
    expect(res.truncated).toBe(true);
    for (const m of res.matches) {
      expect(BT.slice(m.start, m.end)).toBe(m.match);
      expect(m.match.toLowerCase()).toBe('confidential');
      expect(Math.abs(m.page - (Math.floor(m.start / 3000) + 1))).toBeLessThanOrEqual(1);
      expect(m.context).toContain(m.match);
      expect(m.citation).toMatchObject({ file_id: 'f-bt', start: m.start, end: m.end, pages: [m.page] });
    }
    await expect(tools.grepFile({ file_id: 'f-bt', pattern: '(unclosed' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/not a valid regular expression/),
    });
    await expect(tools.grepFile({ file_id: 'f-bt', pattern: 'x', flags: 'gy' })).rejects.toMatchObject({
      code: 'invalid_input',
    });
    // Catastrophic backtracking on real text is stopped with a plain explanation.
    await expect(tools.grepFile({ file_id: 'f-bt', pattern: '(\\w+\\s?)+\\$$' })).rejects.toMatchObject({
      code: 'failed',
      message: expect.stringMatching(/backtracks too much/),
    });
  });

  it('grepCase – counts per file, first matches with citations, and a coverage line', async () => {
    const caseId = await newCase('GC');
    const tools = await openCaseTools(engine, caseId);
    const res = await tools.grepCase({ pattern: '\\bRepublic\\b', limit_per_file: 1 });
    expect(res.files.map((f) => f.file_name).sort()).toEqual([
      'contracts/BT_NDA.txt',
      "contracts/CopAcc O'Mentors NDA.txt",
    ]);
    for (const f of res.files) {
      expect(f.matches).toHaveLength(1);
      expect(f.count).toBeGreaterThanOrEqual(1);
      expect(f.matches[0]!.citation.file_id).toBe(f.file_id);
    }
    expect(res.coverage).toMatchObject({ files_searched: 3, files_with_hits: 2, not_searchable: [] });
    expect(res.coverage.line).toMatch(/searched 3 files, 2 with hits/);
    const scoped = await tools.grepCase({ pattern: 'Fiverr', file_name_contains: 'contracts/' });
    expect(scoped.coverage.files_searched).toBe(2);
    expect(scoped.total_matches).toBe(0);
  });

  it('getAdjacentChunks – neighbours of the same file version, in order', async () => {
    const caseId = await newCase('A');
    const tools = await openCaseTools(engine, caseId);
    const mid = 'contracts/BT_NDA.txt@v1#3';
    const res = await tools.getAdjacentChunks({ chunk_id: mid, before: 2, after: 1 });
    expect(res.chunks.map((c) => c.chunk_index)).toEqual([1, 2, 3, 4]);
    expect(res.chunks.map((c) => c.anchor)).toEqual([false, false, true, false]);
    expect(res.chunks.every((c) => c.file_id === 'f-bt' && BT.slice(c.start, c.end) === c.text)).toBe(true);
    const first = await tools.getAdjacentChunks({ chunk_id: 'contracts/BT_NDA.txt@v1#0', before: 3, after: 0 });
    expect(first.chunks.map((c) => c.chunk_index)).toEqual([0]);
    await expect(tools.getAdjacentChunks({ chunk_id: "nope' OR 1=1 --" })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('findFiles – filters and paginates with a total', async () => {
    const caseId = await newCase('F');
    const tools = await openCaseTools(engine, caseId);
    const page1 = await tools.findFiles({ page_size: 2 });
    const page2 = await tools.findFiles({ page_size: 2, page: 2 });
    expect(page1.total).toBe(3);
    expect(page1.files).toHaveLength(2);
    expect(page2.files).toHaveLength(1);
    expect((await tools.findFiles({ doc_type: 'correspondence' })).files.map((f) => f.name)).toEqual([
      'policies/Fiverr.txt',
    ]);
    expect((await tools.findFiles({ file_name: 'contracts/BT_NDA.txt' })).files[0]).toMatchObject({
      id: 'f-bt',
      date: '2017-03-01',
      status: 'indexed',
    });
  });
});
