/**
 * Ingest: a run over a case's folder — walk it, hand each file to the reader processes
 * (pool.ts, reader/worker.ts), store what they read, index the chunks, and report progress; resume,
 * re-index and catch-up keep a case whole across restarts. The app loads the service itself
 * lazily (handlers.ts); this entry holds what it needs at start.
 */
export { JobStore } from './jobs';
export type { IngestOptions, IngestService } from './service';
