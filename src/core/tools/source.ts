import type { Engine } from '../engine';
import type { ChunkStore } from '../index/store';
import { chunkDocumentSource, type DocumentSource } from './documents';

/**
 * The documents of one case for the tools: ingest's manifest and stored texts when available,
 * else rebuilt from the case's chunks.
 */
export function caseDocumentSource(_engine: Engine, _caseId: string, store: ChunkStore): DocumentSource {
  return chunkDocumentSource(store);
}
