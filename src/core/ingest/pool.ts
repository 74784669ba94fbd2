import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtWorkerEntry, packageFileUrl, startChild } from '../util/worker-start';
import {
  DEFAULT_LIMITS,
  formatBytes,
  formatDuration,
  raiseHint,
  type IngestLimits,
  type ChunkRecord,
} from '../domain/index';
import type { ParseSummary, ParseTask, WorkerRequest, WorkerResponse } from '../reader/index';
import { readConfig } from '../config';

export interface PoolOptions {
  /** Path of the worker entry (src/core/reader/worker.ts from source, or the bundled worker file). */
  workerPath?: string;
  /** Parallel workers; default: one per core, between 1 and 4. */
  concurrency?: number;
  /** Terminate idle workers after this many ms (default 30 s). */
  idleMs?: number;
  /** Replace a reader that holds more than this once its file is done (default `RECYCLE_RSS_BYTES`). */
  recycleRssBytes?: number;
  /** Memory and time limits of one file's reader (the rest of the limits travel with each task). */
  limits?: Pick<IngestLimits, 'maxParseMemoryBytes' | 'fileTimeoutMs' | 'pageTimeoutMs' | 'quarantineAfter'>;
}

/**
 * Parallel readers: one per core, at most four pdf.js instances (memory). The embedding stage runs
 * below them (util/priority.ts), so parsing takes the cores first and the vectors catch up once it
 * is done.
 */
export function defaultConcurrency(): number {
  return Math.max(1, Math.min(4, os.availableParallelism()));
}

/**
 * V8 flags of a reader beside its heap ceiling. Where the readers alone fill the cores,
 * `--single-threaded`: V8's garbage-collector and compiler helper threads (about 40 % of CPU
 * beside a reader's own thread) would only take cores from the other readers and the embedding
 * stage: a page costs less CPU and the set is searchable sooner (figures: bench/RESULTS.md, "Figures behind choices in the code").
 * With cores to spare, V8 keeps its helpers.
 */
export function readerV8Flags(readers: number, cores = os.availableParallelism()): string[] {
  return readers >= cores ? ['--single-threaded'] : [];
}

/**
 * The reader's worker beside this folder: reader/worker.ts when running from TypeScript source,
 * reader/worker.js when compiled, or `ingest-worker.js` next to the bundle (electron-vite's main
 * entry of that name).
 */
export function defaultWorkerPath(): string {
  const built = builtWorkerEntry(readConfig().workerDir, 'ingest-worker');
  if (built) return built;
  const here = fileURLToPath(import.meta.url);
  const dir = path.dirname(here);
  const candidates = [
    path.join(dir, '..', 'reader', `worker${path.extname(here) || '.js'}`),
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
  return [
    packageFileUrl('pdfjs-dist', 'legacy', 'build', 'pdf.worker.mjs'),
    packageFileUrl('pdfjs-dist', 'legacy', 'build', 'pdf.mjs'),
  ];
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
  onOcrPage?: (page: number, total: number) => void;
  onStarted?: () => void;
  signal?: AbortSignal;
  onAbort?: () => void;
  /** Readers of this task stopped from outside so far (each time it went back to the queue). */
  outsideStops?: number;
};

/**
 * Signals a reader dies of when something outside stops it (a user, a session ending, the
 * system's memory killer), not the file: its task is read again on a fresh reader. Any other
 * death (a fault it raised, an abort, an exit code) is the file's.
 */
const OUTSIDE_SIGNALS: ReadonlySet<string> = new Set(['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT']);

interface Slot {
  child: ChildProcess;
  current?: Pending;
  idleTimer?: NodeJS.Timeout;
  /** When the current task was handed over, when the reader began it (0: still starting up), and its last progress (a page, a stage). */
  sent: number;
  started: number;
  lastProgress: number;
  /** Pages of the current task read by OCR so far (each adds OCR_PAGE_ALLOWANCE_MS to its time limit). */
  ocrPages: number;
  /** Why the pool stopped this reader (set before it is killed). */
  stoppedFor?: string;
  cancelTimer?: NodeJS.Timeout;
}

function abortError(signal?: AbortSignal): Error {
  const reason = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return Object.assign(new Error('Cancelled'), { name: 'AbortError' });
}

/**
 * A reader the pool had to stop, or that died: the file is quarantined (failed with this reason,
 * never resumed automatically), and the rest of the batch goes on.
 */
export class ReaderStopped extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReaderStopped';
  }
}

/** Resident set size of a process in bytes (Linux /proc; elsewhere the pidusage package), null when unknown. */
async function residentBytes(pid: number): Promise<number | null> {
  if (process.platform === 'linux') {
    try {
      const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
      return m ? Number(m[1]) * 1024 : null;
    } catch {
      return null;
    }
  }
  try {
    const pidusage = (await import('pidusage')).default;
    return (await pidusage(pid)).memory;
  } catch {
    return null;
  }
}

/** Kill a reader process and wait until it is gone. */
function killAndWait(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** How often running readers are measured. */
const WATCH_MS = 100;
/** How long a new reader may take to load before it begins its task (on top of the page limit). */
const STARTUP_LIMIT_MS = 60_000;

/** Time a file's limit grows by for each page read by OCR (a scan of hundreds of pages takes longer than a text file of as many). */
export const OCR_PAGE_ALLOWANCE_MS = 30_000;
/**
 * A reader's memory after a large file stays near that file's peak: the JS heap shrinks back,
 * but what pdf.js's native and WebAssembly decoders took (images, fonts, OCR) is not given back
 * to the system. A reader that holds more than this once its file is done (a fresh one holds
 * about half of it) is replaced before the next file.
 */
export const RECYCLE_RSS_BYTES = 384 * 1024 * 1024;
/** A cancelled reader that does not answer within this time (stuck in one long step) is stopped. */
const CANCEL_GRACE_MS = 2000;

/**
 * A small pool of reader processes running parse tasks, one task per process at a time, FIFO.
 * Each reader is a child process the pool watches: one whose memory passes the limit, or that
 * takes too long for a page or for the file, is killed and its file fails with the reason, while
 * the app and the rest of the batch carry on. Aborting a queued task removes it; aborting a running
 * one asks the reader to stop between pages (and kills it if it does not answer). A reader that
 * dies fails only its own task and is replaced on demand.
 */
export class WorkerPool {
  readonly workerPath: string;
  readonly concurrency: number;
  readonly limits: NonNullable<PoolOptions['limits']>;
  private readonly idleMs: number;
  private readonly slots: Slot[] = [];
  /** Readers let go after their file (`retire`) and not yet gone. */
  private readonly retiring = new Set<ChildProcess>();
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  private watch?: NodeJS.Timeout;
  private measuring = false;
  private readonly recycleRssBytes: number;
  /** Highest resident set seen of any reader (bytes), for benchmarks and diagnostics. */
  peakRss = 0;
  /** Readers started so far, for benchmarks and diagnostics. */
  started = 0;

  constructor(options: PoolOptions = {}) {
    this.workerPath = options.workerPath ?? defaultWorkerPath();
    this.concurrency = Math.max(1, options.concurrency ?? defaultConcurrency());
    this.idleMs = options.idleMs ?? 30_000;
    this.limits = options.limits ?? DEFAULT_LIMITS;
    this.recycleRssBytes = options.recycleRssBytes ?? RECYCLE_RSS_BYTES;
  }

  run(
    task: Omit<ParseTask, 'type' | 'id'>,
    opts: {
      signal?: AbortSignal;
      onPage?: (done: number, total: number) => void;
      onStage?: (stage: 'chunking') => void;
      onOcrPage?: (page: number, total: number) => void;
      onStarted?: () => void;
    } = {},
  ): Promise<ParseResult> {
    if (this.closed) return Promise.reject(new Error('The ingest worker pool is closed.'));
    if (opts.signal?.aborted) return Promise.reject(abortError(opts.signal));
    return new Promise<ParseResult>((resolve, reject) => {
      const pending: Pending = {
        task: { ...task, type: 'parse', id: this.nextId++ },
        resolve,
        reject,
        onPage: opts.onPage,
        onStage: opts.onStage,
        onOcrPage: opts.onOcrPage,
        onStarted: opts.onStarted,
        signal: opts.signal,
      };
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
    if (!slot) return;
    this.send(slot, { type: 'cancel', id: p.task.id });
    slot.cancelTimer ??= setTimeout(() => {
      if (slot.current === p) this.stop(slot, 'cancelled');
    }, CANCEL_GRACE_MS);
    slot.cancelTimer.unref();
  }

  private settle(p: Pending, fn: () => void): void {
    if (p.onAbort) p.signal?.removeEventListener('abort', p.onAbort);
    fn();
  }

  private send(slot: Slot, msg: WorkerRequest): void {
    try {
      if (slot.child.connected) slot.child.send(msg);
    } catch {
      // The reader is gone; its exit handler settles the task.
    }
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
      slot.sent = Date.now();
      slot.started = slot.lastProgress = slot.ocrPages = 0;
      this.send(slot, p.task);
    }
    this.watchReaders();
  }

  private spawn(): Slot {
    // The JS heap gets the same ceiling as the whole reader, so V8 never grows past the watchdog's limit first.
    const heapMb = Math.max(256, Math.round(this.limits.maxParseMemoryBytes / 1048576));
    const child = startChild(this.workerPath, pdfjsPreload, {
      execArgv: [`--max-old-space-size=${heapMb}`, ...readerV8Flags(this.concurrency)],
    });
    const slot: Slot = { child, sent: 0, started: 0, lastProgress: 0, ocrPages: 0 };
    this.started++;
    child.on('message', (msg: WorkerResponse) => this.onMessage(slot, msg));
    child.on('error', (err) => this.onExit(slot, `the reader could not run (${err.message})`));
    child.on('exit', (code, signal) =>
      this.onExit(
        slot,
        this.exitReason(code, signal),
        signal !== null && OUTSIDE_SIGNALS.has(signal) ? signal : undefined,
      ),
    );
    this.slots.push(slot);
    return slot;
  }

  private exitReason(code: number | null, signal: NodeJS.Signals | null): string {
    // V8 ends a process whose heap is full with SIGABRT (or exit code 134).
    if (signal === 'SIGABRT' || code === 134)
      return `stopped: it needed more than ${formatBytes(this.limits.maxParseMemoryBytes)} of memory`;
    return `the reader stopped unexpectedly (${signal ? `signal ${signal}` : `exit code ${code}`})`;
  }

  /** Measure running readers: memory, time per page, time per file. */
  private watchReaders(): void {
    const busy = this.slots.some((s) => s.current);
    if (!busy) {
      if (this.watch) clearInterval(this.watch);
      this.watch = undefined;
      return;
    }
    if (this.watch) return;
    this.watch = setInterval(() => void this.measure(), WATCH_MS);
    this.watch.unref();
  }

  private async measure(): Promise<void> {
    if (this.measuring) return;
    this.measuring = true;
    try {
      const now = Date.now();
      const { maxParseMemoryBytes, pageTimeoutMs, fileTimeoutMs } = this.limits;
      for (const slot of [...this.slots]) {
        if (!slot.current || slot.stoppedFor) continue;
        const pid = slot.child.pid;
        const rss = pid ? await residentBytes(pid) : null;
        if (rss !== null) this.peakRss = Math.max(this.peakRss, rss);
        if (!slot.current || slot.stoppedFor) continue;
        if (!slot.started) {
          // A reader still starting up (loading pdf.js on a busy machine) is not reading the file yet.
          if (now - slot.sent > STARTUP_LIMIT_MS + pageTimeoutMs)
            this.stop(slot, 'the reader could not start (the computer may be overloaded); retry the file');
          continue;
        }
        if (rss !== null && rss > maxParseMemoryBytes) {
          this.stop(
            slot,
            `stopped: it needed more than ${formatBytes(maxParseMemoryBytes)} of memory (the file may be damaged or hostile).${raiseHint('maxParseMemoryBytes')}`,
          );
        } else if (now - slot.started > fileTimeoutMs + slot.ocrPages * OCR_PAGE_ALLOWANCE_MS) {
          this.stop(
            slot,
            `stopped: reading it took longer than ${formatDuration(fileTimeoutMs)}.${raiseHint('fileTimeoutMs')}`,
          );
        } else if (now - slot.lastProgress > pageTimeoutMs) {
          this.stop(
            slot,
            `stopped: one page took longer than ${formatDuration(pageTimeoutMs)} to read (the file may be damaged or hostile).${raiseHint('pageTimeoutMs')}`,
          );
        }
      }
    } finally {
      this.measuring = false;
    }
  }

  /** Kill a reader; its task fails with `reason` (or is cancelled). */
  private stop(slot: Slot, reason: string): void {
    slot.stoppedFor = reason;
    slot.child.kill('SIGKILL');
  }

  private onMessage(slot: Slot, msg: WorkerResponse): void {
    const p = slot.current;
    if (!p || p.task.id !== msg.id || slot.stoppedFor) return;
    slot.lastProgress = Date.now();
    if (msg.type === 'started') {
      slot.started = slot.lastProgress;
      p.onStarted?.();
      return;
    }
    if (msg.type === 'page') {
      p.onPage?.(msg.done, msg.total);
      return;
    }
    if (msg.type === 'stage') {
      p.onStage?.(msg.stage);
      return;
    }
    if (msg.type === 'ocr') {
      slot.ocrPages++;
      p.onOcrPage?.(msg.page, msg.total);
      return;
    }
    slot.current = undefined;
    if (slot.cancelTimer) clearTimeout(slot.cancelTimer);
    slot.cancelTimer = undefined;
    if (msg.type === 'done') this.settle(p, () => p.resolve({ summary: msg.summary, chunks: msg.chunks }));
    else if (msg.type === 'cancelled') this.settle(p, () => p.reject(abortError(p.signal)));
    else this.settle(p, () => p.reject(new Error(msg.message)));
    if (msg.type === 'done' && msg.rss !== undefined && msg.rss > this.recycleRssBytes) this.retire(slot);
    else this.idle(slot);
    this.pump();
  }

  /** Let an idle reader go; the next file gets a fresh one. */
  private retire(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    this.retiring.add(slot.child);
    slot.child.once('exit', () => this.retiring.delete(slot.child));
    slot.child.kill();
  }

  private idle(slot: Slot): void {
    if (slot.current || this.closed) return;
    slot.idleTimer = setTimeout(() => {
      if (!slot.current) slot.child.kill();
    }, this.idleMs);
    slot.idleTimer.unref();
  }

  private onExit(slot: Slot, reason: string, outsideSignal?: string): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    if (slot.cancelTimer) clearTimeout(slot.cancelTimer);
    const p = slot.current;
    slot.current = undefined;
    if (p) {
      if (slot.stoppedFor === 'cancelled' || p.signal?.aborted || (outsideSignal && this.closed))
        this.settle(p, () => p.reject(abortError(p.signal)));
      else if (outsideSignal && !slot.stoppedFor) this.readAgain(p, outsideSignal);
      else this.settle(p, () => p.reject(new ReaderStopped(slot.stoppedFor ?? reason)));
    }
    if (!this.closed) this.pump();
  }

  /**
   * A reader stopped from outside: not the file's doing, so the file goes back to the head of the
   * queue (OCR resumes at the first page not yet kept). Stopped so again and again, it ends failed,
   * saying so: then the system itself is likely short of memory while reading it.
   */
  private readAgain(p: Pending, signal: string): void {
    p.outsideStops = (p.outsideStops ?? 0) + 1;
    if (p.outsideStops < this.limits.quarantineAfter) {
      this.queue.unshift(p);
      return;
    }
    const message = `stopped: its reader was stopped from outside ${p.outsideStops} times while reading it (last by ${signal}); the computer may be short of memory. Retry it by hand once other programs are closed.`;
    this.settle(p, () => p.reject(new ReaderStopped(message)));
  }

  /** Stop every reader; queued tasks are rejected as cancelled. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.watch) clearInterval(this.watch);
    this.watch = undefined;
    for (const p of this.queue.splice(0)) this.settle(p, () => p.reject(abortError()));
    const slots = this.slots.splice(0);
    for (const s of slots) {
      if (s.idleTimer) clearTimeout(s.idleTimer);
      if (s.cancelTimer) clearTimeout(s.cancelTimer);
      const p = s.current;
      s.current = undefined;
      if (p) this.settle(p, () => p.reject(abortError()));
    }
    await Promise.all([...slots.map((s) => s.child), ...this.retiring].map(killAndWait));
  }
}
