import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { packageFileUrl, startWorker } from '../util/worker-start';
import type { ChunkRecord } from './types';
import type { ParseSummary, ParseTask, WorkerRequest, WorkerResponse } from './worker-protocol';

export interface PoolOptions {
  /** Path of the worker entry (src/core/ingest/worker.ts from source, or the bundled worker file). */
  workerPath?: string;
  /** Parallel workers; default: available cores − 1, between 1 and 4. */
  concurrency?: number;
  /** Terminate idle workers after this many ms (default 30 s). */
  idleMs?: number;
}

/** Parallel workers that suit 2–8 cores: leave one core to the UI / main thread, cap memory at four pdf.js instances. */
export function defaultConcurrency(): number {
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return Math.max(1, Math.min(4, cores - 1));
}

/**
 * The worker next to this module: worker.ts when running from TypeScript source, worker.js when
 * compiled, or `ingest-worker.js` next to the bundle (electron-vite's main entry of that name).
 */
export function defaultWorkerPath(): string {
  const here = fileURLToPath(import.meta.url);
  const dir = path.dirname(here);
  const candidates = [
    path.join(dir, `worker${path.extname(here) || '.js'}`),
    path.join(dir, 'ingest-worker.js'),
    path.join(dir, 'ingest-worker.mjs'),
    // this module bundled into a shared chunk (out/main/chunks/…)
    path.join(dir, '..', 'ingest-worker.js'),
  ];
  return candidates.find((c) => existsSync(c)) ?? candidates[0]!;
}

/**
 * Worker code that runs a TypeScript entry (tests, CLI via tsx). pdf.js is imported natively
 * first — tsx would otherwise transform its 2 MB modules in every worker, costing ~450 MB of
 * memory and seconds of start-up — then tsx is registered and the entry loaded (see startWorker).
 */
function pdfjsPreload(): string[] {
  return [packageFileUrl('pdfjs-dist', 'legacy', 'build', 'pdf.worker.mjs'), packageFileUrl('pdfjs-dist', 'legacy', 'build', 'pdf.mjs')];
}

export interface ParseResult {
  summary: ParseSummary;
  chunks: ChunkRecord[];
}

type Pending = {
  task: ParseTask;
  resolve: (r: ParseResult) => void;
  reject: (e: unknown) => void;
  onPage?: (done: number, total: number) => void;
  onStage?: (stage: 'chunking') => void;
  signal?: AbortSignal;
  onAbort?: () => void;
};

interface Slot {
  worker: Worker;
  current?: Pending;
  idleTimer?: NodeJS.Timeout;
}

function abortError(signal?: AbortSignal): Error {
  const reason = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return Object.assign(new Error('Cancelled'), { name: 'AbortError' });
}

/**
 * A small pool of worker threads running parse tasks, one task per worker at a time, FIFO.
 * Aborting a queued task removes it; aborting a running one asks the worker to stop (between
 * pages). A worker that dies fails only its own task and is replaced on demand.
 */
export class WorkerPool {
  readonly workerPath: string;
  readonly concurrency: number;
  private readonly idleMs: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  constructor(options: PoolOptions = {}) {
    this.workerPath = options.workerPath ?? defaultWorkerPath();
    this.concurrency = Math.max(1, options.concurrency ?? defaultConcurrency());
    this.idleMs = options.idleMs ?? 30_000;
  }

  run(
    task: Omit<ParseTask, 'type' | 'id'>,
    opts: { signal?: AbortSignal; onPage?: (done: number, total: number) => void; onStage?: (stage: 'chunking') => void } = {},
  ): Promise<ParseResult> {
    if (this.closed) return Promise.reject(new Error('The ingest worker pool is closed.'));
    if (opts.signal?.aborted) return Promise.reject(abortError(opts.signal));
    return new Promise<ParseResult>((resolve, reject) => {
      const pending: Pending = { task: { ...task, type: 'parse', id: this.nextId++ }, resolve, reject, onPage: opts.onPage, onStage: opts.onStage, signal: opts.signal };
      if (opts.signal) {
        pending.onAbort = () => this.abort(pending);
        opts.signal.addEventListener('abort', pending.onAbort, { once: true });
      }
      this.queue.push(pending);
      this.pump();
    });
  }

  private abort(p: Pending): void {
    const i = this.queue.indexOf(p);
    if (i >= 0) {
      this.queue.splice(i, 1);
      this.settle(p, () => p.reject(abortError(p.signal)));
      return;
    }
    const slot = this.slots.find((s) => s.current === p);
    slot?.worker.postMessage({ type: 'cancel', id: p.task.id } satisfies WorkerRequest);
  }

  private settle(p: Pending, fn: () => void): void {
    if (p.onAbort) p.signal?.removeEventListener('abort', p.onAbort);
    fn();
  }

  private pump(): void {
    while (this.queue.length) {
      let slot = this.slots.find((s) => !s.current);
      if (!slot && this.slots.length < this.concurrency) slot = this.spawn();
      if (!slot) return;
      const p = this.queue.shift()!;
      if (slot.idleTimer) clearTimeout(slot.idleTimer);
      slot.idleTimer = undefined;
      slot.current = p;
      slot.worker.postMessage(p.task satisfies WorkerRequest);
    }
  }

  private spawn(): Slot {
    const worker = startWorker(this.workerPath, pdfjsPreload);
    const slot: Slot = { worker };
    worker.on('message', (msg: WorkerResponse) => this.onMessage(slot, msg));
    worker.on('error', (err) => this.onExit(slot, `the reader stopped unexpectedly (${err.message})`));
    worker.on('exit', (code) => this.onExit(slot, `the reader stopped unexpectedly (exit code ${code})`));
    this.slots.push(slot);
    return slot;
  }

  private onMessage(slot: Slot, msg: WorkerResponse): void {
    const p = slot.current;
    if (!p || p.task.id !== msg.id) return;
    if (msg.type === 'page') {
      p.onPage?.(msg.done, msg.total);
      return;
    }
    if (msg.type === 'stage') {
      p.onStage?.(msg.stage);
      return;
    }
    slot.current = undefined;
    if (msg.type === 'done') this.settle(p, () => p.resolve({ summary: msg.summary, chunks: msg.chunks }));
    else if (msg.type === 'cancelled') this.settle(p, () => p.reject(abortError(p.signal)));
    else this.settle(p, () => p.reject(new Error(msg.message)));
    this.idle(slot);
    this.pump();
  }

  private idle(slot: Slot): void {
    if (slot.current || this.closed) return;
    slot.idleTimer = setTimeout(() => {
      if (!slot.current) void slot.worker.terminate();
    }, this.idleMs);
    slot.idleTimer.unref();
  }

  private onExit(slot: Slot, reason: string): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    const p = slot.current;
    slot.current = undefined;
    if (p) this.settle(p, () => p.reject(Object.assign(new Error(reason), { name: 'WorkerCrash' })));
    if (!this.closed) this.pump();
  }

  /** Stop every worker; queued tasks are rejected as cancelled. */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) this.settle(p, () => p.reject(abortError()));
    const slots = this.slots.splice(0);
    for (const s of slots) {
      if (s.idleTimer) clearTimeout(s.idleTimer);
      const p = s.current;
      s.current = undefined;
      if (p) this.settle(p, () => p.reject(abortError()));
    }
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}
