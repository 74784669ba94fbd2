/**
 * A case's documents on disk: its originals, each version's artifacts and the file manifest
 * (case-store.ts, manifest.ts), and the reader of its documents that the features share
 * (case-documents.ts).
 */
export { CaseDocuments, READABLE_STATUSES } from './case-documents';
export { CaseStore, compactChunks, latestVersion, type ManifestChange, type StoredChunk } from './case-store';
