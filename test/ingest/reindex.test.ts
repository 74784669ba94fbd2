import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { Schema } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { splitText } from '../../src/core/text/chunker';
import { CaseStore, type StoredChunk } from '../../src/core/documents/case-store';
import { ChunkStore, chunkSchema } from '../../src/core/retrieval/store';
import { runCasefile } from '../helpers/cli';
import { CUAD_SMALL, cuadPdf, tempHome } from '../helpers/home';

/**
 * A case indexed before structure and contexts existed is upgraded from its stored text: made here
 * from a real ingest by writing back what the first wave wrote — plain recursive chunks without
 * contexts, no structure.json, and a LanceDB table without the `context` column.
 */
const PDFS = [CUAD_SMALL.pcquote, CUAD_SMALL.datacall, CUAD_SMALL.watchit].map(cuadPdf);

let home: string;
let engine: Engine;
let caseId: string;
let caseDir: string;

async function makeFirstWaveIndex(): Promise<number> {
  const store = new CaseStore(caseDir);
  const rows: Record<string, unknown>[] = [];
  for (const f of (await store.readManifest()).files) {
    const v = f.versions.at(-1)!;
    const text = (await store.readText(f.id, v.version))!;
    const pages = (await store.readPages(f.id, v.version))!;
    const starts = pages.pages.map((p) => p.start);
    const pageOf = (o: number) => starts.filter((s) => s <= o).length;
    const stored: StoredChunk[] = splitText(text).map((s, i) => ({
      i,
      s: s.start,
      e: s.end,
      ps: pageOf(s.start),
      pe: pageOf(s.end - 1),
      h: `${f.id}-${i}`,
    }));
    const dir = path.join(caseDir, 'docs', f.id, `v${v.version}`);
    await fs.writeFile(path.join(dir, 'chunks.json'), JSON.stringify(stored));
    await fs.rm(path.join(dir, 'structure.json'), { force: true });
    for (const c of stored) {
      rows.push({
        chunk_id: `${f.name}@v${v.version}#${c.i}`,
        file_id: f.id,
        file_name: f.name,
        version: v.version,
        is_latest: true,
        chunk_index: c.i,
        start: c.s,
        end: c.e,
        page_start: c.ps,
        page_end: c.pe,
        text: text.slice(c.s, c.e),
        hash: c.h,
        doc_type: v.doc_type,
        doc_date: v.doc_date,
      });
    }
  }
  const db = await lancedb.connect(path.join(caseDir, 'lancedb'));
  const schema = chunkSchema(null);
  const table = await db.createEmptyTable('chunks', new Schema(schema.fields.filter((f) => f.name !== 'context')), {
    mode: 'overwrite',
  });
  await table.add(rows);
  await table.createIndex('text', { config: lancedb.Index.fts({ withPosition: false }), replace: true });
  table.close();
  db.close();
  await engine.openCases.release(caseId);
  return rows.length;
}

async function contextCounts(): Promise<{ rows: number; withContext: number }> {
  const store = await ChunkStore.open(caseDir);
  try {
    return {
      rows: await store.count(),
      withContext: (await store.hasContext()) ? await store.count("context <> ''") : 0,
    };
  } finally {
    store.close();
  }
}

beforeAll(async () => {
  home = tempHome('casefile-reindex-');
  engine = await Engine.open({ home });
  caseId = (await engine.router.call('cases.create', { name: 'Old case' })).id;
  caseDir = engine.cases.caseDir(caseId);
  const run = await engine.router.call('ingest.start', { case_id: caseId, paths: PDFS });
  if (!('results' in run)) throw new Error('expected results');
  expect(run.results.every((r) => r.status === 'indexed')).toBe(true);
});

afterAll(async () => {
  await engine.close();
});

describe('upgrading a case indexed before contexts', () => {
  it('search keeps working on the old index; reindex gives every chunk its context from stored text, then has nothing left to do', async () => {
    const oldRows = await makeFirstWaveIndex();
    expect(await contextCounts()).toEqual({ rows: oldRows, withContext: 0 });
    const before = await engine.router.call('search', { case_id: caseId, query: 'termination', k: 3, focus: 'off' });
    expect(before.results.length).toBe(3);

    const progress: number[] = [];
    const off = engine.events.on('index.progress', (e) => e.case_id === caseId && progress.push(e.done));
    const r = await engine.router.call('index.reindex', { case_id: caseId });
    off();
    expect(r).toMatchObject({ case_id: caseId, versions: 3, current: 0 });
    expect(progress).toEqual([0, 1, 2, 3]);
    const after = await contextCounts();
    expect(after.rows).toBe(r.chunks);
    expect(after.withContext).toBe(r.chunks);
    // The files were not read again: the originals' text is the same, the chunks are the document's words.
    const files = (await engine.router.call('files.list', { case_id: caseId })).files;
    expect(files.reduce((n, f) => n + f.versions.at(-1)!.chunks, 0)).toBe(r.chunks);
    for (const f of files)
      expect(existsSync(path.join(caseDir, 'docs', f.id, `v${f.version}`, 'structure.json'))).toBe(true);
    const res = await engine.router.call('search', {
      case_id: caseId,
      query: 'When can Watchit terminate the content license?',
      k: 5,
    });
    const { text } = await engine.router.call('files.read', { case_id: caseId, file_id: res.results[0]!.file_id });
    expect(text.slice(res.results[0]!.start, res.results[0]!.end)).toBe(res.results[0]!.text);
    expect(res.focus?.files.map((f) => f.file_name)).toEqual([path.basename(PDFS[2]!)]);

    expect(await engine.router.call('index.reindex', { case_id: caseId })).toMatchObject({ versions: 0, current: 3 });
  });

  it('a stopped upgrade resumes where it stopped', async () => {
    await makeFirstWaveIndex();
    const controller = new AbortController();
    const off = engine.events.on('index.progress', (e) => {
      if (e.case_id === caseId && e.done === 1) controller.abort();
    });
    await expect(
      engine.router.call('index.reindex', { case_id: caseId }, { signal: controller.signal }),
    ).rejects.toThrow();
    off();
    const partial = await contextCounts();
    expect(partial.withContext).toBeGreaterThan(0);
    expect(partial.withContext).toBeLessThan(partial.rows);
    expect(await engine.router.call('index.reindex', { case_id: caseId })).toMatchObject({ versions: 2, current: 1 });
    const done = await contextCounts();
    expect(done.withContext).toBe(done.rows);
  });

  it('a document named by older rules is named again; where its passages come out the same its index rows (and vectors) stay in place', async () => {
    const rowIds = async () => {
      const db = await lancedb.connect(path.join(caseDir, 'lancedb'));
      const table = await db.openTable('chunks');
      const rows = (await table.query().withRowId().select(['chunk_id']).toArray()) as {
        chunk_id: string;
        _rowid: bigint;
      }[];
      table.close();
      db.close();
      return new Map(rows.map((r) => [r.chunk_id, String(r._rowid)]));
    };
    await engine.openCases.release(caseId);
    const before = await rowIds();
    // As a version named before the current naming rules left it: the same rows, its structure.json without the names' format.
    const file = (await new CaseStore(caseDir).readManifest()).files[0]!;
    const structurePath = path.join(caseDir, 'docs', file.id, `v${file.versions.at(-1)!.version}`, 'structure.json');
    const structure = JSON.parse(await fs.readFile(structurePath, 'utf8')) as { profile: { names?: number } };
    delete structure.profile.names;
    await fs.writeFile(structurePath, JSON.stringify(structure));
    const r = await engine.router.call('index.reindex', { case_id: caseId });
    expect(r).toMatchObject({ versions: 1, current: 2 });
    // Named again (its structure carries the current format), nothing left to do, and no row was rewritten.
    expect(
      (JSON.parse(await fs.readFile(structurePath, 'utf8')) as { profile: { names?: number } }).profile.names,
    ).toBeGreaterThan(0);
    expect(await engine.router.call('index.reindex', { case_id: caseId })).toMatchObject({ versions: 0, current: 3 });
    await engine.openCases.release(caseId);
    expect(await rowIds()).toEqual(before);
  });

  it('CLI: casefile reindex reports what it did; --all redoes every document', async () => {
    const up = await runCasefile(home, ['reindex', 'Old case']);
    expect(up.code).toBe(0);
    expect(up.stdout).toContain('"Old case" is up to date (3 documents).');
    const all = await runCasefile(home, ['reindex', 'Old case', '--all', '--json']);
    expect(JSON.parse(all.stdout)).toMatchObject({ versions: 3, current: 0 });
  });
});
