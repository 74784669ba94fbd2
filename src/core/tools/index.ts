import type { Engine } from '../engine';
import type { CitationLedger } from '../citations/ledger';
import { caseSemantics, engineReranker } from '../index/semantic';
import { ChunkStore } from '../index/store';
import { CaseTools } from './case-tools';
import { caseDocumentSource } from './source';

export { CaseTools, type AdjacentChunk } from './case-tools';
export * from './schemas';

interface EngineStores {
  stores: Map<string, Promise<ChunkStore>>;
}

const perEngine = new WeakMap<Engine, EngineStores>();

function storesOf(engine: Engine): EngineStores {
  let entry = perEngine.get(engine);
  if (!entry) {
    const created: EngineStores = { stores: new Map() };
    entry = created;
    perEngine.set(engine, created);
    // Close a case's tables before its directory goes, and all of them when the engine closes.
    engine.onCaseDelete(async (caseId) => {
      const store = created.stores.get(caseId);
      created.stores.delete(caseId);
      if (store) (await store.catch(() => null))?.close();
    });
    engine.onClose(async () => {
      const all = [...created.stores.values()];
      created.stores.clear();
      for (const s of all) (await s.catch(() => null))?.close();
    });
  }
  return entry;
}

/** The case's chunk store, opened once per engine and case. */
export async function caseStore(engine: Engine, caseId: string): Promise<ChunkStore> {
  await engine.cases.readMeta(caseId); // not_found for unknown cases, before any directory is touched
  const { stores } = storesOf(engine);
  let store = stores.get(caseId);
  if (!store) {
    store = ChunkStore.open(engine.cases.caseDir(caseId));
    stores.set(caseId, store);
    store.catch(() => stores.delete(caseId));
  }
  return store;
}

/**
 * The retrieval tools bound to exactly one case. Pass the conversation's ledger so citation ids
 * stay unique and stable within it.
 */
export async function openCaseTools(engine: Engine, caseId: string, options: { ledger?: CitationLedger } = {}): Promise<CaseTools> {
  const store = await caseStore(engine, caseId);
  return new CaseTools({
    caseId,
    store,
    documents: caseDocumentSource(engine, caseId, store),
    semantic: () => caseSemantics(engine, caseId, store),
    reranker: () => engineReranker(engine),
    ...(options.ledger ? { ledger: options.ledger } : {}),
  });
}
