/**
 * The ports: what the features get from the composition root (engine.ts), as types only. A
 * feature names the ports it needs in its own constructor or factory and never imports the
 * engine; the engine satisfies them (structurally, so a test may pass an engine where a port
 * is asked for).
 */
import type { CaseMeta, CaseRegistry } from './cases/index';
import type { CaseDocuments } from './documents/index';
import type { EventBus } from './bus';
import type { ChunkStore } from './retrieval/store';
import type { ModelRegistry } from './models/registry';

/** One open case: its folder, its documents and its chunk table, shared by every feature. */
export interface OpenCase {
  readonly id: string;
  readonly dir: string;
  /** case.json, read now. */
  meta(): Promise<CaseMeta>;
  /** Ingest's manifest, texts and pages of the case (one reader per open case; its cache follows the manifest). */
  readonly documents: CaseDocuments;
  /** The case's LanceDB chunk table, opened on first use and closed when the case is released. */
  chunks(): Promise<ChunkStore>;
}

/** The open cases of an engine: `open` fails with not_found for a case that does not exist. */
export interface OpenCasesPort {
  open(caseId: string): Promise<OpenCase>;
}

/** case.json of the cases (reads, the embedding record, folders). */
export type CasesPort = Pick<CaseRegistry, 'caseDir' | 'readMeta' | 'updateMeta' | 'list' | 'get' | 'originals'>;

/** Engine events the features emit. */
export type EventsPort = Pick<EventBus, 'emit'>;

/** The engine's one model catalog (`<home>/models` plus the bundled folders), built on first use. */
export interface ModelCatalogPort {
  catalog(): Promise<ModelRegistry>;
}
