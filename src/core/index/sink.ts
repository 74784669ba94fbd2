import type { ChunkRecord } from '../ingest/types';

/**
 * What ingest hands to the index after a file version is parsed and chunked. Implementations
 * must be idempotent per (file_id, version): a resumed ingest may index the same version again,
 * and the result must hold no duplicate chunks.
 */
export interface IndexSink {
  /** Add (or replace) all chunks of one file version; `onProgress(done, total)` reports chunks embedded. */
  indexVersion(
    chunks: ChunkRecord[],
    opts: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void },
  ): Promise<void>;
  /** Mark which version of a file is the latest (is_latest) after a new version was added or one removed. */
  setLatest(fileId: string, latestVersion: number | null): Promise<void>;
  /** Remove chunks of a file: every version, or only those listed. */
  removeFile(fileId: string, versions?: number[]): Promise<void>;
  close(): Promise<void>;
}

export interface IndexSinkOptions {
  home: string;
  caseDir: string;
  /** Folders searched for models, `<home>/models` first. */
  modelDirs: string[];
}

/** Placeholder until the index lands: accepts everything, stores nothing. Replaced by the LanceDB sink. */
export async function createIndexSink(_options: IndexSinkOptions): Promise<IndexSink> {
  return {
    async indexVersion() {},
    async setLatest() {},
    async removeFile() {},
    async close() {},
  };
}
