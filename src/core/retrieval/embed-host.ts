/**
 * Embedding off the engine's thread: one worker thread (embed-worker.ts) owns the models, and
 * `RemoteEmbedder` (the `Embedder` API) posts texts to it, so the engine's thread (Electron main)
 * never loads transformers.js or onnxruntime. One worker per process, shared by its engines so each
 * model loads once; the last `engine.close()` terminates it, and idle it never keeps the process alive.
 */
import type { Worker } from 'node:worker_threads';
import { CasefileError } from '../../shared/errors';
import { applyOfflineEnv } from '../util/offline-env';
import { lazy } from '../util/lazy';
import { findWorkerEntry, packageFileUrl, startWorker } from '../util/worker-start';
import type { Pooling } from '../models/folder';
import {
  embedThreads,
  modelKey,
  type EmbedderOptions,
  type EmbeddingModelRef,
  type EmbedModelSpec,
  type EmbedWorkerRequest,
  type EmbedWorkerResponse,
  type EmbedWorkerStats,
} from './embed-protocol';
import { readConfig } from '../config';

/** A model no embedder holds any more is unloaded from the worker after this long (the next ingest or query often wants it again). */
const UNLOAD_AFTER_MS = 60_000;
/**
 * How long close() lets the worker finish its forward pass before terminating it anyway. Stopping
 * a thread inside onnxruntime's run aborts the whole process (a native exception during teardown).
 */
const DRAIN_MS = 30_000;

/** embed-worker.ts next to this module (source), or `embed-worker.js` next to the bundle. */
export function defaultEmbedWorkerPath(): string | null {
  return findWorkerEntry(import.meta.url, 'embed-worker', 'embed-worker', readConfig().workerDir);
}

function abortError(signal?: AbortSignal): unknown {
  return signal?.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/** The embedding worker died under a request (a crash, not a model that cannot load): retrying may work. */
export class EmbedWorkerStopped extends CasefileError {
  constructor(detail: string) {
    super('failed', `the embedding worker stopped unexpectedly (${detail}); ingest the file again to retry`);
  }
}

type Reply = Exclude<EmbedWorkerResponse, { type: 'cancelled' | 'error' }>;

interface Pending {
  resolve: (msg: Reply) => void;
  reject: (err: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/** The embedding worker thread and the requests in flight on it; started on first use, restarted after a crash. */
export class EmbedWorkerHost {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly holders = new Map<string, { spec: EmbedModelSpec; count: number; timer?: NodeJS.Timeout }>();

  constructor(private readonly entry: string | null = defaultEmbedWorkerPath()) {}

  /** Thread id of the running worker, or null when none runs (diagnostics and tests). */
  get threadId(): number | null {
    return this.worker?.threadId ?? null;
  }

  /** The running worker thread, if any (diagnostics and tests: e.g. to stop it as a crash would). */
  get runningWorker(): Worker | null {
    return this.worker;
  }

  /** Requests waiting for the worker's answer. */
  get inFlight(): number {
    return this.pending.size;
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    if (!this.entry) {
      throw new CasefileError(
        'unavailable',
        'The embedding worker is missing from this installation (embed-worker.js next to the app bundle). Reinstall Casefile.',
      );
    }
    // The worker's process.env is a copy: onnxruntime reads the real environment, set here first.
    applyOfflineEnv();
    // From source, transformers.js is imported natively before tsx takes over (see startWorker).
    const worker = startWorker(this.entry, () => [
      packageFileUrl('@huggingface/transformers', 'dist', 'transformers.node.mjs'),
    ]);
    worker.unref();
    const stopped = (detail: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.failAll(new EmbedWorkerStopped(detail));
    };
    worker.on('message', (msg: EmbedWorkerResponse) => this.onMessage(msg));
    worker.on('error', (err) => stopped(err.message));
    worker.on('exit', (code) => stopped(`exit code ${code}`));
    this.worker = worker;
    return worker;
  }

  private failAll(err: unknown): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) this.settle(p, () => p.reject(err));
  }

  private settle(p: Pending, fn: () => void): void {
    if (p.onAbort) p.signal?.removeEventListener('abort', p.onAbort);
    fn();
  }

  /** The worker keeps the process alive only while it has work. */
  private updateRef(): void {
    if (!this.worker) return;
    if (this.pending.size) this.worker.ref();
    else this.worker.unref();
  }

  private onMessage(msg: EmbedWorkerResponse): void {
    if (msg.type === 'drained') return; // close() listens for it
    const p = this.pending.get(msg.id);
    if (!p) return; // cancelled on this side already
    this.pending.delete(msg.id);
    this.updateRef();
    if (msg.type === 'cancelled') this.settle(p, () => p.reject(abortError(p.signal)));
    else if (msg.type === 'error')
      this.settle(p, () =>
        p.reject(msg.code ? new CasefileError(msg.code as CasefileError['code'], msg.message) : new Error(msg.message)),
      );
    else this.settle(p, () => p.resolve(msg));
  }

  private request<T extends Reply>(make: (id: number) => EmbedWorkerRequest, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    let worker: Worker;
    try {
      worker = this.start();
    } catch (err) {
      return Promise.reject(err);
    }
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const p: Pending = { resolve: resolve as (msg: Reply) => void, reject, signal };
      if (signal) {
        // Give up at once; the worker stops after its current forward pass and the reply is dropped.
        p.onAbort = () => {
          if (!this.pending.delete(id)) return;
          this.updateRef();
          this.worker?.postMessage({ type: 'cancel', id } satisfies EmbedWorkerRequest);
          reject(abortError(signal));
        };
        signal.addEventListener('abort', p.onAbort, { once: true });
      }
      this.pending.set(id, p);
      this.updateRef();
      worker.postMessage(make(id));
    });
  }

  /** Load `model` in the worker (once; later calls return at once) and report its vector length. */
  async load(model: EmbedModelSpec, signal?: AbortSignal): Promise<{ dimension: number; pooling: Pooling }> {
    const msg = await this.request<Extract<Reply, { type: 'loaded' }>>((id) => ({ type: 'load', id, model }), signal);
    return { dimension: msg.dimension, pooling: msg.pooling };
  }

  /** Normalised vectors of `texts`, in order, computed in the worker. */
  async embed(model: EmbedModelSpec, texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (texts.length === 0) {
      if (signal?.aborted) throw abortError(signal);
      return [];
    }
    const msg = await this.request<Extract<Reply, { type: 'vectors' }>>(
      (id) => ({ type: 'embed', id, model, texts }),
      signal,
    );
    const { data, dimension } = msg;
    const out: Float32Array[] = [];
    for (let r = 0; r < texts.length; r++) out.push(data.slice(r * dimension, (r + 1) * dimension));
    return out;
  }

  /** What the worker holds and has done (starts it when it is not running). */
  async stats(): Promise<EmbedWorkerStats> {
    return (await this.request<Extract<Reply, { type: 'stats' }>>((id) => ({ type: 'stats', id }))).stats;
  }

  /** An embedder holds `model`: it stays loaded while held. */
  acquire(model: EmbedModelSpec): void {
    const key = modelKey(model);
    const h = this.holders.get(key) ?? { spec: model, count: 0 };
    h.count++;
    if (h.timer) clearTimeout(h.timer);
    h.timer = undefined;
    this.holders.set(key, h);
  }

  /** An embedder let go of `model`; unloaded a while after the last one does. */
  release(model: EmbedModelSpec): void {
    const key = modelKey(model);
    const h = this.holders.get(key);
    if (!h || --h.count > 0) return;
    h.timer = setTimeout(() => {
      if (h.count > 0) return;
      this.holders.delete(key);
      this.worker?.postMessage({ type: 'unload', model } satisfies EmbedWorkerRequest);
    }, UNLOAD_AFTER_MS);
    h.timer.unref();
  }

  /**
   * Stop the worker (its models go with it); requests in flight fail. The worker first finishes
   * the forward pass it is in and lets its models go, then it is terminated. It starts again on
   * the next request.
   */
  async close(): Promise<void> {
    for (const h of this.holders.values()) if (h.timer) clearTimeout(h.timer);
    this.holders.clear();
    const worker = this.worker;
    this.worker = null;
    this.failAll(new CasefileError('unavailable', 'Embedding stopped: the engine is shutting down.'));
    if (!worker) return;
    await drained(worker);
    await worker.terminate();
  }
}

/** Ask the worker to stop its work and let its models go; resolves when it has (or has exited, or after DRAIN_MS). */
function drained(worker: Worker): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', done);
      resolve();
    };
    const onMessage = (msg: EmbedWorkerResponse) => {
      if (msg.type === 'drained') done();
    };
    const timer = setTimeout(done, DRAIN_MS);
    worker.on('message', onMessage);
    worker.once('exit', done);
    worker.postMessage({ type: 'drain' } satisfies EmbedWorkerRequest);
  });
}

let shared: EmbedWorkerHost | null = null;
let retained = 0;

/** The process's embedding worker host. */
export function sharedEmbedHost(): EmbedWorkerHost {
  shared ??= new EmbedWorkerHost();
  return shared;
}

/**
 * An engine holds the shared embedding worker while it is open; the returned release (for
 * `engine.onClose`) terminates the worker when the last engine of the process closes.
 */
export function retainEmbedWorker(): () => Promise<void> {
  retained++;
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    if (--retained === 0) await shared?.close();
  };
}

/**
 * A sentence-embedding model run in the embedding worker: the API of `Embedder` (init, embed,
 * embedOne, dimension, dispose), so callers need not know where the model runs. Cancelling the
 * signal rejects at once with an AbortError and stops the worker after its current batch.
 */
/** An embedding model ready to embed a case's chunks and queries (normalised vectors). */
export interface LoadedEmbedder {
  readonly modelId: string;
  readonly dimension: number;
  init(): Promise<void>;
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
  embedOne(text: string, signal?: AbortSignal): Promise<Float32Array>;
  /** The onnxruntime threads it runs with. */
  readonly threads: number;
  /** The same model run with `threads` onnxruntime threads (a session of its own in the worker); dispose it apart. */
  withThreads(threads: number): LoadedEmbedder;
  dispose(): Promise<void>;
}

export class RemoteEmbedder implements LoadedEmbedder {
  readonly modelId: string;
  private readonly spec: EmbedModelSpec;
  private dim: number | undefined;
  private modelPooling: Pooling | undefined;
  private readonly loading = lazy(() => this.load());
  private held = false;

  constructor(
    private readonly model: EmbeddingModelRef,
    private readonly options: EmbedderOptions = {},
    private readonly host: EmbedWorkerHost = sharedEmbedHost(),
  ) {
    this.modelId = model.id;
    // Threads are settled here, on the engine's side, so CASEFILE_EMBED_THREADS as it is now applies.
    this.spec = {
      id: model.id,
      dir: model.dir,
      threads: embedThreads(options.threads),
      batchSize: options.batchSize,
      pooling: options.pooling,
    };
  }

  get dimension(): number {
    if (!this.dim) throw new Error('RemoteEmbedder.dimension is known only after init()');
    return this.dim;
  }

  get threads(): number {
    return this.spec.threads;
  }

  withThreads(threads: number): RemoteEmbedder {
    return new RemoteEmbedder(this.model, { ...this.options, threads }, this.host);
  }

  get pooling(): Pooling {
    return this.spec.pooling ?? this.modelPooling ?? 'mean';
  }

  /** Load the model in the worker. Safe to call many times; concurrent callers share one load. */
  init(): Promise<void> {
    return this.loading.get();
  }

  private async load(): Promise<void> {
    if (!this.held) {
      this.host.acquire(this.spec);
      this.held = true;
    }
    const { dimension, pooling } = await this.host.load(this.spec);
    this.dim = dimension;
    this.modelPooling = pooling;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (signal?.aborted) throw abortError(signal);
    await this.init();
    return this.host.embed(this.spec, texts, signal);
  }

  async embedOne(text: string, signal?: AbortSignal): Promise<Float32Array> {
    const [vector] = await this.embed([text], signal);
    return vector!;
  }

  /** Let go of the model (the worker unloads it once nothing holds it for a while). Can be initialised again. */
  async dispose(): Promise<void> {
    this.loading.reset();
    if (this.held) this.host.release(this.spec);
    this.held = false;
  }
}
