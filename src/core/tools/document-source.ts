import type { FileListing } from '../../shared/contract/search';
import type { ChunkRecord } from '../ingest/types';
import type { ChunkStore } from '../retrieval/store';
import { pageAt } from '../ingest/chunker';
import { sqlInt, sqlString } from '../retrieval/sql';

/** One file of a case as the tools see it: the contract's listing, with `reason` always present ('' when none). */
export type DocumentInfo = FileListing & { reason: string };

/** The text of one version and where each page begins in it. */
export interface DocumentText {
  text: string;
  /** Character offset where page i+1 starts, ascending; pageStarts[0] is 0. */
  pageStarts: number[];
}

/**
 * Where the tools read files and texts from. Ingest's manifest and stored document text are the
 * real source (see ingestDocumentSource); `chunkDocumentSource` rebuilds both from the chunks
 * alone for cases whose artifacts are unavailable.
 */
export interface DocumentSource {
  listFiles(): Promise<DocumentInfo[]>;
  /** null when the version has no readable text. */
  readText(fileId: string, version: number): Promise<DocumentText | null>;
}

/** Statuses whose text can be read and searched. */
export function isReadable(status: string): boolean {
  return status === 'indexed' || status === 'unchanged';
}

export { pageAt } from '../ingest/chunker';

/** Pages covering [start, end). */
export function pagesOf(pageStarts: number[], start: number, end: number): number[] {
  const first = pageAt(pageStarts, start);
  const last = pageAt(pageStarts, Math.max(start, end - 1));
  const out: number[] = [];
  for (let p = first; p <= last; p++) out.push(p);
  return out;
}

/** Rebuild a version's text from its chunks (exact where chunks cover it; uncovered gaps become spaces). */
export function textFromChunks(chunks: ChunkRecord[]): DocumentText {
  const sorted = [...chunks].sort((a, b) => a.start - b.start);
  const length = sorted.reduce((m, c) => Math.max(m, c.end), 0);
  const parts: string[] = [];
  let at = 0;
  for (const c of sorted) {
    if (c.end <= at) continue;
    if (c.start > at) {
      parts.push(' '.repeat(c.start - at));
      at = c.start;
    }
    parts.push(c.text.slice(at - c.start));
    at = c.end;
  }
  const text = parts.join('').slice(0, length);
  const maxPage = sorted.reduce((m, c) => Math.max(m, c.page_end), 1);
  const pageStarts: number[] = [0];
  for (let p = 2; p <= maxPage; p++) {
    // The page starts no later than the first chunk that starts on it, and no earlier than the end of chunks that end before it.
    const startsOn = sorted.filter((c) => c.page_start === p).map((c) => c.start);
    const endsBefore = sorted.filter((c) => c.page_end === p - 1).map((c) => c.end);
    const candidate = startsOn.length ? Math.min(...startsOn) : endsBefore.length ? Math.max(...endsBefore) : 0;
    pageStarts.push(Math.max(pageStarts[pageStarts.length - 1]!, candidate));
  }
  return { text, pageStarts };
}

/** A DocumentSource built only from the case's chunk table. */
export function chunkDocumentSource(store: ChunkStore): DocumentSource {
  return {
    async listFiles() {
      const rows = await store.rows(undefined);
      const byFile = new Map<string, ChunkRecord[]>();
      for (const r of rows) {
        const list = byFile.get(r.file_id) ?? [];
        list.push(r);
        byFile.set(r.file_id, list);
      }
      const files: DocumentInfo[] = [];
      for (const [id, chunks] of byFile) {
        const versions = [...new Set(chunks.map((c) => c.version))].sort((a, b) => a - b);
        const latestChunk = chunks.find((c) => c.is_latest) ?? chunks.find((c) => c.version === versions[versions.length - 1]);
        if (!latestChunk) continue;
        const latest = latestChunk.version;
        const ofLatest = chunks.filter((c) => c.version === latest);
        files.push({
          id,
          name: latestChunk.file_name,
          version: latest,
          versions,
          type: latestChunk.doc_type,
          pages: ofLatest.reduce((m, c) => Math.max(m, c.page_end), 0),
          status: 'indexed',
          reason: '',
          date: latestChunk.doc_date,
        });
      }
      return files.sort((a, b) => a.name.localeCompare(b.name));
    },
    async readText(fileId, version) {
      const chunks = await store.rows(`file_id = ${sqlString(fileId)} AND version = ${sqlInt(version)}`);
      return chunks.length ? textFromChunks(chunks) : null;
    },
  };
}
