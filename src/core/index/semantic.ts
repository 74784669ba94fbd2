import type { Engine } from '../engine';
import { loadEmbedder, loadReranker, type EmbedderLoad, type ModelFolders } from './models';
import type { Reranker, SemanticState } from './search';
import type { ChunkStore } from './store';

export const NO_MODEL_REASON =
  'no embedding model installed — keyword search only (import one with: casefile models import <folder>)';

interface EngineModels {
  embedders: Map<string, Promise<EmbedderLoad>>;
  reranker: Promise<Reranker | null> | null;
}
const perEngine = new WeakMap<Engine, EngineModels>();

export function engineModelFolders(engine: Engine): ModelFolders {
  return { home: engine.home, modelDirs: [engine.modelsDir, ...engine.bundledModelDirs] };
}

function modelsOf(engine: Engine): EngineModels {
  let entry = perEngine.get(engine);
  if (!entry) {
    const created: EngineModels = { embedders: new Map(), reranker: null };
    entry = created;
    perEngine.set(engine, created);
    engine.onClose(async () => {
      const loads = [...created.embedders.values()];
      created.embedders.clear();
      for (const l of loads) {
        const r = await l.catch(() => null);
        if (r?.ok) await r.embedder.dispose();
      }
    });
  }
  return entry;
}

/** Query embedder for `modelId` (null: the default model), loaded once per engine. */
async function queryEmbedder(engine: Engine, modelId: string | null): Promise<EmbedderLoad> {
  const { embedders } = modelsOf(engine);
  const key = modelId ?? '\u0000default';
  let load = embedders.get(key);
  if (!load) {
    load = loadEmbedder(engineModelFolders(engine), modelId);
    embedders.set(key, load);
    // A model that is missing now may be installed later: do not cache failures.
    void load.then(
      (r) => {
        if (!r.ok) embedders.delete(key);
      },
      () => embedders.delete(key), // the embedding worker crashed while loading: try again next time
    );
  }
  return load;
}

/**
 * Whether this case can use vectors now, and the query embedder if so: the case's vectors must
 * have been made by a model that is installed (the one case.json records).
 */
export async function caseSemantics(engine: Engine, caseId: string, store: ChunkStore): Promise<SemanticState> {
  const meta = await engine.cases.readMeta(caseId);
  const recorded = meta.embedding;
  const storedDim = await store.vectorDimension();
  const rows = await store.count();
  if (rows > 0 && storedDim === null) {
    const anyModel = await queryEmbedder(engine, null);
    return {
      embedder: null,
      reason: anyModel.ok
        ? `this case was indexed without an embedding model — keyword search only until it is re-embedded with "${anyModel.embedder.modelId}" (re-embed the case: the index.reembed operation, or ingest any file again)`
        : NO_MODEL_REASON,
    };
  }
  const load = await queryEmbedder(engine, rows > 0 ? (recorded?.modelId ?? null) : null);
  if (!load.ok) {
    return {
      embedder: null,
      reason: recorded && rows > 0 ? `this case's vectors were made with "${recorded.modelId}", which is not installed — keyword search only (${load.reason})` : load.reason,
    };
  }
  const embedder = load.embedder;
  if (storedDim !== null && storedDim !== embedder.dimension) {
    return { embedder: null, reason: `this case's vectors have ${storedDim} dimensions but "${embedder.modelId}" makes ${embedder.dimension} — re-embed the case` };
  }
  return {
    embedder: {
      modelId: embedder.modelId,
      dimension: embedder.dimension,
      embedQuery: (text, signal) => embedder.embedOne(text, signal),
    },
  };
}

/** The installed cross-encoder reranker, loaded once per engine (null when none is installed). */
export async function engineReranker(engine: Engine): Promise<Reranker | null> {
  const models = modelsOf(engine);
  models.reranker ??= loadReranker(engineModelFolders(engine)).catch(() => null);
  const r = await models.reranker;
  if (!r) models.reranker = null;
  return r;
}
