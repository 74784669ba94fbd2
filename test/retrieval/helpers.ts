import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Engine } from '../../src/core/engine';
import { createIndexSink } from '../../src/core/retrieval/sink';
import { CaseStore, compactChunks } from '../../src/core/documents/case-store';
import { structureOf } from '../../src/core/text/structure';
import type { ChunkRecord, DocType, FileRecord, PageIndex, VersionRecord } from '../../src/core/domain/types';
import { corpusDir } from '../helpers/home';

export const NDA_DIR = path.join(corpusDir, 'legalbench-rag', 'corpus', 'contractnli');

export function corpusText(rel: string): string {
  return readFileSync(path.join(corpusDir, rel), 'utf8');
}

export interface DocSpec {
  fileId: string;
  name: string;
  text: string;
  version?: number;
  isLatest?: boolean;
  docType?: DocType;
  date?: string;
  /** Characters per pseudo-page (default 3000). */
  pageSize?: number;
}

/**
 * Chunk a real document the way ingest does in spirit: ~1000-character windows ending at
 * whitespace, 150 characters of overlap, each chunk exactly text.slice(start, end).
 */
export function chunkDoc(spec: DocSpec, size = 1000, overlap = 150): ChunkRecord[] {
  const { text } = spec;
  const version = spec.version ?? 1;
  const pageSize = spec.pageSize ?? 3000;
  const chunks: ChunkRecord[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + size);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      if (space > start + size / 2) end = space;
    }
    const slice = text.slice(start, end);
    if (slice.trim()) {
      chunks.push({
        chunk_id: `${spec.name}@v${version}#${chunks.length}`,
        file_id: spec.fileId,
        file_name: spec.name,
        version,
        is_latest: spec.isLatest ?? true,
        chunk_index: chunks.length,
        start,
        end,
        page_start: Math.floor(start / pageSize) + 1,
        page_end: Math.floor(Math.max(start, end - 1) / pageSize) + 1,
        text: slice,
        context: '',
        hash: createHash('sha256').update(slice).digest('hex'),
        doc_type: spec.docType ?? 'contract',
        doc_date: spec.date ?? '',
      });
    }
    if (end >= text.length) break;
    start = Math.max(start + 1, end - overlap);
  }
  return chunks;
}

/** Pseudo-pages of `pageSize` characters, as chunkDoc numbers them. */
function pageIndexOf(text: string, pageSize: number): PageIndex {
  const count = Math.max(1, Math.ceil(text.length / pageSize));
  const pages = Array.from({ length: count }, (_, i) => ({
    page: i + 1,
    start: i * pageSize,
    end: Math.min(text.length, (i + 1) * pageSize),
    view: [0, 0, 0, 0] as [number, number, number, number],
    rotate: 0,
    fonts: [],
    items: [],
  }));
  return { kind: 'text', pages };
}

/**
 * Write what ingest writes for a document version (its text, pages and chunk offsets, and its
 * record in the case's manifest), so the tools read the case exactly as they read an ingested one.
 */
export async function recordDocs(engine: Engine, caseId: string, docs: DocSpec[]): Promise<ChunkRecord[][]> {
  const store = new CaseStore(engine.cases.caseDir(caseId));
  const all: ChunkRecord[][] = [];
  for (const d of docs) {
    const version = d.version ?? 1;
    const chunks = chunkDoc(d);
    const index = pageIndexOf(d.text, d.pageSize ?? 3000);
    await store.writeArtifacts(d.fileId, version, {
      text: d.text,
      index,
      structure: structureOf(d.text, index, d.name),
      chunks: compactChunks(chunks),
    });
    const record: VersionRecord = {
      version,
      sha256: createHash('sha256').update(d.text).digest('hex'),
      size: Buffer.byteLength(d.text),
      kind: 'text',
      pages: index.pages.length,
      status: 'indexed',
      reason: '',
      doc_type: d.docType ?? 'contract',
      doc_date: d.date ?? '',
      ingested_at: new Date().toISOString(),
      empty_pages: [],
      chunks: chunks.length,
    };
    await store.update((m) => {
      let file: FileRecord | undefined = m.files.find((f) => f.id === d.fileId);
      if (!file) m.files.push((file = { id: d.fileId, name: d.name, versions: [], doc_type_override: null }));
      file.versions = [...file.versions.filter((v) => v.version !== version), record].sort(
        (a, b) => a.version - b.version,
      );
    });
    all.push(chunks);
  }
  return all;
}

/** Index documents into a case as ingest does: its stored output (recordDocs), then the real sink (one call per version, close = end of batch). */
export async function indexDocs(engine: Engine, caseId: string, docs: DocSpec[]): Promise<ChunkRecord[][]> {
  const all = await recordDocs(engine, caseId, docs);
  const sink = await createIndexSink(await engine.indexSinkOptions(caseId));
  try {
    for (const chunks of all) await sink.indexVersion(chunks, {});
  } finally {
    await sink.close();
  }
  return all;
}
