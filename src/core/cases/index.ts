/**
 * The stored cases: the registry of cases (registry.ts), a case's files on disk — originals,
 * artifacts and the file manifest (case-store.ts, manifest.ts) — and the reader of its
 * documents that the features share (case-documents.ts); handlers.ts answers the cases' ops.
 */
export { caseHandlers } from './handlers';
export { CaseDocuments, READABLE_STATUSES } from './case-documents';
export { CaseStore, compactChunks, latestVersion, type ManifestChange, type StoredChunk } from './case-store';
export { CaseRegistry, dateSettingsOf, ocrSettingsOf, type CaseMeta } from './registry';
