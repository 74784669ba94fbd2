import { promises as fs } from 'node:fs';
import path from 'node:path';
import type {
  FileContent,
  FileInfo,
  IngestFileStatus,
  IngestJobHandle,
  IngestCurrentFile,
  IngestProgress,
  IngestResultItem,
  IngestRunResult,
  IngestStage,
} from '../../shared/contract/ingest';
import { CasefileError } from '../../shared/errors';
import type { Engine } from '../engine';
import { createIndexSink, type IndexSink } from '../index/sink';
import { KeyedQueue, pidAlive } from '../util/concurrency';
import { cleanTempFiles, readJson, writeJsonAtomic } from '../util/fs';
import { newId } from '../util/ids';
import { CaseDocuments } from './documents';
import { runEtaSeconds, stageEtaSeconds } from './eta';
import { JobStore, type JobRecord } from './jobs';
import { resolveLimits, type IngestLimits } from './limits';
import { defaultConcurrency, ReaderStopped, WorkerPool, type ParseResult } from './pool';
import { CaseStore, latestVersion } from './store';
import { DEFAULT_CHUNKING, PENDING_STATUSES, TERMINAL_STATUSES, type ChunkingOptions, type DocType, type FileManifest, type FileRecord, type FileStatus, type VersionRecord } from './types';
import { walkPaths } from './walk';

export interface IngestOptions {
  /** Worker entry; default src/core/ingest/worker.ts next to this module (the Electron bundle passes its built worker). */
  workerPath?: string;
  /** Parallel parse workers (default: cores − 1, 1–4). */
  concurrency?: number;
  /** Files larger than this fail with "too large" (default 500 MB; same as `limits.maxFileBytes`). */
  maxFileBytes?: number;
  /** Per-file limits (memory, time, pages, decoded bytes…) over the defaults and CASEFILE_* variables. */
  limits?: Partial<IngestLimits>;
  /** pdf.js standard font data folder (file: URL); default pdfjs-dist's own. */
  standardFontDataUrl?: string;
  /**
   * Resume interrupted ingests in the background as soon as the engine opens (the desktop app
   * sets this). Off by default: the CLI finishes a case's unfinished work on its next `ingest`.
   */
  autoResume?: boolean;
}

interface RunState {
  job: JobRecord;
  controller: AbortController;
  progress: IngestProgress;
  started: number;
  /** False while queued behind another run of the same case. */
  running: boolean;
  lastEmit: number;
  current: Map<string, CurrentFile>;
  /** Work items whose page count is not known yet (key → bytes), for the pagesTotal estimate. */
  unopened: Map<string, number>;
  /** Pages and bytes of the files of this run whose page count is known (pages-per-byte basis). */
  knownPages: number;
  knownBytes: number;
}

/** A file in flight: its stage, and that stage's count (pages parsed, chunks embedded). */
/**
 * Share of a file's work that parsing stands for in the overall bar and ETA; the rest is
 * embedding + indexing, which on a CPU is the slower part. Without this an ingest looked finished
 * ("0s left") while the last file was still being embedded.
 */
const PARSE_SHARE = 0.4;

/** How far along an in-flight file is (0–1), from its stage and the stage's own count. */
function fileFraction(c: CurrentFile): number {
  const parsed = c.pages > 0 ? Math.min(1, c.pagesDone / c.pages) : 0;
  switch (c.stage) {
    case 'hashing':
      return 0;
    case 'parsing':
      return PARSE_SHARE * parsed;
    case 'chunking':
      return PARSE_SHARE;
    case 'embedding':
      return PARSE_SHARE + (1 - PARSE_SHARE) * 0.95 * (c.total ? Math.min(1, (c.done ?? 0) / c.total) : 0);
    case 'indexing':
      return 0.97;
  }
}

interface CurrentFile {
  name: string;
  fileId: string | null;
  version: number | null;
  stage: IngestStage;
  pages: number;
  pagesDone: number;
  bytes: number;
  done: number | null;
  total: number | null;
  stageStarted: number;
}

interface WorkItem {
  fileId: string;
  name: string;
  version: number;
  size: number;
  sha256: string;
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

/** Chunking settings of a case: `settings.chunking` in case.json over the defaults. */
function chunkingOf(settings: Record<string, unknown>): ChunkingOptions {
  const raw = (settings.chunking ?? {}) as Partial<ChunkingOptions>;
  const size = typeof raw.size === 'number' && raw.size > 0 ? raw.size : DEFAULT_CHUNKING.size;
  const overlap = typeof raw.overlap === 'number' && raw.overlap >= 0 && raw.overlap < size ? raw.overlap : Math.min(DEFAULT_CHUNKING.overlap, size - 1);
  const separators = Array.isArray(raw.separators) && raw.separators.every((s) => typeof s === 'string') ? raw.separators : DEFAULT_CHUNKING.separators;
  return { size, overlap, separators };
}

/**
 * Ingest for one engine: runs are serialized per case (a second drop queues behind the first),
 * parsing runs in a worker pool, finished versions go to the index sink, and every step is
 * persisted so a killed process resumes (see {@link JobStore}).
 */
export class IngestService {
  readonly jobs: JobStore;
  private pool: WorkerPool | undefined;
  /** Runs, removals and doc-type changes of a case, one at a time in order (keyed by case id). */
  private readonly queue = new KeyedQueue<string>();
  private readonly active = new Map<string, Set<RunState>>();
  private readonly maxBytes: number;
  readonly limits: IngestLimits;
  private closed = false;
  /** Serializes writes of each case's reading.json. */
  private readonly readingWrites = new KeyedQueue<string>();

  constructor(
    private readonly engine: Engine,
    private readonly options: IngestOptions = {},
  ) {
    this.jobs = new JobStore(path.join(engine.home, 'jobs'));
    this.limits = resolveLimits({ ...options.limits, ...(options.maxFileBytes ? { maxFileBytes: options.maxFileBytes } : {}) });
    this.maxBytes = this.limits.maxFileBytes;
  }

  /** Parallel parse workers this service uses. */
  get concurrency(): number {
    return Math.max(1, this.options.concurrency ?? defaultConcurrency());
  }

  private getPool(): WorkerPool {
    this.pool ??= new WorkerPool({ workerPath: this.options.workerPath, concurrency: this.options.concurrency, limits: this.limits });
    return this.pool;
  }

  documents(caseId: string): CaseDocuments {
    return new CaseDocuments(this.engine.cases.caseDir(caseId));
  }

  /** Queue a run for the case; resolves with its results when it ends. */
  async start(caseId: string, paths: string[], opts: { signal?: AbortSignal } = {}): Promise<IngestRunResult> {
    const { done } = await this.enqueue(caseId, paths.map((p) => path.resolve(p)), opts.signal);
    return done;
  }

  /**
   * Read a file again by hand (a failed or quarantined one): its latest version is queued, its
   * crash count cleared, and a run finishes it (queued behind a run of the case that is working).
   */
  async retry(caseId: string, fileId: string, opts: { wait?: boolean; signal?: AbortSignal } = {}): Promise<IngestRunResult | IngestJobHandle> {
    const caseDir = this.engine.cases.caseDir(caseId);
    await this.engine.cases.readMeta(caseId);
    const store = new CaseStore(caseDir);
    const file = (await store.readManifest()).files.find((f) => f.id === fileId);
    const latest = file ? latestVersion(file) : undefined;
    if (!file || !latest) throw new CasefileError('not_found', `No file with id ${fileId} in this case.`);
    if (latest.sha256 === '') throw new CasefileError('invalid_input', `${file.name} could not be read from disk, so Casefile has no copy of it: add it again from its folder.`);
    if (latest.status === 'indexed') throw new CasefileError('invalid_input', `${file.name} is already indexed; there is nothing to retry.`);
    await store.update((m) => {
      const v = m.files.find((f) => f.id === fileId)?.versions.find((x) => x.version === latest.version);
      if (v && TERMINAL_STATUSES.includes(v.status)) Object.assign(v, { status: 'queued', reason: '' });
    });
    await this.setReading(caseDir, `${fileId}@${latest.version}`, null);
    const { job, done } = await this.enqueue(caseId, [], opts.signal);
    if (opts.wait === false) {
      done.catch(() => {});
      return { jobId: job.id, caseId, state: 'running' };
    }
    return done;
  }

  /** Queue a run and return its handle at once (progress and results arrive as events). */
  async startDetached(caseId: string, paths: string[]): Promise<IngestJobHandle> {
    const { job, done } = await this.enqueue(caseId, paths.map((p) => path.resolve(p)));
    done.catch(() => {});
    return { jobId: job.id, caseId, state: 'running' };
  }

  private async enqueue(caseId: string, paths: string[], signal?: AbortSignal, resumeCancelled = false, existing?: JobRecord): Promise<{ job: JobRecord; done: Promise<IngestRunResult> }> {
    if (this.closed) throw new CasefileError('unavailable', 'The engine is shutting down.');
    await this.engine.cases.readMeta(caseId); // not_found before anything is written
    const job: JobRecord = existing ?? { schemaVersion: 1, id: newId('j', 12), caseId, paths, created: new Date().toISOString(), state: 'running', pid: process.pid };
    job.pid = process.pid;
    job.state = 'running';
    await this.jobs.save(job);
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const state = this.newState(job, controller);
    let set = this.active.get(caseId);
    if (!set) this.active.set(caseId, (set = new Set()));
    set.add(state);
    const done = this.queue.run(caseId, async () => {
      try {
        return await this.run(state, resumeCancelled);
      } finally {
        signal?.removeEventListener('abort', onAbort);
        set.delete(state);
        if (set.size === 0) this.active.delete(caseId);
      }
    });
    return { job, done };
  }

  private newState(job: JobRecord, controller: AbortController): RunState {
    return {
      job,
      controller,
      started: Date.now(),
      running: false,
      lastEmit: 0,
      current: new Map(),
      unopened: new Map(),
      knownPages: 0,
      knownBytes: 0,
      progress: {
        caseId: job.caseId,
        jobId: job.id,
        state: 'running',
        filesDone: 0,
        filesTotal: 0,
        pagesDone: 0,
        pagesTotal: 0,
        pagesEstimated: true,
        bytesDone: 0,
        bytesTotal: 0,
        current: [],
        errors: 0,
        etaSeconds: null,
        elapsedSeconds: 0,
        waiting: [],
      },
    };
  }

  /** Cancel every queued and running ingest of a case. */
  cancel(caseId: string): boolean {
    const set = this.active.get(caseId);
    if (!set?.size) return false;
    for (const s of set) s.controller.abort();
    return true;
  }

  /** Progress of the case's running ingest, or null. */
  status(caseId: string): IngestProgress | null {
    const set = this.active.get(caseId);
    if (!set) return null;
    for (const s of set) if (s.running && s.progress.state === 'running') return this.snapshot(s);
    return null;
  }

  /** File versions waiting to be finished (queued by an interrupted run, or cancelled). */
  async pendingCount(caseId: string): Promise<number> {
    const m = await new CaseStore(this.engine.cases.caseDir(caseId)).readManifest();
    return m.files.reduce((n, f) => n + f.versions.filter((v) => PENDING_STATUSES.includes(v.status) || v.status === 'cancelled').length, 0);
  }

  /**
   * Finish interrupted work: job files left by a killed process are run again (their paths are
   * walked again; finished files come out unchanged), and versions left queued or cancelled are
   * finished. With no caseId, every case with such work is resumed.
   */
  async resume(caseId?: string): Promise<IngestRunResult[]> {
    const jobs = (await this.jobs.list(caseId)).filter((j) => !this.isActiveJob(j.id) && !ownedElsewhere(j));
    const caseIds = new Set<string>();
    if (caseId) caseIds.add(caseId);
    else {
      for (const j of jobs) caseIds.add(j.caseId);
      for (const c of await this.engine.cases.list()) if ((await this.pendingCount(c.id)) > 0) caseIds.add(c.id);
    }
    const results: IngestRunResult[] = [];
    for (const id of caseIds) {
      const own = jobs.filter((j) => j.caseId === id);
      const exists = await this.engine.cases.readMeta(id).then(() => true, () => false);
      if (!exists) {
        for (const j of own) await this.jobs.remove(j.id);
        continue;
      }
      const [first, ...rest] = own;
      const paths = [...new Set(own.flatMap((j) => j.paths))];
      for (const j of rest) await this.jobs.remove(j.id);
      const { done } = await this.enqueue(id, paths, undefined, true, first ? { ...first, paths } : undefined);
      try {
        results.push(await done);
      } catch (err) {
        // A case another process is ingesting right now is left to that process.
        if (!(err instanceof CasefileError && err.code === 'conflict') || caseId) throw err;
      }
    }
    return results;
  }

  private isActiveJob(jobId: string): boolean {
    for (const set of this.active.values()) for (const s of set) if (s.job.id === jobId) return true;
    return false;
  }

  // ------------------------------------------------------------------ the run

  /**
   * One process ingests into a case at a time: `<caseDir>/ingest.lock` names the owner. A lock
   * whose process is gone (killed) is taken over; one held by a live process is a conflict.
   */
  private async lock(caseDir: string): Promise<() => Promise<void>> {
    const file = path.join(caseDir, 'ingest.lock');
    const mine = JSON.stringify({ pid: process.pid, started: new Date().toISOString() });
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await fs.writeFile(file, mine, { flag: 'wx' });
        return async () => {
          const now = await fs.readFile(file, 'utf8').catch(() => '');
          if (now === mine) await fs.rm(file, { force: true });
        };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      let owner = 0;
      try {
        owner = Number((JSON.parse(await fs.readFile(file, 'utf8')) as { pid?: unknown }).pid) || 0;
      } catch {
        owner = 0;
      }
      if (owner && owner !== process.pid && pidAlive(owner)) {
        throw new CasefileError('conflict', `Another Casefile process (pid ${owner}) is adding files to this case. Wait for it to finish, then try again.`);
      }
      await fs.rm(file, { force: true });
    }
    throw new CasefileError('conflict', 'Could not take the ingest lock of this case; try again.');
  }

  private async run(state: RunState, resumeCancelled: boolean): Promise<IngestRunResult> {
    let release: () => Promise<void>;
    try {
      release = await this.lock(this.engine.cases.caseDir(state.job.caseId));
    } catch (err) {
      // Not started: nothing of this job is on disk but its record, which would otherwise be resumed later.
      await this.jobs.remove(state.job.id);
      state.progress.state = 'cancelled';
      throw err;
    }
    try {
      return await this.runLocked(state, resumeCancelled);
    } finally {
      await release();
    }
  }

  private async runLocked(state: RunState, resumeCancelled: boolean): Promise<IngestRunResult> {
    const { job, controller } = state;
    state.running = true;
    state.started = Date.now();
    const signal = controller.signal;
    const caseId = job.caseId;
    const caseDir = this.engine.cases.caseDir(caseId);
    const store = new CaseStore(caseDir);
    const results = new Map<string, IngestResultItem>();
    const skipped: IngestRunResult['skipped'] = [];
    let sink: IndexSink | undefined;
    let cancelled = false;
    const work = new Map<string, WorkItem>();
    try {
      const meta = await this.engine.cases.readMeta(caseId);
      const chunking = chunkingOf(meta.settings);
      await cleanTempFiles(path.join(caseDir, 'files'));

      // Interrupted runs of this case that no process owns any more: walk their paths too.
      const orphans = (await this.jobs.list(caseId)).filter((j) => j.id !== job.id && !this.isActiveJob(j.id) && !ownedElsewhere(j));
      const paths = [...new Set([...job.paths, ...orphans.flatMap((j) => j.paths)])];

      // 1. Walk and copy originals in (hashing).
      const walked = await walkPaths(paths, signal);
      skipped.push(...walked.skipped);
      for (const sk of walked.skipped) {
        results.set(sk.name, { fileId: '', name: sk.name, version: 0, status: 'skipped', reason: sk.reason });
        this.engine.events.emit('ingest.file', { caseId, jobId: job.id, fileId: '', name: sk.name, version: 0, status: 'skipped', reason: sk.reason });
      }
      const unreadable: { name: string; size: number; reason: string }[] = [];
      state.progress.filesTotal = walked.files.length;
      state.progress.bytesTotal = walked.files.reduce((n, f) => n + f.size, 0);
      const imported: { name: string; sha256: string; size: number }[] = [];
      for (const entry of walked.files) {
        signal.throwIfAborted();
        this.setStage(state, entry.name, 'hashing', entry.size);
        try {
          const blob = await store.importBlob(entry.absPath, this.maxBytes, signal);
          imported.push({ name: entry.name, sha256: blob.sha256, size: blob.size });
        } catch (err) {
          if (isAbort(err)) throw err;
          const code = (err as NodeJS.ErrnoException).code;
          unreadable.push({ name: entry.name, size: entry.size, reason: diskReason(code, err) });
          state.progress.errors++;
          state.progress.filesDone++;
        }
        this.clearStage(state, entry.name);
      }

      // 2. Register versions (one manifest write): unchanged, new version, or redo an unfinished one.
      const now = new Date().toISOString();
      await store.update((m) => {
        for (const it of imported) {
          let file = m.files.find((f) => f.name === it.name);
          if (!file) {
            file = { id: newId('f', 12), name: it.name, versions: [], doc_type_override: null };
            m.files.push(file);
          }
          const latest = latestVersion(file);
          if (latest && latest.sha256 === '') {
            // The file could not be read last time: this is that version, now readable.
            Object.assign(latest, newVersion(latest.version, it.sha256, it.size, now));
          } else if (latest && latest.sha256 === it.sha256) {
            if (TERMINAL_STATUSES.includes(latest.status)) {
              results.set(it.name, { fileId: file.id, name: file.name, version: latest.version, status: 'unchanged', reason: latest.reason });
              continue;
            }
            latest.status = 'queued';
            latest.reason = '';
          } else {
            file.versions.push(newVersion((latest?.version ?? 0) + 1, it.sha256, it.size, now));
          }
          const v = latestVersion(file)!;
          results.set(it.name, { fileId: file.id, name: file.name, version: v.version, status: 'queued', reason: '' });
        }
        // Files that could not be read from disk are listed as failed, so they do not vanish.
        for (const u of unreadable) {
          let file = m.files.find((f) => f.name === u.name);
          if (!file) {
            file = { id: newId('f', 12), name: u.name, versions: [], doc_type_override: null };
            m.files.push(file);
          }
          let v = latestVersion(file);
          if (!v || v.sha256 !== '') file.versions.push((v = newVersion((v?.version ?? 0) + 1, '', u.size, now)));
          Object.assign(v, { status: 'failed', reason: u.reason, size: u.size, ingested_at: now });
          results.set(u.name, { fileId: file.id, name: file.name, version: v.version, status: 'failed', reason: u.reason });
        }
        // Everything unfinished in the case is finished by this run (resume after a crash).
        for (const f of m.files) {
          for (const v of f.versions) {
            if (resumeCancelled && v.status === 'cancelled') v.status = 'queued';
            if (PENDING_STATUSES.includes(v.status)) work.set(`${f.id}@${v.version}`, { fileId: f.id, name: f.name, version: v.version, size: v.size, sha256: v.sha256 });
          }
        }
      });
      for (const r of results.values()) if (r.status === 'unchanged') state.progress.filesDone++;
      // Quarantine: a version the process died while reading, again and again, is set aside (failed)
      // instead of being read once more; the user can retry it by hand.
      const reading = await this.readReading(caseDir);
      const quarantined: { fileId: string; version: number; name: string; reason: string }[] = [];
      for (const [key, w] of work) {
        if ((reading[key] ?? 0) < QUARANTINE_AFTER) continue;
        work.delete(key);
        quarantined.push({ fileId: w.fileId, version: w.version, name: w.name, reason: QUARANTINE_REASON });
      }
      if (quarantined.length) {
        await store.update((m) => {
          for (const q of quarantined) {
            const v = m.files.find((f) => f.id === q.fileId)?.versions.find((x) => x.version === q.version);
            if (v) Object.assign(v, { status: 'failed', reason: q.reason, chunks: 0, ingested_at: new Date().toISOString() });
          }
        });
        for (const q of quarantined) {
          await this.setReading(caseDir, `${q.fileId}@${q.version}`, null);
          results.set(q.name, { fileId: q.fileId, name: q.name, version: q.version, status: 'failed', reason: q.reason });
          this.engine.events.emit('ingest.file', { caseId, jobId: job.id, fileId: q.fileId, name: q.name, version: q.version, status: 'failed', reason: q.reason });
        }
      }
      // Files resumed from earlier runs count too.
      for (const w of work.values()) {
        if (!results.has(w.name) || results.get(w.name)!.version !== w.version) {
          state.progress.filesTotal++;
          state.progress.bytesTotal += w.size;
        }
      }
      for (const r of results.values()) if (r.status === 'unchanged') state.progress.bytesDone += imported.find((i) => i.name === r.name)?.size ?? 0;
      for (const [key, w] of work) state.unopened.set(key, w.size);
      this.emitProgress(state, true);

      // 3. Parse, chunk, index — bounded by the worker pool.
      if (work.size) {
        sink = await createIndexSink({ home: this.engine.home, caseDir, modelDirs: [this.engine.modelsDir, ...this.engine.bundledModelDirs] });
        const queue = [...work.values()];
        const lanes = Math.max(1, this.getPool().concurrency);
        const runLane = async () => {
          for (let item = queue.shift(); item; item = queue.shift()) {
            if (signal.aborted) return;
            const final = await this.processVersion(state, store, sink!, item, chunking);
            if (final) {
              work.delete(`${item.fileId}@${item.version}`);
              results.set(item.name, final);
            }
          }
        };
        await Promise.all(Array.from({ length: lanes }, runLane));
      }
      signal.throwIfAborted();
    } catch (err) {
      if (!isAbort(err) && !signal.aborted) {
        await this.finish(state, sink, 'cancelled');
        throw err;
      }
      cancelled = true;
    }

    if (cancelled) {
      // Unfinished versions are marked so; `ingest.resume` (or ingesting them again) finishes them.
      await store.update((m) => {
        for (const f of m.files) {
          for (const v of f.versions) {
            if (work.has(`${f.id}@${v.version}`) && PENDING_STATUSES.includes(v.status)) {
              v.status = 'cancelled';
              v.reason = 'cancelled — add the file again or resume to finish it';
              results.set(f.name, { fileId: f.id, name: f.name, version: v.version, status: 'cancelled', reason: v.reason });
              this.engine.events.emit('ingest.file', { caseId, jobId: job.id, fileId: f.id, name: f.name, version: v.version, status: 'cancelled', reason: v.reason });
            }
          }
        }
      });
      for (const r of results.values()) if (r.status === 'queued') r.status = 'cancelled';
      // Originals copied in before the cancel but never registered.
      await store.collectGarbage(await store.readManifest());
    }
    await this.finish(state, sink, cancelled ? 'cancelled' : 'done');
    // This run's job, and the interrupted ones it took over, are done.
    const finished = (await this.jobs.list(caseId)).filter((j) => j.id === job.id || (!this.isActiveJob(j.id) && !ownedElsewhere(j)));
    for (const j of finished) await this.jobs.remove(j.id);
    this.engine.events.emit('cases.changed', { caseId, kind: 'files' });
    return { jobId: job.id, caseId, state: cancelled ? 'cancelled' : 'done', results: [...results.values()], skipped };
  }

  private async finish(state: RunState, sink: IndexSink | undefined, end: 'done' | 'cancelled'): Promise<void> {
    try {
      await sink?.close();
    } finally {
      state.current.clear();
      state.progress.state = end;
      this.emitProgress(state, true);
    }
  }

  /** Parse → chunk → index one version, then record its final status. Returns null when cancelled. */
  private async processVersion(state: RunState, store: CaseStore, sink: IndexSink, item: WorkItem, chunking: ChunkingOptions): Promise<IngestResultItem | null> {
    const { job, controller } = state;
    const signal = controller.signal;
    const caseId = job.caseId;
    const emitFile = (status: IngestFileStatus, reason: string, stage?: IngestStage, pages?: number) =>
      this.engine.events.emit('ingest.file', { caseId, jobId: job.id, fileId: item.fileId, name: item.name, version: item.version, status, reason, ...(stage ? { stage } : {}), ...(pages !== undefined ? { pages } : {}) });
    const key = `${item.fileId}@${item.version}`;
    const ids = { fileId: item.fileId, version: item.version };
    this.setStage(state, item.name, 'parsing', item.size, 0, ids);
    emitFile('parsing', '', 'parsing');
    let parsed: ParseResult;
    try {
      if (item.size === 0) parsed = failedResult('empty file');
      else if (item.size > this.maxBytes) parsed = failedResult(`too large (${Math.round(item.size / 1048576)} MB; the limit is ${Math.round(this.maxBytes / 1048576)} MB)`);
      else {
        const blob = store.blobPath(item.sha256);
        const present = await fs.access(blob).then(() => true, () => false);
        if (!present) parsed = failedResult('the stored copy of this file is missing; add the file again');
        else {
          const manifest = await store.readManifest();
          const file = manifest.files.find((f) => f.id === item.fileId);
          const isLatest = latestVersion(file ?? { id: '', name: '', versions: [], doc_type_override: null })?.version === item.version;
          // Counted before reading and cleared once the reader answered: a count left behind means this
          // process died while the file was being read (or its result handed over).
          await this.setReading(store.caseDir, key, ((await this.readReading(store.caseDir))[key] ?? 0) + 1);
          parsed = await this.readVersion(store.caseDir, key, () => this.getPool().run(
            { caseDir: store.caseDir, blobPath: blob, name: item.name, fileId: item.fileId, version: item.version, isLatest, maxBytes: this.maxBytes, limits: this.limits, chunking, standardFontDataUrl: this.options.standardFontDataUrl },
            {
              signal,
              onPage: (done, total) => {
                const cur = state.current.get(item.name);
                if (cur) {
                  cur.pages = total;
                  cur.pagesDone = done;
                  if (cur.stage === 'parsing') {
                    cur.done = done;
                    cur.total = total;
                  }
                }
                this.pagesKnown(state, key, total, item.size);
                // The first (page count known) and last ticks always go out, so a bar starts at 0 and ends at 1.
                this.emitProgress(state, done === 0 || done === total);
              },
              onStage: (stage) => this.setStage(state, item.name, stage, item.size),
            },
          ));
        }
      }
    } catch (err) {
      if (isAbort(err) || signal.aborted) return null;
      // A reader that was stopped (memory, time) or died: the file is quarantined with the reason.
      parsed = failedResult(err instanceof ReaderStopped ? err.message : `could not be read (${(err as Error).message})`);
    }

    const { summary, chunks } = parsed;
    let status: IngestFileStatus = summary.status;
    let reason = summary.reason;
    try {
      if (status === 'indexed' && chunks.length) {
        this.pagesKnown(state, key, summary.pages, item.size);
        this.setStage(state, item.name, 'embedding', item.size, summary.pages, undefined, { done: 0, total: chunks.length });
        emitFile('embedding', '', 'embedding', summary.pages);
        const onProgress = (done: number, total: number) => {
          const cur = state.current.get(item.name);
          // A whole-case re-embed (model changed) reports its own totals: not this file's.
          if (!cur || cur.stage !== 'embedding' || total !== chunks.length) return;
          cur.done = Math.max(cur.done ?? 0, Math.min(done, total));
          this.emitProgress(state, done >= total);
        };
        await sink.indexVersion(chunks, { signal, onProgress });
        this.setStage(state, item.name, 'indexing', item.size, summary.pages);
      } else {
        // A redone version that indexed chunks before a crash and now yields none: drop them.
        await sink.removeFile(item.fileId, [item.version]);
      }
      const latest = await this.highestVersion(store, item.fileId);
      if (latest === item.version) await sink.setLatest(item.fileId, latest);
    } catch (err) {
      if (isAbort(err) || signal.aborted) return null;
      status = 'failed';
      reason = `could not be added to the search index (${(err as Error).message})`;
      await sink.removeFile(item.fileId, [item.version]).catch(() => {});
    }
    if (signal.aborted) return null;

    let name = item.name;
    await store.update((m) => {
      const file = m.files.find((f) => f.id === item.fileId);
      const v = file?.versions.find((x) => x.version === item.version);
      if (!file || !v) return;
      name = file.name;
      Object.assign(v, {
        kind: summary.kind,
        pages: summary.pages,
        status,
        reason,
        doc_type: summary.docType,
        doc_date: summary.docDate,
        empty_pages: summary.emptyPages,
        chunks: status === 'indexed' ? chunks.length : 0,
        ingested_at: new Date().toISOString(),
      } satisfies Partial<VersionRecord>);
    });
    this.pagesKnown(state, key, summary.pages, item.size);
    state.unopened.delete(key);
    state.progress.pagesDone += summary.pages;
    state.progress.pagesTotal += summary.pages;
    state.progress.bytesDone += item.size;
    state.progress.filesDone++;
    if (status === 'failed') state.progress.errors++;
    this.clearStage(state, item.name);
    emitFile(status, reason, undefined, summary.pages);
    this.emitProgress(state, true);
    return { fileId: item.fileId, name, version: item.version, status, reason };
  }

  /** Run a read, then clear its reading count however it ended (a cancel or a stopped reader is not a crash of this process). */
  private async readVersion<T>(caseDir: string, key: string, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } finally {
      await this.setReading(caseDir, key, null);
    }
  }

  /** `<caseDir>/reading.json`: versions being read now → how many times reading them started (a crash leaves the count). */
  private async readReading(caseDir: string): Promise<Record<string, number>> {
    await this.readingWrites.idle(caseDir);
    const raw = (await readJson(path.join(caseDir, 'reading.json')).catch(() => undefined)) as Record<string, unknown> | undefined;
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(raw ?? {})) if (typeof v === 'number' && v > 0) out[k] = v;
    return out;
  }

  private setReading(caseDir: string, key: string, count: number | null): Promise<void> {
    const file = path.join(caseDir, 'reading.json');
    return this.readingWrites.run(caseDir, async () => {
      const now = (await readJson(file).catch(() => undefined)) as Record<string, number> | undefined;
      const next = { ...(now ?? {}) };
      if (count === null) delete next[key];
      else next[key] = count;
      if (Object.keys(next).length === 0) await fs.rm(file, { force: true });
      else await writeJsonAtomic(file, next);
    });
  }

  private async highestVersion(store: CaseStore, fileId: string): Promise<number | null> {
    const m = await store.readManifest();
    const file = m.files.find((f) => f.id === fileId);
    return file ? (latestVersion(file)?.version ?? null) : null;
  }

  private setStage(
    state: RunState,
    name: string,
    stage: IngestStage,
    bytes: number,
    pages = 0,
    ids?: { fileId: string; version: number },
    count: { done: number; total: number } | null = null,
  ): void {
    const cur = state.current.get(name);
    const now = Date.now();
    if (cur) {
      if (cur.stage !== stage) {
        cur.stage = stage;
        cur.stageStarted = now;
        cur.done = count?.done ?? null;
        cur.total = count?.total ?? null;
      }
      if (pages) cur.pages = pages;
      if (ids) Object.assign(cur, ids);
    } else {
      state.current.set(name, { name, fileId: ids?.fileId ?? null, version: ids?.version ?? null, stage, pages, pagesDone: 0, bytes, done: count?.done ?? null, total: count?.total ?? null, stageStarted: now });
    }
    // Stage changes are few per file and always shown; page ticks are throttled.
    this.emitProgress(state, true);
  }

  /** A work item's page count is known (opened, or finished): it leaves the estimate and joins its basis. */
  private pagesKnown(state: RunState, key: string, pages: number, bytes: number): void {
    if (!state.unopened.has(key)) return;
    state.unopened.delete(key);
    if (pages > 0) {
      state.knownPages += pages;
      state.knownBytes += bytes;
    }
  }

  private clearStage(state: RunState, name: string): void {
    state.current.delete(name);
  }

  private snapshot(state: RunState): IngestProgress {
    const p = state.progress;
    let pagesDone = p.pagesDone;
    let pagesTotal = p.pagesTotal;
    let bytesDone = p.bytesDone;
    for (const c of state.current.values()) {
      pagesDone += c.pagesDone;
      pagesTotal += c.pages;
      bytesDone += c.bytes * fileFraction(c);
    }
    // Files not opened yet: estimated from their bytes at the pages-per-byte of the files opened so far.
    let unopenedBytes = 0;
    for (const b of state.unopened.values()) unopenedBytes += b;
    const pagesEstimated = p.state === 'running' && (state.unopened.size > 0 || p.filesTotal === 0);
    if (state.unopened.size > 0 && state.knownBytes > 0) pagesTotal += Math.round((unopenedBytes * state.knownPages) / state.knownBytes);
    pagesTotal = Math.max(pagesTotal, pagesDone);
    const now = Date.now();
    const elapsed = (now - state.started) / 1000;
    const eta = runEtaSeconds({ running: p.state === 'running', done: bytesDone, total: p.bytesTotal, pagesDone, elapsedSeconds: elapsed });
    // Runs of the same case queued behind this one (a drop while it works), by what was added.
    const waiting = [...(this.active.get(p.caseId) ?? [])].filter((s) => s !== state && !s.running).flatMap((s) => s.job.paths.map((x) => path.basename(x)));
    return {
      ...p,
      pagesDone,
      pagesTotal,
      pagesEstimated,
      bytesDone: Math.round(bytesDone),
      current: [...state.current.values()].map((c) => currentFile(c, now)),
      etaSeconds: eta,
      elapsedSeconds: Math.round(elapsed * 10) / 10,
      waiting,
    };
  }

  private emitProgress(state: RunState, force = false): void {
    const now = Date.now();
    if (!force && now - state.lastEmit < 200) return;
    state.lastEmit = now;
    this.engine.events.emit('ingest.progress', this.snapshot(state));
  }

  // ------------------------------------------------------------------ files

  async listFiles(caseId: string): Promise<FileInfo[]> {
    const m = await new CaseStore(this.engine.cases.caseDir(caseId)).readManifest();
    const files = m.files.filter((f) => f.versions.length).map(fileInfo);
    // The manifest says `queued` until a version is finished: overlay what the running ingest is doing.
    const live = new Map<string, CurrentFile>();
    for (const s of this.active.get(caseId) ?? []) for (const c of s.current.values()) if (c.fileId) live.set(`${c.fileId}@${c.version}`, c);
    if (live.size) {
      const now = Date.now();
      for (const f of files) {
        const c = live.get(`${f.id}@${f.version}`);
        if (!c || !PENDING_STATUSES.includes(f.status as FileStatus)) continue;
        f.status = LIVE_STATUS[c.stage];
        f.live = { stage: c.stage, fraction: currentFile(c, now).fraction };
      }
    }
    return files.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Remove a file (every version, or one): chunks and index entries first, then the record and artifacts. */
  async removeFile(caseId: string, fileId: string, version?: number): Promise<{ fileId: string; versions: number[] }> {
    const caseDir = this.engine.cases.caseDir(caseId);
    const store = new CaseStore(caseDir);
    const run = async () => {
      const release = await this.lock(caseDir);
      try {
        return await removeLocked();
      } finally {
        await release();
      }
    };
    const removeLocked = async () => {
      const m = await store.readManifest();
      const file = m.files.find((f) => f.id === fileId);
      if (!file) throw new CasefileError('not_found', `No file with id ${fileId} in this case.`);
      const versions = version === undefined ? file.versions.map((v) => v.version) : [version];
      if (version !== undefined && !file.versions.some((v) => v.version === version)) {
        throw new CasefileError('not_found', `${file.name} has no version ${version}.`);
      }
      const sink = await createIndexSink({ home: this.engine.home, caseDir, modelDirs: [this.engine.modelsDir, ...this.engine.bundledModelDirs] });
      let left: FileManifest | undefined;
      try {
        await sink.removeFile(fileId, versions);
        let newLatest: number | null = null;
        left = await store.update((man) => {
          const f = man.files.find((x) => x.id === fileId);
          if (f) {
            f.versions = f.versions.filter((v) => !versions.includes(v.version));
            newLatest = latestVersion(f)?.version ?? null;
            if (!f.versions.length) man.files = man.files.filter((x) => x.id !== fileId);
          }
          return structuredClone(man);
        });
        await sink.setLatest(fileId, newLatest);
      } finally {
        await sink.close();
      }
      if (version === undefined) await store.removeArtifacts(fileId);
      else await store.removeArtifacts(fileId, version);
      await store.collectGarbage(left);
      this.engine.events.emit('cases.changed', { caseId, kind: 'files' });
      return { fileId, versions };
    };
    // Never while an ingest of the case writes the same manifest: queue behind it.
    return this.queue.run(caseId, run);
  }

  /** Set (or clear, with null) the user's doc type of a file; indexed versions are re-indexed so filters see it. */
  async setDocType(caseId: string, fileId: string, type: DocType | null): Promise<FileInfo> {
    const caseDir = this.engine.cases.caseDir(caseId);
    const store = new CaseStore(caseDir);
    const run = async () => {
      const release = await this.lock(caseDir);
      try {
        const file = await store.update((m) => {
          const f = m.files.find((x) => x.id === fileId);
          if (!f) throw new CasefileError('not_found', `No file with id ${fileId} in this case.`);
          f.doc_type_override = type;
          return structuredClone(f);
        });
        const docs = new CaseDocuments(caseDir);
        const sink = await createIndexSink({ home: this.engine.home, caseDir, modelDirs: [this.engine.modelsDir, ...this.engine.bundledModelDirs] });
        try {
          for (const v of file.versions) {
            if (v.status !== 'indexed') continue;
            await sink.indexVersion(await docs.getChunks(fileId, v.version), {});
          }
          const latest = latestVersion(file);
          if (latest) await sink.setLatest(fileId, latest.version);
        } finally {
          await sink.close();
        }
        this.engine.events.emit('cases.changed', { caseId, kind: 'files' });
        return fileInfo(file);
      } finally {
        await release();
      }
    };
    return this.queue.run(caseId, run);
  }

  async read(caseId: string, fileId: string, version?: number): Promise<FileContent> {
    const docs = this.documents(caseId);
    const { file, version: v } = await docs.resolve(fileId, version);
    const text = await docs.getText(fileId, v.version);
    const pages = await docs.getPages(fileId, v.version);
    const html = (await docs.getHtml(fileId, v.version)) ?? null;
    return {
      fileId,
      name: file.name,
      version: v.version,
      kind: pages.kind,
      text,
      html,
      pages: pages.pages.map((p) => ({ page: p.page, start: p.start, end: p.end })),
    };
  }

  /** Stop the case's ingest and wait for it, before its directory goes. */
  async beforeCaseDelete(caseId: string): Promise<void> {
    this.cancel(caseId);
    await this.queue.idle(caseId);
    for (const j of await this.jobs.list(caseId)) await this.jobs.remove(j.id);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const set of this.active.values()) for (const s of set) s.controller.abort();
    await this.queue.idleAll();
    await this.pool?.close();
    this.pool = undefined;
  }
}

/** Reading a version started this many times without the process finishing it: it is set aside. */
const QUARANTINE_AFTER = 3;
const QUARANTINE_REASON = `stopped: Casefile closed unexpectedly ${QUARANTINE_AFTER} times while reading this file, so it was set aside (the file may be damaged or hostile). Retry it by hand if it should be read.`;

/** A job that another live process is running (not an orphan to resume here). */
function ownedElsewhere(job: JobRecord): boolean {
  return job.pid !== process.pid && pidAlive(job.pid);
}

/** Plain words for a file the disk would not give us. */
function diskReason(code: string | undefined, err: unknown): string {
  const what: Record<string, string> = {
    EACCES: 'permission denied — ask for access to the file, or copy it somewhere you can read it, then add it again',
    EPERM: 'permission denied — ask for access to the file, or copy it somewhere you can read it, then add it again',
    EIO: 'the disk reported an error while reading it — copy the file from a working drive, then add it again',
    ENOENT: 'it was moved or deleted while being added',
    EISDIR: 'it is a folder',
  };
  return `could not be read from disk: ${(code && what[code]) ?? (code ?? (err as Error).message)}`;
}

function newVersion(version: number, sha256: string, size: number, now: string): VersionRecord {
  return { version, sha256, size, kind: 'unknown', pages: 0, status: 'queued', reason: '', doc_type: 'other', doc_date: '', ingested_at: now, empty_pages: [], chunks: 0 };
}

/** The status `files.list` shows for a version in flight, by stage. */
const LIVE_STATUS: Record<IngestStage, IngestFileStatus> = { hashing: 'parsing', parsing: 'parsing', chunking: 'parsing', embedding: 'embedding', indexing: 'indexing' };

function currentFile(c: CurrentFile, now: number): IngestCurrentFile {
  const counted = c.done !== null && c.total !== null && c.total > 0;
  const fraction = counted ? Math.min(1, Math.max(0, c.done! / c.total!)) : null;
  const inStage = (now - c.stageStarted) / 1000;
  const etaSeconds = counted ? stageEtaSeconds(c.done, c.total, inStage) : null;
  return {
    name: c.name,
    fileId: c.fileId,
    version: c.version,
    stage: c.stage,
    done: counted ? c.done : null,
    total: counted ? c.total : null,
    fraction,
    pages: c.pages > 0 ? c.pages : null,
    etaSeconds,
  };
}

function failedResult(reason: string): ParseResult {
  return { summary: { kind: 'unknown', status: 'failed', reason, pages: 0, emptyPages: [], docType: 'other', docDate: '' }, chunks: [] };
}

export function fileInfo(f: FileRecord): FileInfo {
  const v = latestVersion(f)!;
  return {
    id: f.id,
    name: f.name,
    version: v.version,
    versions: f.versions.map((x) => ({ ...x })),
    type: f.doc_type_override ?? v.doc_type,
    pages: v.pages,
    status: v.status,
    reason: v.reason,
    date: v.doc_date,
    size: v.size,
  };
}
