import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Engine } from '../../src/core/engine';
import { createIndexSink } from '../../src/core/retrieval/sink';
import type { ChunkRecord, DocType } from '../../src/core/ingest/types';
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

/** Index documents into a case through the real sink, as ingest does (one call per version, close = end of batch). */
export async function indexDocs(engine: Engine, caseId: string, docs: DocSpec[]): Promise<ChunkRecord[][]> {
  const sink = await createIndexSink(await engine.indexSinkOptions(caseId));
  const all: ChunkRecord[][] = [];
  try {
    for (const d of docs) {
      const chunks = chunkDoc(d);
      await sink.indexVersion(chunks, {});
      all.push(chunks);
    }
  } finally {
    await sink.close();
  }
  return all;
}
