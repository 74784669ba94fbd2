/**
 * What the engine's thread (embed-host.ts) and the embedding worker (embed-worker.ts, embedder.ts)
 * share: the messages between them, a model's reference and options, and the thread count. The
 * embedder itself (transformers.js, onnxruntime) is loaded in the worker only.
 */
import os from 'node:os';
import { readConfig } from '../config';
import { THREAD_PRIORITIES } from '../util/priority';
import type { Pooling } from '../models/folder';

/** An embedding model on disk: a transformers.js folder (config.json, tokenizer, onnx/*.onnx). */
export interface EmbeddingModelRef {
  /** The id the case records with its vectors (e.g. `all-MiniLM-L6-v2`). */
  id: string;
  /** Absolute path of the model folder. */
  dir: string;
}

/**
 * Texts per forward pass: one. A batch is padded to its longest text, and a case's passages vary
 * in length, so batches spend time on padding and keep larger activations; one text a pass was
 * the fastest and the smallest (figures: bench/RESULTS.md, "Figures behind choices in the code").
 */
export const DEFAULT_EMBED_BATCH = 1;

export interface EmbedderOptions {
  /** Texts per forward pass (default DEFAULT_EMBED_BATCH). */
  batchSize?: number;
  /** Override the pooling the folder implies (normally leave unset). */
  pooling?: Pooling;
  /** onnxruntime intra-op threads. Default: see defaultEmbedThreads, or CASEFILE_EMBED_THREADS. */
  threads?: number;
}

/**
 * onnxruntime intra-op threads for an embedder: `requested` when given, else CASEFILE_EMBED_THREADS,
 * else defaultEmbedThreads.
 */
export function embedThreads(requested?: number): number {
  if (requested && requested > 0) return Math.floor(requested);
  const configured = readConfig().embedThreads;
  if (configured) return configured;
  return defaultEmbedThreads(os.availableParallelism());
}

/** The most onnxruntime threads an embedder takes: a small model gains little past this. */
const MAX_EMBED_THREADS = 8;

/**
 * Where the embedding thread runs below everything else (`lowered`: Linux, see util/priority.ts),
 * every core, up to 8: parsing and the window still take the cores first, and one session of the
 * model (one memory arena) serves the ingest and the queries alike. Elsewhere half the cores (at
 * least 1): onnxruntime's threads spin, and at the usual priority more of them than free cores is
 * much slower, not faster.
 */
export function defaultEmbedThreads(cores: number, lowered = THREAD_PRIORITIES): number {
  return lowered ? Math.max(1, Math.min(MAX_EMBED_THREADS, cores)) : Math.max(1, Math.floor(cores / 2));
}

/**
 * onnxruntime threads for an ingest's embedding stage, asked before each batch. Lowered priority: the
 * model's own count (the priority shares the cores). Else, while `readersBusy` readers parse: the
 * cores they leave (at least 1), so parsing is never starved; once done: up to every core (max 8),
 * growing from `current` only by the cores idle over the last batch (`idle`), because more threads
 * than free cores is slower, not faster. CASEFILE_EMBED_THREADS, when set, holds throughout.
 */
export function ingestEmbedThreads(
  readersBusy: number,
  opts: { cores?: number; current?: number; idle?: number; lowered?: boolean } = {},
): number {
  const configured = readConfig().embedThreads;
  if (configured) return configured;
  const cores = opts.cores ?? os.availableParallelism();
  const lowered = opts.lowered ?? THREAD_PRIORITIES;
  if (lowered) return defaultEmbedThreads(cores, true);
  if (readersBusy > 0) return Math.max(1, Math.min(MAX_EMBED_THREADS, cores - readersBusy));
  const current = opts.current ?? 1;
  return Math.max(1, Math.min(MAX_EMBED_THREADS, cores, current + Math.floor(Math.max(0, opts.idle ?? 0) + 0.25)));
}

/** The machine's idle CPU between two samples, in cores (os.cpus() times: no process or thread of its own). */
export class IdleCores {
  private last = IdleCores.read();

  private static read(): { idle: number; total: number; cores: number } {
    let idle = 0;
    let total = 0;
    const cpus = os.cpus();
    for (const c of cpus) {
      idle += c.times.idle;
      total += c.times.idle + c.times.user + c.times.nice + c.times.sys + c.times.irq;
    }
    return { idle, total, cores: cpus.length };
  }

  /** Idle cores since the previous sample (or since this sampler was made). */
  sample(): number {
    const now = IdleCores.read();
    const total = now.total - this.last.total;
    const idle = now.idle - this.last.idle;
    this.last = now;
    return total > 0 ? (idle / total) * now.cores : 0;
  }
}

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
  | { type: 'stats'; id: number }
  /** Stop: cancel all work, finish the forward pass under way, let the models go, answer `drained`. */
  | { type: 'drain' };

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
  | { type: 'stats'; id: number; stats: EmbedWorkerStats }
  | { type: 'drained' };

export function modelKey(m: EmbedModelSpec): string {
  return JSON.stringify([m.dir, m.threads, m.batchSize ?? null, m.pooling ?? null]);
}
