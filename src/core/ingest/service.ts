import { promises as fs } from 'node:fs';
import path from 'node:path';
import type {
  UnlockResult,
  FileContent,
  FileInfo,
  IngestJobHandle,
  IngestProgress,
  IngestRunResult,
  ReindexResult,
} from '../../shared/contract/ingest';
import { CasefileError } from '../../shared/errors';
import { KeyedQueue } from '../util/concurrency';
import { newId } from '../util/ids';
import { passwordKey } from '../util/passwords';
import { CaseLockedError, HOST, lockCase, lockCaseWhenFree, ownedElsewhere, withCaseLock } from './case-lock';
import { VectorCatchUp } from './catch-up';
import { refreshDigest } from './case-digest';
import type { CaseDigest } from '../cases/index';
import { CaseFiles } from './files';
import { JobStore, type JobRecord } from './jobs';
import { resolveLimits, type IngestLimits, TERMINAL_STATUSES, type DocType } from '../domain/index';
import { defaultConcurrency, WorkerPool } from './pool';
import type { IngestPorts } from './ports';
import { newRunProgress, snapshot, takeEmit } from './progress';
import { ReadingCounts } from './reading';
import { pendingCount, resumeInterrupted } from './resume';
import { reindexCase } from './reindex';
import { runIngest, type RunContext, type RunState } from './run';
import { CaseStore, latestVersion } from '../documents/index';

export interface IngestOptions {
  /** Worker entry; default src/core/reader/worker.ts beside this folder (the Electron bundle passes its built worker). */
  workerPath?: string;
  /** Parallel parse workers (default: cores − 1, 1–4). */
  concurrency?: number;
  /** Files larger than this fail with "too large" (default 500 MB; same as `limits.maxFileBytes`). */
  maxFileBytes?: number;
  /** Per-file limits (memory, time, pages, decoded bytes…) over the defaults and CASEFILE_* variables. */
  limits?: Partial<IngestLimits>;
  /** pdf.js standard font data folder (file: URL); default pdfjs-dist's own. */
  standardFontDataUrl?: string;
  /** Read scanned pages by OCR (default on; false or CASEFILE_OCR=0 turn it off for every case; each case has its own setting too). */
  ocr?: boolean;
  /**
   * Resume interrupted ingests in the background as soon as the engine opens (the desktop app
   * sets this). Off by default: the CLI finishes a case's unfinished work on its next `ingest`.
   */
  autoResume?: boolean;
}

/** What a run waiting for another process that holds its case shows. */
function blockedMessage(pid: number): string {
  const who = pid ? `another Casefile process (pid ${pid})` : 'another Casefile process';
  return `Waiting for ${who} that is adding files to this case; these files are added as soon as it is done.`;
}

/**
 * Ingest for one engine: runs are serialized per case (a second drop queues behind the first),
 * parsing runs in a worker pool, finished versions go to the index sink, and every step is
 * persisted so a killed process resumes (see {@link JobStore}). The facade over the run
 * (./run.ts), its progress (./progress.ts), the case lock (./case-lock.ts), resume (./resume.ts)
 * and the files of a case (./files.ts).
 */
export class IngestService {
  readonly jobs: JobStore;
  private pool: WorkerPool | undefined;
  /** Runs, removals and doc-type changes of a case, one at a time in order (keyed by case id). */
  private readonly queue = new KeyedQueue<string>();
  private readonly active = new Map<string, Set<RunState>>();
  /** Runs waiting for another process that holds their case, with its pid (see `waitForCase`). */
  private readonly blocked = new Map<RunState, number>();
  /** Index upgrades running or queued, per case (cancelled with the case's ingest). */
  private readonly reindexing = new Map<string, AbortController>();
  readonly limits: IngestLimits;
  private closed = false;
  /** Each case's reading.json (reads in progress, for quarantine). */
  private readonly reading = new ReadingCounts();
  private readonly files: CaseFiles;
  private readonly runContext: RunContext;
  /** The background catch-up of the cases' vectors (./catch-up.ts); at work once `startCatchUp` was called. */
  readonly vectors: VectorCatchUp;
  private catchingUp = false;

  constructor(
    private readonly ports: IngestPorts,
    private readonly options: IngestOptions = {},
  ) {
    this.jobs = new JobStore(path.join(ports.home, 'jobs'));
    this.limits = resolveLimits({
      ...options.limits,
      ...(options.maxFileBytes ? { maxFileBytes: options.maxFileBytes } : {}),
    });
    this.files = new CaseFiles({
      ports,
      queue: this.queue,
      inFlight: (caseId) => [...(this.active.get(caseId) ?? [])].flatMap((s) => [...s.current.values()]),
    });
    this.runContext = {
      ports,
      jobs: this.jobs,
      pool: () => this.getPool(),
      limits: this.limits,
      standardFontDataUrl: options.standardFontDataUrl,
      ocr: options.ocr !== false,
      reading: this.reading,
      isActiveJob: (jobId) => this.isActiveJob(jobId),
      emitProgress: (state, force) => this.emitProgress(state, force),
    };
    this.vectors = new VectorCatchUp(ports, (caseId, fn) =>
      this.queue.run(caseId, () => withCaseLock(this.ports.cases.caseDir(caseId), fn)),
    );
  }

  /**
   * Catch up every case whose passages wait for vectors, now and after each run that leaves some
   * (the desktop app and serve; the engine calls `vectors.scheduleAll` again when a model comes).
   */
  startCatchUp(): Promise<void> {
    this.catchingUp = true;
    return this.vectors.scheduleAll();
  }

  /** Parallel parse workers this service uses. */
  get concurrency(): number {
    return Math.max(1, this.options.concurrency ?? defaultConcurrency());
  }

  private getPool(): WorkerPool {
    this.pool ??= new WorkerPool({
      workerPath: this.options.workerPath,
      concurrency: this.options.concurrency,
      limits: this.limits,
    });
    return this.pool;
  }

  /**
   * Queue a run for the case; resolves with its results when it ends. `only`: of a folder in
   * `paths`, read just these files (named as a drop of the folder names them), not the whole folder.
   */
  async start(
    caseId: string,
    paths: string[],
    opts: { signal?: AbortSignal; searchableOnly?: boolean; only?: Record<string, string[]> } = {},
  ): Promise<IngestRunResult> {
    const only = opts.only
      ? Object.fromEntries(Object.entries(opts.only).map(([folder, names]) => [path.resolve(folder), names]))
      : undefined;
    const { done } = await this.enqueue(
      caseId,
      paths.map((p) => path.resolve(p)),
      { signal: opts.signal, searchableOnly: opts.searchableOnly, only },
    );
    return done;
  }

  /**
   * Read a file again by hand (a failed or quarantined one): its latest version is queued, its
   * crash count cleared, and a run finishes it (queued behind a run of the case that is working).
   */
  async retry(
    caseId: string,
    fileId: string,
    opts: { wait?: boolean; signal?: AbortSignal } = {},
  ): Promise<IngestRunResult | IngestJobHandle> {
    const caseDir = this.ports.cases.caseDir(caseId);
    await this.ports.cases.readMeta(caseId);
    const store = new CaseStore(caseDir);
    const file = (await store.readManifest()).files.find((f) => f.id === fileId);
    const latest = file ? latestVersion(file) : undefined;
    if (!file || !latest) throw new CasefileError('not_found', `No file with id ${fileId} in this case.`);
    if (latest.sha256 === '')
      throw new CasefileError(
        'invalid_input',
        `${file.name} could not be read from disk, so Casefile has no copy of it: add it again from its folder.`,
      );
    if (latest.status === 'indexed')
      throw new CasefileError('invalid_input', `${file.name} is already indexed; there is nothing to retry.`);
    await store.update((m) => {
      const v = m.files.find((f) => f.id === fileId)?.versions.find((x) => x.version === latest.version);
      if (v && TERMINAL_STATUSES.includes(v.status)) Object.assign(v, { status: 'queued', reason: '' });
    });
    await this.reading.set(caseDir, `${fileId}@${latest.version}`, null);
    const { job, done } = await this.enqueue(caseId, [], { signal: opts.signal, waitForCase: opts.wait === false });
    if (opts.wait === false) {
      done.catch(() => {});
      return { job_id: job.id, case_id: caseId, state: 'running' };
    }
    return done;
  }

  /**
   * Open a protected PDF with the password the user gave: checked first (a wrong one is refused
   * and nothing changes), then kept in the password store, and the file read with it unless it
   * already was (then its pages can be shown again).
   */
  async unlock(
    caseId: string,
    fileId: string,
    password: string,
    opts: { wait?: boolean; signal?: AbortSignal } = {},
  ): Promise<UnlockResult> {
    await this.ports.cases.readMeta(caseId);
    const store = new CaseStore(this.ports.cases.caseDir(caseId), () => this.ports.cases.originals(caseId));
    const file = (await store.readManifest()).files.find((f) => f.id === fileId);
    const latest = file ? latestVersion(file) : undefined;
    if (!file || !latest) throw new CasefileError('not_found', `No file with id ${fileId} in this case.`);
    if (!latest.locked) throw new CasefileError('invalid_input', `${file.name} is not password protected.`);
    const blob = await store.localBlob(latest.sha256);
    const bytes = blob ? await fs.readFile(blob).catch(() => null) : null;
    if (!bytes)
      throw new CasefileError('failed', `Casefile's copy of ${file.name} is missing: add it again from its folder.`);
    const { pdfPasswordOpens } = await import('../reader/loaders');
    if (!(await pdfPasswordOpens(bytes, password))) {
      throw new CasefileError('invalid_input', `That password does not open ${file.name}.`, [
        { field: 'password', message: 'does not open the file' },
      ]);
    }
    this.ports.passwords.set(passwordKey(caseId, latest.sha256), password);
    if (latest.status === 'indexed') return { file_id: fileId, name: file.name, reread: false, run: null };
    return { file_id: fileId, name: file.name, reread: true, run: await this.retry(caseId, fileId, opts) };
  }

  /**
   * Queue a run and return its handle at once (progress and results arrive as events). Nobody
   * waits for its answer, so while another process holds the case the run waits for it and says
   * so in its progress (`blocked_by`), instead of failing where no one sees it.
   */
  async startDetached(
    caseId: string,
    paths: string[],
    opts: { searchableOnly?: boolean } = {},
  ): Promise<IngestJobHandle> {
    const queued = (this.active.get(caseId)?.size ?? 0) > 0;
    const { job, done } = await this.enqueue(
      caseId,
      paths.map((p) => path.resolve(p)),
      { searchableOnly: opts.searchableOnly, waitForCase: true },
    );
    done.catch(() => {});
    return { job_id: job.id, case_id: caseId, state: 'running', queued };
  }

  private async enqueue(
    caseId: string,
    paths: string[],
    opts: {
      signal?: AbortSignal | undefined;
      resumeCancelled?: boolean;
      existing?: JobRecord | undefined;
      searchableOnly?: boolean | undefined;
      only?: Record<string, string[]> | undefined;
      /** Wait while another process holds the case (a run nobody awaits) rather than fail with a conflict. */
      waitForCase?: boolean;
    } = {},
  ): Promise<{ job: JobRecord; done: Promise<IngestRunResult> }> {
    const { signal, resumeCancelled = false, existing, searchableOnly = false, only, waitForCase = false } = opts;
    if (this.closed) throw new CasefileError('unavailable', 'The engine is shutting down.');
    await this.ports.cases.readMeta(caseId); // not_found before anything is written
    const job: JobRecord = existing ?? {
      schemaVersion: 1,
      id: newId('j', 12),
      caseId,
      paths,
      ...(only ? { only } : {}),
      created: new Date().toISOString(),
      state: 'running',
      pid: process.pid,
      host: HOST,
    };
    job.pid = process.pid;
    job.host = HOST;
    job.state = 'running';
    await this.jobs.save(job);
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const state: RunState = {
      job,
      controller,
      running: false,
      searchableOnly,
      ...newRunProgress(job.caseId, job.id, Date.now()),
    };
    let set = this.active.get(caseId);
    if (!set) this.active.set(caseId, (set = new Set()));
    set.add(state);
    const done = this.queue.run(caseId, async (): Promise<IngestRunResult> => {
      let waited: (() => Promise<void>) | null | undefined;
      try {
        if (waitForCase && !(waited = await this.waitForCase(state)))
          return { job_id: job.id, case_id: caseId, state: 'cancelled', results: [], skipped: [] };
        const result = await runIngest(this.runContext, state, resumeCancelled);
        await this.refreshDigest(caseId);
        return result;
      } finally {
        await waited?.(); // a lock the run took over is its own by now, and is left alone
        signal?.removeEventListener('abort', onAbort);
        set.delete(state);
        if (set.size === 0) this.active.delete(caseId);
        this.afterRun(caseId);
      }
    });
    return { job, done };
  }

  /**
   * Make the case's digest again (what a question asked outside any case is matched against); a
   * failure leaves the former one and is said in the log, never failing the run.
   */
  async refreshDigest(caseId: string, opts: { fresh?: boolean } = {}): Promise<CaseDigest | undefined> {
    try {
      const open = await this.ports.openCases.open(caseId);
      return await refreshDigest(open.dir, open.documents, opts);
    } catch (err) {
      console.error(`casefile: the summary of case ${caseId} could not be made: ${(err as Error).message}`);
      return undefined;
    }
  }

  /** When a run ends, the case's passages it left waiting (another model's, a killed run's) are caught up with. */
  private afterRun(caseId: string): void {
    if (this.catchingUp && !this.closed) void this.vectors.follow(caseId).catch(() => {});
  }

  /**
   * Take the case's lock for a queued run, waiting while another process holds it, with progress
   * that says so; resolves with its release. The run then takes over this process's lock. Null
   * when the run was cancelled while it waited: then, as for a run that could not start, only its
   * job record is removed.
   */
  private async waitForCase(state: RunState): Promise<(() => Promise<void>) | null> {
    const { job, controller } = state;
    let release: () => Promise<void>;
    try {
      release = await lockCaseWhenFree(this.ports.cases.caseDir(job.caseId), {
        signal: controller.signal,
        onWait: (pid) => {
          this.blocked.set(state, pid);
          this.emitProgress(state, true);
        },
      });
    } catch (err) {
      this.blocked.delete(state);
      await this.jobs.remove(job.id);
      state.progress.state = 'cancelled';
      this.emitProgress(state, true);
      if (controller.signal.aborted) return null;
      throw err;
    }
    this.blocked.delete(state);
    return release;
  }

  /**
   * Upgrade the case's index to the current chunking from its stored text (see ./reindex.ts), in the
   * case's queue and under its lock, like a run.
   */
  async reindex(caseId: string, opts: { all?: boolean; signal?: AbortSignal } = {}): Promise<ReindexResult> {
    if (this.closed) throw new CasefileError('unavailable', 'The engine is shutting down.');
    await this.ports.cases.readMeta(caseId);
    const caseDir = this.ports.cases.caseDir(caseId);
    const documents = (await this.ports.openCases.open(caseId)).documents;
    const controller = new AbortController();
    this.reindexing.set(caseId, controller);
    const onAbort = () => controller.abort(opts.signal?.reason);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const result = await this.queue.run(caseId, () =>
        withCaseLock(caseDir, () =>
          reindexCase(this.ports, caseId, documents, { all: opts.all, signal: controller.signal }),
        ),
      );
      // Names may have been made again by newer rules: the digest reads every document afresh.
      if (result.versions > 0) await this.refreshDigest(caseId, { fresh: true });
      return result;
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      this.reindexing.delete(caseId);
    }
  }

  /** Upgrade every case indexed before the current chunking, one after another (the desktop app, after resuming). */
  async upgradeAll(): Promise<void> {
    for (const c of await this.ports.cases.list()) {
      if (this.closed) return;
      const result = await this.reindex(c.id).catch((err: unknown) => {
        console.error(`casefile: upgrading the index of case ${c.id} failed: ${(err as Error).message}`);
        return null;
      });
      if (result?.versions) console.error(`casefile: upgraded the index of case ${c.id}: ${result.versions} documents`);
    }
  }

  /** Run `fn` in the case's queue and under its lock, as a run would: nothing of this process or another writes the case meanwhile. */
  exclusive<T>(caseId: string, fn: () => Promise<T>): Promise<T> {
    return this.queue.run(caseId, () => withCaseLock(this.ports.cases.caseDir(caseId), fn));
  }

  /** Cancel every queued and running ingest of a case. */
  cancel(caseId: string): boolean {
    this.reindexing.get(caseId)?.abort();
    const set = this.active.get(caseId);
    if (!set?.size) return false;
    for (const s of set) s.controller.abort();
    return true;
  }

  /** Progress of the case's running ingest, or null. */
  status(caseId: string): IngestProgress | null {
    const set = this.active.get(caseId);
    if (!set) return null;
    for (const s of set)
      if ((s.running || this.blocked.has(s)) && s.progress.state === 'running') return this.snapshot(s);
    return null;
  }

  /**
   * File versions waiting to be finished (queued by an interrupted run, or cancelled); none while
   * a run of the case is queued or working here, since it finishes them.
   */
  async pendingCount(caseId: string): Promise<number> {
    if (this.active.get(caseId)?.size) return 0;
    return pendingCount(this.ports.cases, caseId);
  }

  /**
   * Finish interrupted work: job files left by a killed process are run again (their paths are
   * walked again; finished files come out unchanged), and versions left queued or cancelled are
   * finished. With no caseId, every case with such work is resumed.
   */
  async resume(caseId?: string): Promise<IngestRunResult[]> {
    return resumeInterrupted(
      {
        cases: this.ports.cases,
        jobs: this.jobs,
        isActiveJob: (jobId) => this.isActiveJob(jobId),
        enqueueResume: (id, paths, existing) => this.enqueue(id, paths, { resumeCancelled: true, existing }),
      },
      caseId,
    );
  }

  /**
   * Take up, now and every `everyMs` until closed, the jobs another process of this machine left
   * when it was killed mid-ingest (two servers on one data folder: the one left running finishes
   * what the other began). Only orphaned jobs: a case another live process ingests is left to it.
   */
  startAdopting(everyMs: number): void {
    if (this.adopting) return;
    let busy = false;
    const look = async () => {
      if (busy || this.closed) return;
      busy = true;
      try {
        const orphaned = async () =>
          (await this.jobs.list()).filter((j) => !this.isActiveJob(j.id) && !ownedElsewhere(j));
        for (const caseId of new Set((await orphaned()).map((j) => j.caseId))) {
          if (this.closed) break;
          // The case's lock first: of two processes left running, one takes the orphan, and the
          // other leaves it alone (it may be finished by the time the lock is free).
          const release = await lockCase(this.ports.cases.caseDir(caseId)).catch(
            (err: unknown) => (err instanceof CaseLockedError ? null : async () => {}), // a deleted case: resume drops its jobs
          );
          if (!release) continue;
          try {
            if ((await orphaned()).some((j) => j.caseId === caseId)) await this.resume(caseId);
          } catch (err) {
            console.error(`casefile: finishing case ${caseId}'s interrupted ingest failed: ${(err as Error).message}`);
          } finally {
            await release();
          }
        }
      } finally {
        busy = false;
      }
    };
    this.adopting = setInterval(() => void look(), everyMs);
    this.adopting.unref();
    void look();
  }

  private adopting: NodeJS.Timeout | undefined;

  private isActiveJob(jobId: string): boolean {
    for (const set of this.active.values()) for (const s of set) if (s.job.id === jobId) return true;
    return false;
  }

  /** The run's progress now, with what runs queued behind it (same case, a drop while it works) will add. */
  private snapshot(state: RunState): IngestProgress {
    const waiting = [...(this.active.get(state.progress.case_id) ?? [])]
      .filter((s) => s !== state && !s.running)
      .flatMap((s) => s.job.paths.flatMap((x) => s.job.only?.[x] ?? [path.basename(x)]));
    const progress = snapshot(state, Date.now(), waiting);
    const pid = this.blocked.get(state);
    return pid === undefined ? progress : { ...progress, blocked_by: { pid, message: blockedMessage(pid) } };
  }

  private emitProgress(state: RunState, force = false): void {
    if (!takeEmit(state, Date.now(), force)) return;
    this.ports.events.emit('ingest.progress', this.snapshot(state));
  }

  // ------------------------------------------------------------------ files (./files.ts)

  async listFiles(caseId: string): Promise<FileInfo[]> {
    return this.files.listFiles(caseId);
  }

  /** Remove a file (every version, or one): chunks and index entries first, then the record and artifacts. */
  /** Mark files as deleted from the folder the case follows, or (null) as back in it; see CaseFiles.markSourceRemoved. */
  markSourceRemoved(caseId: string, names: string[], at: string | null): Promise<string[]> {
    return this.files.markSourceRemoved(caseId, names, at);
  }

  async removeFile(caseId: string, fileId: string, version?: number): Promise<{ file_id: string; versions: number[] }> {
    const removed = await this.files.removeFile(caseId, fileId, version);
    await this.refreshDigest(caseId);
    return removed;
  }

  /** Set (or clear, with null) the user's doc type of a file; indexed versions are re-indexed so filters see it. */
  async setBates(caseId: string, fileId: string, prefix: string | null): Promise<FileInfo> {
    return this.files.setBates(caseId, fileId, prefix);
  }

  async setDocType(caseId: string, fileId: string, type: DocType | null): Promise<FileInfo> {
    const file = await this.files.setDocType(caseId, fileId, type);
    await this.refreshDigest(caseId);
    return file;
  }

  async read(caseId: string, fileId: string, version?: number): Promise<FileContent> {
    return this.files.read(caseId, fileId, version);
  }

  /** Stop the case's ingest and wait for it, before its directory goes. */
  async beforeCaseDelete(caseId: string): Promise<void> {
    this.vectors.forget(caseId);
    this.cancel(caseId);
    await this.queue.idle(caseId);
    for (const j of await this.jobs.list(caseId)) await this.jobs.remove(j.id);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.adopting);
    await this.vectors.close();
    for (const set of this.active.values()) for (const s of set) s.controller.abort();
    for (const c of this.reindexing.values()) c.abort();
    await this.queue.idleAll();
    await this.pool?.close();
    this.pool = undefined;
  }
}
