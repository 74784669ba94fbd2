import { CasefileError } from '../../shared/errors';
import type { CaseRegistry, IndexLocation } from '../cases/index';
import type { ChunkRecord } from '../domain/index';
import { EmbedWorkerStopped } from './embed-host';
import { loadEmbedder, type EmbeddingCatalog, type LoadedEmbedder } from './models';
import { ChunkStore, embeddingText } from './store';

/**
 * What ingest hands to the index after a file version is parsed and chunked. Implementations
 * must be idempotent per (file_id, version): a resumed ingest may index the same version again,
 * and the result must hold no duplicate chunks.
 */
export interface IndexSink {
  /**
   * Add (or replace) all chunks of one file version; `onProgress(done, total)` reports chunks
   * embedded. With `defer`, the chunks are written keyword-searchable at once and their vectors
   * come later, from `embedPending`. `added`: the version is new to this index (registered by the
   * caller's own run), so there is nothing to replace.
   */
  indexVersion(chunks: ChunkRecord[], opts: IndexVersionOptions): Promise<void>;
  /**
   * Embed the case's passages still without vectors, oldest first, until none is left (also those
   * a killed process left). `onProgress(embedded, total)` counts the case's latest passages.
   * `threads`, asked before each batch, sets the onnxruntime threads (default: the model's own).
   * `pause`, asked before each batch: when true, return after the batch under way (the rest stay
   * pending for the next call). `files`, asked before each batch: the caller's own files (an
   * ingest's); while the case catches up with its model, only their passages, and `onProgress`
   * counts theirs.
   */
  embedPending(opts: EmbedPendingOptions): Promise<void>;
  /** Mark which version of a file is the latest (is_latest) after a new version was added or one removed. */
  setLatest(fileId: string, latestVersion: number | null): Promise<void>;
  /** The case's latest passages with vectors, of all (of `files` only while the case catches up with its model); null for a case without vectors. */
  embeddedShare(files?: ReadonlySet<string>): Promise<{ embedded: number; total: number } | null>;
  /** The embedding model this case's vectors come from now (its passages wait for theirs when it changed); null when none is installed. */
  modelId(): Promise<string | null>;
  /** Remove chunks of a file: every version, or only those listed. */
  removeFile(fileId: string, versions?: number[]): Promise<void>;
  close(): Promise<void>;
}

export interface IndexVersionOptions {
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
  defer?: boolean;
  added?: boolean;
}

export interface EmbedPendingOptions {
  signal?: AbortSignal;
  onProgress?: (embedded: number, total: number) => void;
  threads?: () => number;
  pause?: () => boolean;
  files?: () => ReadonlySet<string>;
  /** Passages in the first batch and the most in one (the batches double between); the defaults suit the app. */
  ramp?: { first: number; max: number };
}

export interface IndexSinkOptions {
  caseId: string;
  caseDir: string;
  /** Where the case's index is (default: `<caseDir>/lancedb`). */
  index?: IndexLocation;
  /** case.json records which model made the case's vectors. */
  cases: Pick<CaseRegistry, 'readMeta' | 'updateMeta'>;
  /** Where embedding models come from (the engine's model catalog). */
  catalog: EmbeddingCatalog;
}

/** Versions indexed between two compactions (also run on close, i.e. after each ingest batch). */
const OPTIMIZE_EVERY = 25;
/**
 * Passages embedded per table write in the background stage: 32 at first, so a small case's first
 * vectors come soon, doubling up to 512. Each write is a merge over the whole table (and counts
 * towards its compaction, `OPTIMIZE_EVERY`), and each batch costs a scan for the next and two
 * counts: larger batches bring the stage to onnxruntime's own time (figures: bench/RESULTS.md, "Figures behind choices in the code").
 * Progress follows the table, so on a large case it moves every 512 passages.
 */
const PENDING_BATCH = 32;
const PENDING_BATCH_MAX = 512;
/** Texts embedded per call when re-embedding a whole case (progress granularity). */
const REEMBED_BATCH = 64;

function aborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/**
 * The LanceDB sink of one case: chunks (with vectors from the case's embedding model when one is
 * installed) into `<caseDir>/lancedb`, table `chunks`. The case records its model id and dimension
 * in case.json; if the installed model differs from the one that made the case's vectors (or the
 * case has none), every passage is set to wait for a vector of the new model, never mixing them:
 * the case stays keyword-searchable and `embedPending` (an ingest's own files, or the background
 * catch-up for the rest) makes them.
 */
class LanceIndexSink implements IndexSink {
  private store: Promise<ChunkStore> | null = null;
  private embedderState: Promise<LoadedEmbedder | null> | null = null;
  /** The model with other thread counts, for the embedding stage (disposed with the sink). */
  private readonly byThreads = new Map<number, LoadedEmbedder>();
  private sinceOptimize = 0;
  private dirty = false;
  /** The case's passages from before its model wait for their vectors (case.json `embedding.catchUp`). */
  private backlog = false;
  /** Table writes go one at a time (ingest lanes call the sink concurrently); embedding runs outside it. */
  private writes: Promise<unknown> = Promise.resolve();
  constructor(private readonly options: IndexSinkOptions) {}

  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.writes.then(fn, fn);
    this.writes = run.catch(() => undefined);
    return run;
  }

  private getStore(): Promise<ChunkStore> {
    this.store ??= ChunkStore.open(this.options.index ?? this.options.caseDir);
    return this.store;
  }

  /** Decide once per sink which model embeds this case, its passages set to wait for that model's vectors when it changed. */
  private embedder(signal?: AbortSignal): Promise<LoadedEmbedder | null> {
    this.embedderState ??= this.chooseEmbedder(signal).catch((err: unknown) => {
      this.embedderState = null;
      throw err;
    });
    return this.embedderState;
  }

  private async chooseEmbedder(signal?: AbortSignal): Promise<LoadedEmbedder | null> {
    const store = await this.getStore();
    const meta = await this.options.cases.readMeta(this.options.caseId).catch(() => null);
    const recorded = meta?.embedding ?? null;
    const storedDim = await store.vectorDimension();
    const rows = await store.count();
    // Prefer the model that made this case's vectors; else the default installed model.
    let loaded = recorded ? await loadEmbedder(this.options.catalog, recorded.modelId) : null;
    if (!loaded || !loaded.ok) loaded = await loadEmbedder(this.options.catalog, null);
    if (!loaded.ok) {
      if (storedDim !== null && rows > 0) {
        throw new CasefileError(
          'unavailable',
          `This case's vectors were made with "${recorded?.modelId ?? 'an embedding model'}", which is not installed any more. Install it again (or another embedding model, and the case will be made searchable by meaning with it) before adding files.`,
        );
      }
      return null;
    }
    const embedder = loaded.embedder;
    await embedder.init();
    aborted(signal);
    const sameModel = recorded !== null && recorded.modelId === embedder.modelId && storedDim === embedder.dimension;
    const reset = rows > 0 && !sameModel;
    this.backlog = reset || (sameModel && recorded.catchUp === true);
    // The table first: a process killed between the two finds it waiting and sets it again.
    if (reset) await this.serialized(() => store.resetVectors(embedder.dimension));
    if (!sameModel || recorded?.dimension !== embedder.dimension) {
      const embedding = {
        modelId: embedder.modelId,
        dimension: embedder.dimension,
        ...(this.backlog ? { catchUp: true } : {}),
      };
      await this.options.cases.updateMeta(this.options.caseId, (m) => ({ ...m, embedding }));
    }
    return embedder;
  }

  async modelId(): Promise<string | null> {
    return (await this.embedder())?.modelId ?? null;
  }

  async indexVersion(chunks: ChunkRecord[], opts: IndexVersionOptions = {}): Promise<void> {
    const { signal, onProgress } = opts;
    aborted(signal);
    if (chunks.length === 0) return;
    const first = chunks[0]!;
    if (chunks.some((c) => c.file_id !== first.file_id || c.version !== first.version)) {
      throw new Error('indexVersion takes the chunks of exactly one file version');
    }
    const store = await this.getStore();
    const embedder = await this.embedder(signal);
    if (embedder && opts.defer) {
      await this.write(store, () =>
        store.replaceVersion(first.file_id, first.version, chunks, { pending: embedder.dimension }, opts.added),
      );
      return;
    }
    let vectors: Float32Array[] | null = null;
    if (embedder) {
      vectors = [];
      const batch = 32;
      for (let i = 0; i < chunks.length; i += batch) {
        aborted(signal);
        vectors.push(...(await embedder.embed(chunks.slice(i, i + batch).map(embeddingText), signal)));
        onProgress?.(vectors.length, chunks.length);
      }
    } else {
      onProgress?.(chunks.length, chunks.length);
    }
    aborted(signal);
    await this.write(store, () => store.replaceVersion(first.file_id, first.version, chunks, vectors, opts.added));
  }

  /** A table write, one at a time, compacting every OPTIMIZE_EVERY writes. */
  private write(store: ChunkStore, change: () => Promise<void>): Promise<void> {
    return this.serialized(async () => {
      await change();
      this.dirty = true;
      if (++this.sinceOptimize >= OPTIMIZE_EVERY) {
        this.sinceOptimize = 0;
        await store.optimize();
      }
    });
  }

  async embedPending(opts: EmbedPendingOptions = {}): Promise<void> {
    const { signal, onProgress } = opts;
    const store = await this.getStore();
    if (!(await store.hasEmbeddedColumn())) return;
    const base = await this.embedder(signal);
    if (!base) return;
    // While the case catches up with its model, a caller's own files only (an ingest's); else every passage that waits.
    const only = () => (this.backlog ? opts.files?.() : undefined);
    let stopped = false;
    // While the model embeds a batch, the last batch's vectors are written and the next batch is
    // read: the model does not wait on the table (about 3 % of the stage on the e2e bench's case).
    let written: Promise<void> = Promise.resolve();
    try {
      const ramp = opts.ramp ?? { first: PENDING_BATCH, max: PENDING_BATCH_MAX };
      let size = ramp.first;
      let batch = await store.pending(size, [], only());
      while (batch.length && !(stopped = opts.pause?.() === true)) {
        aborted(signal);
        const embedding = this.embedBatch(this.withThreads(base, opts.threads?.() ?? base.threads), batch, signal);
        embedding.catch(() => {}); // awaited below, after the write and the read
        await written;
        size = Math.min(ramp.max, size * 2);
        const next = await store.pending(size, batch, only());
        const vectors = await embedding;
        aborted(signal);
        const done = batch;
        written = this.write(store, () => store.setVectors(done, vectors)).then(async () => {
          const share = onProgress ? await store.embeddedShare(only()) : null;
          if (share) onProgress?.(share.embedded, share.total);
        });
        written.catch(() => {}); // awaited before the next write, or below
        batch = next;
      }
    } finally {
      // A failure or cancel leaves no write behind it; the write's own failure surfaces here.
      await written;
    }
    if (this.backlog && !stopped && (await store.count('embedded = false')) === 0) await this.caughtUp();
  }

  /** Every passage has its vector of the case's model: case.json says the case caught up. */
  private async caughtUp(): Promise<void> {
    this.backlog = false;
    await this.options.cases.updateMeta(this.options.caseId, (m) =>
      m.embedding ? { ...m, embedding: { modelId: m.embedding.modelId, dimension: m.embedding.dimension } } : m,
    );
  }

  /** One batch's vectors; a worker that crashed under the batch is started again and the batch tried once more. */
  private embedBatch(embedder: LoadedEmbedder, batch: ChunkRecord[], signal?: AbortSignal): Promise<Float32Array[]> {
    const texts = batch.map(embeddingText);
    return embedder.embed(texts, signal).catch((err: unknown) => {
      if (err instanceof EmbedWorkerStopped) return embedder.embed(texts, signal);
      throw err;
    });
  }

  private withThreads(base: LoadedEmbedder, threads: number): LoadedEmbedder {
    if (threads === base.threads) return base;
    let embedder = this.byThreads.get(threads);
    if (!embedder) this.byThreads.set(threads, (embedder = base.withThreads(threads)));
    return embedder;
  }

  async embeddedShare(files?: ReadonlySet<string>): Promise<{ embedded: number; total: number } | null> {
    // Whether the case catches up (and so whether `files` count) is known once its model is chosen.
    if (files) await this.embedder().catch(() => null);
    return (await this.getStore()).embeddedShare(this.backlog ? files : undefined);
  }

  async setLatest(fileId: string, latestVersion: number | null): Promise<void> {
    const store = await this.getStore();
    await this.serialized(() => store.setLatest(fileId, latestVersion));
    this.dirty = true;
  }

  async removeFile(fileId: string, versions?: number[]): Promise<void> {
    const store = await this.getStore();
    await this.serialized(() => store.removeFile(fileId, versions));
    this.dirty = true;
  }

  /** End of an ingest batch: bring the full-text index up to date, compact, then release everything. */
  async close(): Promise<void> {
    await this.writes;
    const store = this.store ? await this.store : null;
    this.store = null;
    if (store) {
      try {
        if (this.dirty) await store.optimize();
      } finally {
        store.close();
      }
    }
    const embedder = this.embedderState ? await this.embedderState.catch(() => null) : null;
    this.embedderState = null;
    await embedder?.dispose();
    for (const other of this.byThreads.values()) await other.dispose();
    this.byThreads.clear();
  }
}

/**
 * Re-embed every chunk of a case with `modelId` (or the default embedding model) and record it in
 * case.json — what "change the case's embedding model" runs. One atomic table rewrite: searches
 * see either the old vectors or the new ones, never a mix. Do not run it during an ingest of the case.
 */
export async function reembedCase(
  options: IndexSinkOptions & { modelId?: string | null },
  opts: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
): Promise<{ model_id: string; dimension: number; chunks: number }> {
  const loaded = await loadEmbedder(options.catalog, options.modelId ?? null);
  if (!loaded.ok) throw new CasefileError('unavailable', `Cannot re-embed: ${loaded.reason}.`);
  const embedder = loaded.embedder;
  const store = await ChunkStore.open(options.index ?? options.caseDir);
  try {
    const chunks = await store.rows(undefined);
    const vectors: Float32Array[] = [];
    for (let i = 0; i < chunks.length; i += REEMBED_BATCH) {
      aborted(opts.signal);
      vectors.push(...(await embedder.embed(chunks.slice(i, i + REEMBED_BATCH).map(embeddingText), opts.signal)));
      opts.onProgress?.(vectors.length, chunks.length);
    }
    aborted(opts.signal);
    if (chunks.length) {
      await store.overwrite(chunks, vectors);
      await store.optimize();
    }
    await options.cases.updateMeta(options.caseId, (m) => ({
      ...m,
      embedding: { modelId: embedder.modelId, dimension: embedder.dimension },
    }));
    return { model_id: embedder.modelId, dimension: embedder.dimension, chunks: chunks.length };
  } finally {
    store.close();
    await embedder.dispose();
  }
}

export async function createIndexSink(options: IndexSinkOptions): Promise<IndexSink> {
  return new LanceIndexSink(options);
}
