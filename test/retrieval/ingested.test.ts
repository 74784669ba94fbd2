import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCitation } from '../../src/core/citations/resolve';
import { Engine } from '../../src/core/engine';
import { createIndexSink } from '../../src/core/retrieval/sink';
import { CaseDocuments } from '../../src/core/documents/case-documents';
import { parseFile } from '../../src/core/reader/parse';
import { chunkDocument, structureOf } from '../../src/core/text/structure';
import { CaseStore, compactChunks } from '../../src/core/documents/case-store';
import type { FileRecord } from '../../src/core/domain/types';
import { openCaseTools, type CaseTools } from '../../src/core/tools/index';
import { corpusDir, tempHome } from '../helpers/home';

/**
 * The tools over documents as ingest stores them: real pdf.js parsing of a CUAD contract, ingest's
 * chunker and artifact store, the manifest, and this index's sink. Pages and citation boxes are exact.
 */
const PDF_REL =
  'cuad/full_contract_pdf/Part_I/Co_Branding/MphaseTechnologiesInc_20030911_10-K_EX-10.15_1560667_EX-10.15_Co-Branding Agreement.pdf';
const PDF_NAME = 'agreements/Co-Branding Agreement.pdf';

let engine: Engine;
let caseId: string;
let tools: CaseTools;
let text: string;
let pageStarts: number[];

beforeAll(async () => {
  engine = await Engine.open({ home: tempHome() });
  caseId = (await engine.cases.create('Ingested')).id;
  const caseDir = engine.cases.caseDir(caseId);
  const bytes = new Uint8Array(readFileSync(path.join(corpusDir, PDF_REL)));
  const parsed = await parseFile({ bytes, name: PDF_NAME, maxBytes: 100 << 20 });
  expect(parsed.status).toBe('indexed');
  const doc = parsed.doc!;
  text = doc.text;
  pageStarts = doc.index.pages.map((p) => p.start);
  const structure = structureOf(doc.text, doc.index, PDF_NAME, doc.html);
  const chunks = chunkDocument(
    doc,
    { fileId: 'fpdf', name: PDF_NAME, version: 1, isLatest: true, docType: parsed.docType, docDate: parsed.docDate },
    undefined,
    structure,
  );
  const store = new CaseStore(caseDir);
  await store.writeArtifacts('fpdf', 1, {
    text: doc.text,
    index: doc.index,
    structure,
    chunks: compactChunks(chunks),
    ...(doc.html ? { html: doc.html } : {}),
  });
  const now = new Date().toISOString();
  const version = (status: 'indexed' | 'needs_ocr', reason: string, pages: number) => ({
    version: 1,
    sha256: '0'.repeat(64),
    size: bytes.length,
    kind: 'pdf' as const,
    pages,
    status,
    reason,
    doc_type: parsed.docType,
    doc_date: parsed.docDate,
    ingested_at: now,
    empty_pages: [],
    chunks: 0,
  });
  const files: FileRecord[] = [
    { id: 'fpdf', name: PDF_NAME, versions: [version('indexed', '', parsed.pages)], doc_type_override: null },
    {
      id: 'fscan',
      name: 'scans/police report.pdf',
      versions: [version('needs_ocr', 'no text layer on any page; run OCR', 2)],
      doc_type_override: null,
    },
  ];
  await store.update((m) => {
    m.files = files;
  });
  const sink = await createIndexSink(await engine.indexSinkOptions(caseId));
  await sink.indexVersion(chunks, {});
  await sink.close();
  tools = await openCaseTools(engine, caseId);
});
afterAll(async () => {
  await engine?.close();
});

function pageOf(offset: number): number {
  let p = 0;
  while (p + 1 < pageStarts.length && pageStarts[p + 1]! <= offset) p++;
  return p + 1;
}

describe('tools over ingested documents', () => {
  it('findFiles – lists every file with its status, including ones that need OCR', async () => {
    const res = await tools.findFiles();
    expect(res.total).toBe(2);
    expect(res.files.find((f) => f.id === 'fscan')).toMatchObject({
      status: 'needs_ocr',
      reason: expect.stringMatching(/OCR/),
    });
    expect(res.files.find((f) => f.id === 'fpdf')).toMatchObject({
      name: PDF_NAME,
      pages: 3,
      status: 'indexed',
      versions: [1],
    });
  });

  it('grepCase – coverage names the files that could not be searched', async () => {
    const res = await tools.grepCase({ pattern: 'co-brand', flags: 'i' });
    expect(res.coverage.files_searched).toBe(1);
    expect(res.coverage.files_with_hits).toBe(1);
    expect(res.coverage.not_searchable).toEqual([
      { file_name: 'scans/police report.pdf', status: 'needs_ocr', reason: 'no text layer on any page; run OCR' },
    ]);
    expect(res.coverage.line).toBe(
      `searched 1 file, 1 with hits (${res.total_matches} matches); not searchable: scans/police report.pdf (needs OCR)`,
    );
  });

  it('grepFile – exact pages from the page index, and citations resolve to boxes on the page', async () => {
    const res = await tools.grepFile({ file_id: 'fpdf', pattern: 'terminat\\w+', flags: 'i', limit: 50 });
    expect(res.matches.length).toBeGreaterThan(0);
    const pages = new Set<number>();
    for (const m of res.matches) {
      expect(text.slice(m.start, m.end)).toBe(m.match);
      expect(m.page).toBe(pageOf(m.start));
      pages.add(m.page);
    }
    const m = res.matches[res.matches.length - 1]!;
    const resolved = await resolveCitation(new CaseDocuments(engine.cases.caseDir(caseId)), m.citation);
    expect(resolved.text).toBe(m.match);
    expect(resolved.page).toBe(m.page);
    expect(resolved.pages[0]!.rects.length).toBeGreaterThan(0);
    const r = resolved.pages[0]!.rects[0]!;
    const [x0, y0, x1, y1] = resolved.pages[0]!.view;
    expect(r.width).toBeGreaterThan(0);
    expect(r.x).toBeGreaterThanOrEqual(x0);
    expect(r.x + r.width).toBeLessThanOrEqual(x1 + 1);
    expect(r.y).toBeGreaterThanOrEqual(y0 - 1);
    expect(r.y + r.height).toBeLessThanOrEqual(y1 + 1);
  });

  it('readFile – exact text and pages across a page boundary; a file that needs OCR says so', async () => {
    const boundary = pageStarts[1]!;
    const w = await tools.readFile({ file_id: 'fpdf', offset: boundary - 50, max_length: 100 });
    expect(w.text).toBe(text.slice(boundary - 50, boundary + 50));
    expect(w.pages).toEqual([1, 2]);
    await expect(tools.readFile({ file_id: 'fscan' })).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/needs OCR/),
    });
  });

  it('retrieve – search results cite the same words readFile returns', async () => {
    const res = await tools.retrieve({ query: 'co-branding agreement term and termination', top_k: 3 });
    expect(res.results.length).toBeGreaterThan(0);
    for (const r of res.results) {
      expect(text.slice(r.start, r.end)).toBe(r.text);
      expect(r.citation.pages[0]).toBe(pageOf(r.start));
    }
  });
});
