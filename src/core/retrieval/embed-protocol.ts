/** Messages between the engine's thread (embed-host.ts) and the embedding worker (embed-worker.ts). */
import type { Pooling } from '../models/folder';

/** A model as the worker loads it; the same spec always means the same loaded instance. */
export interface EmbedModelSpec {
  id: string;
  dir: string;
  threads: number;
  batchSize?: number;
  pooling?: Pooling;
}

export type EmbedWorkerRequest =
  | { type: 'load'; id: number; model: EmbedModelSpec }
  | { type: 'embed'; id: number; model: EmbedModelSpec; texts: string[] }
  | { type: 'cancel'; id: number }
  | { type: 'unload'; model: EmbedModelSpec }
  | { type: 'stats'; id: number };

export interface EmbedWorkerStats {
  threadId: number;
  /** Model loads since this worker started (one per distinct spec, unless unloaded in between). */
  loads: number;
  /** Texts embedded since this worker started (cancelled requests stop counting at their last batch). */
  texts: number;
  /** Models loaded now, with the onnxruntime threads each runs on. */
  models: { id: string; threads: number }[];
}

export type EmbedWorkerResponse =
  | { type: 'loaded'; id: number; dimension: number; pooling: Pooling }
  | { type: 'vectors'; id: number; dimension: number; data: Float32Array }
  | { type: 'cancelled'; id: number }
  | { type: 'error'; id: number; message: string; code?: string }
  | { type: 'stats'; id: number; stats: EmbedWorkerStats };

export function modelKey(m: EmbedModelSpec): string {
  return JSON.stringify([m.dir, m.threads, m.batchSize ?? null, m.pooling ?? null]);
}
