import type { Engine } from '../engine';
import type { SemanticState } from './search';
import type { ChunkStore } from './store';

export const NO_MODEL_REASON =
  'no embedding model is installed, so search is keyword-only. Install one (e.g. all-MiniLM-L6-v2) in the model manager or the models/ folder.';

/** Whether this case can use vectors now, and the query embedder if so. */
export async function caseSemantics(_engine: Engine, _caseId: string, _store: ChunkStore): Promise<SemanticState> {
  return { embedder: null, reason: NO_MODEL_REASON };
}
