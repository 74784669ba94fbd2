/**
 * The background catch-up of a case's vectors: when an embedding model becomes available, every case
 * whose passages wait for vectors is embedded, most recently changed first (`request` puts one first).
 * Each slice runs in the case's queue under its lock, so a drop waits for one slice at most. A kill
 * loses nothing: waiting passages are marked `embedded = false` (retrieval/store.ts). Search works
 * meanwhile, by keywords and the vectors made so far.
 */
import type { IndexVectorsStatus } from '../../shared/contract/ingest';
import { resolveEmbeddingModel } from '../retrieval/models';
import { createIndexSink } from '../retrieval/sink';
import { ChunkStore } from '../retrieval/store';
import type { IngestPorts } from './ports';

/** A slice of embedding in the case's queue: a drop of the case waits for one at most. */
const SLICE_MS = 20_000;
/** After a failure (another process holds the case, the worker crashed), the case is tried again this much later. */
const RETRY_MS = 60_000;

/** Runs `fn` in the case's ingest queue under its cross-process lock. */
export type InCase = <T>(caseId: string, fn: () => Promise<T>) => Promise<T>;

function isAbort(err: unknown): boolean {
  return (err as Error)?.name === 'AbortError';
}

export class VectorCatchUp {
  /** Cases to catch up, in order. */
  private readonly waiting: string[] = [];
  private current: { caseId: string; controller: AbortController } | null = null;
  /** Another case was asked for first while this one works: the slice ends after its batch. */
  private preempted = false;
  /** The last state said of each case in line or at work. */
  private readonly said = new Map<string, IndexVectorsStatus>();
  private loop: Promise<void> | null = null;
  private readonly retries = new Set<ReturnType<typeof setTimeout>>();
  private closed = false;

  constructor(
    private readonly ports: Pick<IngestPorts, 'cases' | 'events' | 'indexSinkOptions'>,
    private readonly inCase: InCase,
  ) {}

  /** How far the case's passages are searchable by meaning (`index.vectors`). */
  async status(caseId: string): Promise<IndexVectorsStatus> {
    const said = this.said.get(caseId);
    if (said && (said.state === 'waiting' || said.state === 'running')) return said;
    return this.measure(caseId);
  }

  /** Every case that needs it, the most recently changed first. */
  async scheduleAll(): Promise<void> {
    const cases = (await this.ports.cases.list()).sort((a, b) => b.updated.localeCompare(a.updated));
    for (const c of cases) {
      if (this.closed) return;
      const status = await this.measure(c.id).catch(() => null);
      if (status?.state === 'needed') this.enqueue(status, false);
    }
  }

  /** The case, in line after the others, when its passages wait for vectors (after an ingest). */
  async follow(caseId: string): Promise<void> {
    if (this.closed || this.current?.caseId === caseId || this.waiting.includes(caseId)) return;
    const status = await this.measure(caseId);
    if (status.state === 'needed') this.enqueue(status, false);
  }

  /** The case, before every other one (its own button); its status. */
  async request(caseId: string): Promise<IndexVectorsStatus> {
    const status = await this.status(caseId);
    if (status.state === 'needed' || status.state === 'failed' || status.state === 'waiting')
      return this.enqueue(status, true);
    return status;
  }

  /** Stop working on a case (it is being deleted). */
  forget(caseId: string): void {
    const i = this.waiting.indexOf(caseId);
    if (i >= 0) this.waiting.splice(i, 1);
    if (this.current?.caseId === caseId) this.current.controller.abort();
    this.said.delete(caseId);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.retries) clearTimeout(t);
    this.waiting.length = 0;
    this.current?.controller.abort();
    await this.loop;
  }

  private enqueue(status: IndexVectorsStatus, first: boolean): IndexVectorsStatus {
    const { case_id: caseId } = status;
    if (this.current?.caseId !== caseId) {
      const i = this.waiting.indexOf(caseId);
      if (i >= 0) this.waiting.splice(i, 1);
      if (first) this.waiting.unshift(caseId);
      else this.waiting.push(caseId);
      if (first && this.current) this.preempted = true;
      this.emit({ ...status, state: 'waiting' });
      delete this.said.get(caseId)?.problem;
    }
    this.loop ??= this.drain().finally(() => (this.loop = null));
    return this.said.get(caseId) ?? status;
  }

  private emit(status: IndexVectorsStatus): void {
    this.said.set(status.case_id, status);
    this.ports.events.emit('index.vectors', status);
  }

  private async drain(): Promise<void> {
    for (let caseId = this.waiting.shift(); caseId !== undefined && !this.closed; caseId = this.waiting.shift()) {
      const controller = new AbortController();
      this.current = { caseId, controller };
      this.preempted = false;
      try {
        const more = await this.inCase(caseId, () => this.slice(caseId, controller.signal));
        // The rest of the case next, after a case asked for first.
        if (more && !controller.signal.aborted) this.waiting.splice(this.preempted ? 1 : 0, 0, caseId);
      } catch (err) {
        if (this.closed || controller.signal.aborted || isAbort(err)) continue;
        const last = this.said.get(caseId);
        this.emit({
          case_id: caseId,
          state: 'failed',
          embedded: last?.embedded ?? 0,
          total: last?.total ?? 0,
          model_id: last?.model_id ?? null,
          problem: (err as Error).message,
        });
        const retry = setTimeout(() => {
          this.retries.delete(retry);
          if (!this.closed) void this.request(caseId).catch(() => {});
        }, RETRY_MS);
        retry.unref?.();
        this.retries.add(retry);
      } finally {
        this.current = null;
      }
    }
  }

  /** One slice of the case's vectors; true when passages still wait. */
  private async slice(caseId: string, signal: AbortSignal): Promise<boolean> {
    const sink = await createIndexSink(await this.ports.indexSinkOptions(caseId));
    const started = Date.now();
    let paused = false;
    try {
      // The sink sets every passage to wait when the case's model changed.
      const modelId = await sink.modelId();
      const share = await sink.embeddedShare();
      if (!modelId || !share) {
        this.emit({ case_id: caseId, state: 'none', embedded: 0, total: share?.total ?? 0, model_id: modelId });
        return false;
      }
      const report = (embedded: number, total: number) =>
        this.emit({ case_id: caseId, state: 'running', embedded, total, model_id: modelId });
      report(share.embedded, share.total);
      await sink.embedPending({
        signal,
        onProgress: report,
        pause: () => (paused = this.preempted || Date.now() - started > SLICE_MS),
      });
      const end = (await sink.embeddedShare()) ?? share;
      if (paused && end.embedded < end.total) return true;
      this.emit({ case_id: caseId, state: 'done', embedded: end.embedded, total: end.total, model_id: modelId });
      this.ports.events.emit('cases.changed', { case_id: caseId, kind: 'files' });
      return false;
    } finally {
      await sink.close();
    }
  }

  /** Whether the case's passages wait for vectors of the model it would use now, without loading it. */
  private async measure(caseId: string): Promise<IndexVectorsStatus> {
    const options = await this.ports.indexSinkOptions(caseId);
    const recorded = (await this.ports.cases.readMeta(caseId)).embedding;
    let model = recorded ? await resolveEmbeddingModel(options.catalog, recorded.modelId) : null;
    if (!model?.ok) model = await resolveEmbeddingModel(options.catalog, null);
    const modelId = model.ok ? model.model.id : null;
    const store = await ChunkStore.open(options.index ?? options.caseDir);
    try {
      const total = await store.count('is_latest = true');
      const dimension = await store.vectorDimension();
      if (!modelId || total === 0) return { case_id: caseId, state: 'none', embedded: 0, total, model_id: modelId };
      const sameModel =
        recorded?.modelId === modelId &&
        dimension !== null &&
        (!model.ok || model.model.dimension === null || model.model.dimension === dimension);
      if (!sameModel) return { case_id: caseId, state: 'needed', embedded: 0, total, model_id: modelId };
      const share = (await store.embeddedShare()) ?? { embedded: total, total };
      const waiting = (await store.hasEmbeddedColumn()) ? await store.count('embedded = false') : 0;
      return { case_id: caseId, state: waiting > 0 ? 'needed' : 'done', ...share, model_id: modelId };
    } finally {
      store.close();
    }
  }
}
