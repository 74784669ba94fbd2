/**
 * One ingest run of a case, under the case's lock: walk the dropped paths and copy the originals
 * in (hashing), register their versions, set aside versions the process kept dying on, then parse,
 * chunk and index every unfinished version of the case in the worker pool, recording each final
 * status. Every step is persisted, so a killed process resumes (see {@link JobStore}).
 */
import os from 'node:os';
import path from 'node:path';
import type { IngestFileStatus, IngestResultItem, IngestRunResult, IngestStage } from '../../shared/contract/ingest';
import { createIndexSink, type IndexSink } from '../retrieval/sink';
import { IdleCores, ingestEmbedThreads } from '../retrieval/embed-protocol';
import type { IngestPorts } from './ports';
import { cleanTempFiles } from '../util/fs';
import { passwordKey } from '../util/passwords';
import { newId } from '../util/ids';
import { lockCase, ownedElsewhere } from './case-lock';
import { mergeWalks, type JobRecord, type JobStore } from './jobs';
import {
  formatBytes,
  raiseHint,
  type IngestLimits,
  PENDING_STATUSES,
  TERMINAL_STATUSES,
  type ChunkingOptions,
  type FileManifest,
  type FileRecord,
  type StoredChild,
  type VersionRecord,
} from '../domain/index';
import { ReaderStopped, type ParseResult, type WorkerPool } from './pool';
import { fileFinished, pagesKnown, setStage, type RunProgress } from './progress';
import { quarantineReason, type ReadingCounts } from './reading';
import { chunkingOf } from '../text/index';
import { dateSettingsOf, ocrSettingsOf } from '../cases/index';
import { CaseStore, latestVersion, type ManifestChange } from '../documents/index';
import { walkPaths } from '../util/walk';

/** A run, queued or running: its job, its cancel switch, and its progress. */
export interface RunState extends RunProgress {
  job: JobRecord;
  controller: AbortController;
  /** False while queued behind another run of the same case. */
  running: boolean;
  /** End once every file is searchable by its words; the case's next run makes their vectors. */
  searchableOnly?: boolean;
}

/** What a run needs of the service that queued it. */
export interface RunContext {
  ports: IngestPorts;
  jobs: JobStore;
  pool: () => WorkerPool;
  /** Per-file limits; files larger than `limits.maxFileBytes` fail with "too large". */
  limits: IngestLimits;
  standardFontDataUrl?: string;
  /** Read pages without a text layer by OCR. */
  ocr: boolean;
  reading: ReadingCounts;
  /** Is this job queued or running in this process? */
  isActiveJob: (jobId: string) => boolean;
  /** Emit the run's progress (throttled unless forced). */
  emitProgress: (state: RunState, force?: boolean) => void;
}

interface WorkItem {
  fileId: string;
  name: string;
  version: number;
  size: number;
  sha256: string;
}

interface Imported {
  name: string;
  sha256: string;
  size: number;
}

interface Unreadable {
  name: string;
  size: number;
  reason: string;
}

/** The status a version ends a run with. */
type FinalStatus = ParseResult['summary']['status'];

function isAbort(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
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
  return `could not be read from disk: ${(code && what[code]) ?? code ?? (err as Error).message}`;
}

function newVersion(version: number, sha256: string, size: number, now: string): VersionRecord {
  return {
    version,
    sha256,
    size,
    kind: 'unknown',
    pages: 0,
    status: 'queued',
    reason: '',
    doc_type: 'other',
    doc_date: '',
    ingested_at: now,
    empty_pages: [],
    chunks: 0,
  };
}

function failedResult(reason: string): ParseResult {
  return {
    summary: { kind: 'unknown', status: 'failed', reason, pages: 0, emptyPages: [], docType: 'other', docDate: '' },
    chunks: [],
  };
}

/** Run a queued run: take the case's lock, then run it. A run that cannot take the lock leaves nothing behind. */
export async function runIngest(ctx: RunContext, state: RunState, resumeCancelled: boolean): Promise<IngestRunResult> {
  let release: () => Promise<void>;
  try {
    release = await lockCase(ctx.ports.cases.caseDir(state.job.caseId));
  } catch (err) {
    // Not started: nothing of this job is on disk but its record, which would otherwise be resumed later.
    await ctx.jobs.remove(state.job.id);
    state.progress.state = 'cancelled';
    throw err;
  }
  try {
    return await new IngestRun(ctx, state, resumeCancelled).execute();
  } finally {
    await release();
  }
}

/** One run, with the lock held. */
class IngestRun {
  private readonly signal: AbortSignal;
  private readonly caseId: string;
  private readonly caseDir: string;
  private readonly store: CaseStore;
  private readonly results = new Map<string, IngestResultItem>();
  private readonly skipped: IngestRunResult['skipped'] = [];
  /** Versions left to finish (key `fileId@version`). */
  private readonly work = new Map<string, WorkItem>();
  private sink: IndexSink | undefined;
  /** Set when every version is parsed and written: the embedding stage ends once none is left. */
  private parsingDone = false;
  /** Wakes the embedding stage when a version was written. */
  private wakeEmbedding: (() => void) | undefined;
  /** Parse lanes reading a file now (each drives one reader process). */
  private busyLanes = 0;
  /** Versions this run registered (key `fileId@version`): the index holds no row of them yet. */
  private readonly added = new Set<string>();
  /** The files whose passages this run wrote: all its embedding stage makes while the case catches up with its model. */
  private readonly indexedFiles = new Set<string>();
  /** Versions waiting for a parse lane: the work found at the start, then the files found inside files. */
  private readonly queue: WorkItem[] = [];
  /** Per file added itself, what was taken out of it at every level (see `innerTallies`). */
  private tallies: Map<string, { files: number; bytes: number }> | undefined;
  /** Files inside files left out by the caps on what one dropped file expands to: their stored copies go at the end. */
  private leftOut = 0;
  /** How this run reads scanned pages (null: it does not), from the engine's switch and the case's setting. */
  private ocr: { language: string } | null = null;
  /** The case reads numeric dates day first (its chronology). */
  private dayFirst = false;

  constructor(
    private readonly ctx: RunContext,
    private readonly state: RunState,
    private readonly resumeCancelled: boolean,
  ) {
    this.signal = state.controller.signal;
    this.caseId = state.job.caseId;
    this.caseDir = ctx.ports.cases.caseDir(this.caseId);
    this.store = new CaseStore(this.caseDir, () => ctx.ports.cases.originals(this.caseId));
  }

  async execute(): Promise<IngestRunResult> {
    const { state, signal, caseId } = this;
    state.running = true;
    state.started = Date.now();
    let cancelled = false;
    try {
      const meta = await this.ctx.ports.cases.readMeta(caseId);
      const chunking = chunkingOf(meta.settings);
      const ocr = ocrSettingsOf(meta.settings);
      this.ocr = this.ctx.ocr && ocr.enabled ? { language: ocr.language } : null;
      this.dayFirst = dateSettingsOf(meta.settings).dayFirst;
      await cleanTempFiles(path.join(this.caseDir, 'files'));
      const { imported, unreadable } = await this.importOriginals(await this.pathsToWalk());
      await this.registerVersions(imported, unreadable);
      await this.quarantine();
      this.countWork(imported);
      this.ctx.emitProgress(state, true);
      // Also with no new work: passages a killed or word-only run left without vectors get them.
      await this.processAll(chunking);
      signal.throwIfAborted();
    } catch (err) {
      if (!isAbort(err) && !signal.aborted) {
        await this.finish('cancelled');
        throw err;
      }
      cancelled = true;
    }
    if (cancelled) await this.markCancelled();
    const originalsError = await this.storeOriginals();
    await this.finish(cancelled ? 'cancelled' : 'done');
    // This run's job, and the interrupted ones it took over, are done.
    const finished = (await this.ctx.jobs.list(caseId)).filter(
      (j) => j.id === state.job.id || (!this.ctx.isActiveJob(j.id) && !ownedElsewhere(j)),
    );
    for (const j of finished) await this.ctx.jobs.remove(j.id);
    this.ctx.ports.events.emit('cases.changed', { case_id: caseId, kind: 'files' });
    return {
      job_id: state.job.id,
      case_id: caseId,
      state: cancelled ? 'cancelled' : 'done',
      results: [...this.results.values()],
      skipped: this.skipped,
      ...(originalsError ? { originals_error: originalsError } : {}),
    };
  }

  /**
   * A bucket case's new originals go to its bucket at the end of each run (a killed run's, at the
   * end of the next). The files are indexed either way: a failure is said, not thrown.
   */
  private async storeOriginals(): Promise<string | undefined> {
    try {
      await this.store.syncOriginals();
      return undefined;
    } catch (err) {
      return `The files are indexed, but their originals were not copied to the firm’s object storage: ${(err as Error).message} The next run of this case copies them.`;
    }
  }

  /** This run's paths, and those of interrupted runs of this case that no process owns any more. */
  private async pathsToWalk(): Promise<{ paths: string[]; only?: Record<string, string[]> }> {
    const { job } = this.state;
    const orphans = (await this.ctx.jobs.list(this.caseId)).filter(
      (j) => j.id !== job.id && !this.ctx.isActiveJob(j.id) && !ownedElsewhere(j),
    );
    return mergeWalks([job, ...orphans]);
  }

  private emitFile(
    item: { fileId: string; name: string; version: number },
    status: IngestFileStatus,
    reason: string,
    stage?: IngestStage,
    pages?: number,
  ): void {
    this.ctx.ports.events.emit('ingest.file', {
      case_id: this.caseId,
      job_id: this.state.job.id,
      file_id: item.fileId,
      name: item.name,
      version: item.version,
      status,
      reason,
      ...(stage ? { stage } : {}),
      ...(pages !== undefined ? { pages } : {}),
    });
  }

  /** A file enters a stage (shown at once: stage changes are few per file; page ticks are throttled). */
  private setStage(
    name: string,
    stage: IngestStage,
    bytes: number,
    pages = 0,
    ids?: { fileId: string; version: number },
    count: { done: number; total: number } | null = null,
  ): void {
    setStage(this.state, Date.now(), name, stage, bytes, pages, ids, count);
    this.ctx.emitProgress(this.state, true);
  }

  /** 1. Walk the paths and copy the originals in (hashing); what is not a file to add is skipped, what the disk refuses is unreadable. */
  private async importOriginals(walk: {
    paths: string[];
    only?: Record<string, string[]>;
  }): Promise<{ imported: Imported[]; unreadable: Unreadable[] }> {
    const { state, signal } = this;
    const walked = await walkPaths(walk.paths, signal, walk.only);
    this.skipped.push(...walked.skipped);
    for (const sk of walked.skipped) {
      this.results.set(sk.name, { file_id: '', name: sk.name, version: 0, status: 'skipped', reason: sk.reason });
      this.emitFile({ fileId: '', name: sk.name, version: 0 }, 'skipped', sk.reason);
    }
    const unreadable: Unreadable[] = [];
    state.progress.files_total = walked.files.length;
    state.progress.bytes_total = walked.files.reduce((n, f) => n + f.size, 0);
    const imported: Imported[] = [];
    for (const entry of walked.files) {
      signal.throwIfAborted();
      this.setStage(entry.name, 'hashing', entry.size);
      try {
        const blob = await this.store.importBlob(entry.absPath, this.ctx.limits.maxFileBytes, signal);
        imported.push({ name: entry.name, sha256: blob.sha256, size: blob.size });
      } catch (err) {
        if (isAbort(err)) throw err;
        const code = (err as NodeJS.ErrnoException).code;
        unreadable.push({ name: entry.name, size: entry.size, reason: diskReason(code, err) });
        state.progress.errors++;
        state.progress.files_done++;
      }
      state.current.delete(entry.name);
    }
    return { imported, unreadable };
  }

  /** 2. Register versions (one manifest write): unchanged, new version, or redo an unfinished one; then collect the case's unfinished work. */
  private async registerVersions(imported: Imported[], unreadable: Unreadable[]): Promise<void> {
    const now = new Date().toISOString();
    await this.store.update((m) => {
      const records = manifestRecords(m);
      for (const it of imported) this.registerImported(records, it, now);
      // Files that could not be read from disk are listed as failed, so they do not vanish.
      for (const u of unreadable) this.registerUnreadable(records, u, now);
      // Everything unfinished in the case is finished by this run (resume after a crash).
      for (const f of m.files) {
        for (const v of f.versions) {
          if (this.resumeCancelled && v.status === 'cancelled') v.status = 'queued';
          if (PENDING_STATUSES.includes(v.status))
            this.work.set(`${f.id}@${v.version}`, {
              fileId: f.id,
              name: f.name,
              version: v.version,
              size: v.size,
              sha256: v.sha256,
            });
        }
      }
    });
    for (const r of this.results.values()) if (r.status === 'unchanged') this.state.progress.files_done++;
  }

  private registerImported(records: Records, it: Imported, now: string): void {
    const file = records.named(it.name);
    const latest = latestVersion(file);
    if (latest && latest.sha256 === '') {
      // The file could not be read last time: this is that version, now readable.
      Object.assign(latest, newVersion(latest.version, it.sha256, it.size, now));
    } else if (latest && latest.sha256 === it.sha256) {
      if (TERMINAL_STATUSES.includes(latest.status)) {
        this.results.set(it.name, {
          file_id: file.id,
          name: file.name,
          version: latest.version,
          status: 'unchanged',
          reason: latest.reason,
        });
        return;
      }
      latest.status = 'queued';
      latest.reason = '';
    } else {
      const added = newVersion((latest?.version ?? 0) + 1, it.sha256, it.size, now);
      file.versions.push(added);
      this.added.add(`${file.id}@${added.version}`);
    }
    const v = latestVersion(file)!;
    this.results.set(it.name, { file_id: file.id, name: file.name, version: v.version, status: 'queued', reason: '' });
  }

  private registerUnreadable(records: Records, u: Unreadable, now: string): void {
    const file = records.named(u.name);
    let v = latestVersion(file);
    if (!v || v.sha256 !== '') file.versions.push((v = newVersion((v?.version ?? 0) + 1, '', u.size, now)));
    Object.assign(v, { status: 'failed', reason: u.reason, size: u.size, ingested_at: now });
    this.results.set(u.name, {
      file_id: file.id,
      name: file.name,
      version: v.version,
      status: 'failed',
      reason: u.reason,
    });
  }

  /**
   * Quarantine: a version the process died while reading, again and again, is set aside (failed)
   * instead of being read once more; the user can retry it by hand.
   */
  private async quarantine(): Promise<void> {
    const reading = await this.ctx.reading.read(this.caseDir);
    const quarantined: { fileId: string; version: number; name: string; reason: string }[] = [];
    const after = this.ctx.limits.quarantineAfter;
    for (const [key, w] of this.work) {
      if ((reading[key] ?? 0) < after) continue;
      this.work.delete(key);
      quarantined.push({ fileId: w.fileId, version: w.version, name: w.name, reason: quarantineReason(after) });
    }
    if (!quarantined.length) return;
    await this.store.update((m) => {
      for (const q of quarantined) {
        const v = m.files.find((f) => f.id === q.fileId)?.versions.find((x) => x.version === q.version);
        if (v)
          Object.assign(v, { status: 'failed', reason: q.reason, chunks: 0, ingested_at: new Date().toISOString() });
      }
    });
    for (const q of quarantined) {
      await this.ctx.reading.set(this.caseDir, `${q.fileId}@${q.version}`, null);
      this.results.set(q.name, {
        file_id: q.fileId,
        name: q.name,
        version: q.version,
        status: 'failed',
        reason: q.reason,
      });
      this.emitFile(q, 'failed', q.reason);
    }
  }

  /** Totals over the work to do: files resumed from earlier runs count too, unchanged files are done. */
  private countWork(imported: Imported[]): void {
    const { state, results } = this;
    for (const w of this.work.values()) {
      if (!results.has(w.name) || results.get(w.name)!.version !== w.version) {
        state.progress.files_total++;
        state.progress.bytes_total += w.size;
      }
    }
    for (const r of results.values())
      if (r.status === 'unchanged') state.progress.bytes_done += imported.find((i) => i.name === r.name)?.size ?? 0;
    for (const [key, w] of this.work) state.unopened.set(key, w.size);
  }

  /** 3. Parse, chunk, index — bounded by the worker pool. */
  private async processAll(chunking: ChunkingOptions): Promise<void> {
    const sink = (this.sink = await createIndexSink(await this.ctx.ports.indexSinkOptions(this.caseId)));
    const queue = this.queue;
    queue.push(...this.work.values());
    const lanes = Math.max(1, this.ctx.pool().concurrency);
    // With more than one reader, the first takes the largest file left and the others take files
    // as they came: a long file found last does not leave one reader working alone at the end,
    // and small files still become searchable early.
    const runLane = async (lane: number) => {
      const take = lane === 0 && lanes > 1 ? () => takeLargest(queue) : () => queue.shift();
      for (let item = take(); item; item = take()) {
        if (this.signal.aborted) return;
        this.busyLanes++;
        let final: IngestResultItem | null;
        try {
          final = await this.processVersion(sink, item, chunking);
        } finally {
          this.busyLanes--;
        }
        if (final) {
          this.work.delete(`${item.fileId}@${item.version}`);
          this.results.set(item.name, final);
        }
      }
      // Nothing left for this lane: its core is free for the embedding stage.
      this.wakeEmbedding?.();
    };
    const embedding = this.state.searchableOnly ? Promise.resolve() : this.embedAll(sink);
    embedding.catch(() => {}); // awaited below; a failure or cancel there ends the run
    await Promise.all(Array.from({ length: lanes }, (_, lane) => runLane(lane)));
    this.parsingDone = true;
    this.wakeEmbedding?.();
    await embedding;
  }

  /**
   * The embedding stage, beside parsing: vectors for the passages written keyword-searchable,
   * oldest first (also those a killed process left), until parsing is done and none is left; while
   * the case catches up with a new model, only this run's files' (the rest is the background
   * catch-up's: ./catch-up.ts). While a reader parses on every core it waits (see
   * `readersFillCores`). Reports the coverage of what it embeds as `progress.semantic`.
   */
  private async embedAll(sink: IndexSink): Promise<void> {
    const { state, signal } = this;
    const report = (embedded: number, total: number) => {
      state.progress.semantic = { embedded, total };
      this.ctx.emitProgress(state, embedded >= total);
    };
    const idle = new IdleCores();
    let threads: number | undefined;
    for (;;) {
      // Armed before the pass: a version written (or a lane finished) during it wakes the next pass at once.
      const woken = new Promise<void>((resolve) => (this.wakeEmbedding = resolve));
      const last = this.parsingDone;
      try {
        // Beside the readers, the cores they leave; once parsing is done, the cores that are free.
        // While the readers fill them, each file written reports the coverage (`indexVersion`).
        if (!this.readersFillCores()) {
          const share = await sink.embeddedShare(this.indexedFiles);
          if (share) report(share.embedded, share.total);
          await sink.embedPending({
            signal,
            onProgress: report,
            files: () => this.indexedFiles,
            pause: () => this.readersFillCores(),
            threads: () =>
              (threads = ingestEmbedThreads(this.parsingDone ? 0 : this.busyLanes, {
                current: threads,
                idle: idle.sample(),
              })),
          });
        }
      } catch (err) {
        if (isAbort(err) || signal.aborted) throw err;
        // The passages stay keyword-searchable; the next run embeds them.
        console.error(`casefile: embedding the passages of case ${this.caseId} failed: ${(err as Error).message}`);
        return;
      }
      if (last) break;
      await woken;
    }
    const end = await sink.embeddedShare(this.indexedFiles);
    if (end) report(end.embedded, end.total);
  }

  /**
   * Whether a reader parses on every core. Then vectors wait: even at the lowest priority the
   * model slowed the readers beside it for little headway on the vectors (figures: bench/RESULTS.md, "Figures behind choices in the code"),
   * and every file searchable sooner is worth more than a head start on the vectors. Where
   * readers leave a core (fewer of them, or the last files of a drop), the stage runs beside them.
   */
  private readersFillCores(): boolean {
    return !this.parsingDone && this.busyLanes >= os.availableParallelism();
  }

  /** Unfinished versions are marked so; `ingest.resume` (or ingesting them again) finishes them. */
  private async markCancelled(): Promise<void> {
    const { results, work } = this;
    await this.store.update((m) => {
      for (const f of m.files) {
        for (const v of f.versions) {
          if (work.has(`${f.id}@${v.version}`) && PENDING_STATUSES.includes(v.status)) {
            v.status = 'cancelled';
            v.reason = 'cancelled — add the file again or resume to finish it';
            results.set(f.name, {
              file_id: f.id,
              name: f.name,
              version: v.version,
              status: 'cancelled',
              reason: v.reason,
            });
            this.emitFile({ fileId: f.id, name: f.name, version: v.version }, 'cancelled', v.reason);
          }
        }
      }
    });
    for (const r of results.values()) if (r.status === 'queued') r.status = 'cancelled';
    // Originals copied in before the cancel but never registered.
    await this.store.collectGarbage(await this.store.readManifest());
  }

  private async finish(end: 'done' | 'cancelled'): Promise<void> {
    try {
      await this.sink?.close();
      // Copies the reader stored of files that were then left out.
      if (this.leftOut) await this.store.collectGarbage({ schemaVersion: 1, files: await this.store.files() });
    } finally {
      // Programs that read files.json alone (older versions of Casefile) see every file of the run.
      await this.store
        .compactManifest()
        .catch((err: unknown) =>
          console.error(`casefile: the file list of case ${this.caseId} was not folded: ${(err as Error).message}`),
        );
      this.state.current.clear();
      this.state.progress.state = end;
      this.ctx.emitProgress(this.state, true);
    }
  }

  /** Parse → chunk → index one version, then record its final status. Returns null when cancelled. */
  private async processVersion(
    sink: IndexSink,
    item: WorkItem,
    chunking: ChunkingOptions,
  ): Promise<IngestResultItem | null> {
    const key = `${item.fileId}@${item.version}`;
    this.setStage(item.name, 'parsing', item.size, 0, { fileId: item.fileId, version: item.version });
    this.emitFile(item, 'parsing', '', 'parsing');
    const parsed = await this.parseVersion(item, key, chunking);
    if (!parsed) return null;
    // Counted in reading.json while what the reader handed over is stored: this process dying
    // then may be the file's doing. While a reader works, this process dying is not (a reader's
    // own death is the pool's to judge), so a kill from outside never counts towards quarantine.
    await this.ctx.reading.increment(this.caseDir, key);
    const stored = await this.ctx.reading.during(this.caseDir, key, () => this.storeVersion(sink, item, key, parsed));
    if (!stored) return null;
    const { name, status, reason, pages } = stored;
    fileFinished(this.state, key, item.name, pages, item.size, status === 'failed');
    this.emitFile(item, status, reason, undefined, pages);
    this.ctx.emitProgress(this.state, true);
    return { file_id: item.fileId, name, version: item.version, status, reason };
  }

  /** Index a version's chunks, record its final status and register the files inside it. Null when cancelled. */
  private async storeVersion(
    sink: IndexSink,
    item: WorkItem,
    key: string,
    parsed: ParseResult,
  ): Promise<{ name: string; status: FinalStatus; reason: string; pages: number } | null> {
    const indexed = await this.indexVersion(sink, item, key, parsed);
    if (!indexed || this.signal.aborted) return null;
    const { status } = indexed;
    let { reason } = indexed;
    const { summary } = parsed;
    const name = await this.recordVersion(item, parsed, status, reason);
    if (summary.children?.length) reason = (await this.registerChildren(item.fileId, summary.children)) ?? reason;
    return { name, status, reason, pages: summary.pages };
  }

  /** Parse one version (or fail it without reading: empty, too large, copy missing). Null when cancelled. */
  private async parseVersion(item: WorkItem, key: string, chunking: ChunkingOptions): Promise<ParseResult | null> {
    const maxBytes = this.ctx.limits.maxFileBytes;
    try {
      if (item.size === 0) return failedResult('empty file');
      if (item.size > maxBytes)
        return failedResult(
          `too large (${Math.round(item.size / 1048576)} MB; the limit is ${Math.round(maxBytes / 1048576)} MB)`,
        );
      const blob = await this.store.localBlob(item.sha256, this.signal);
      if (!blob) return failedResult('the stored copy of this file is missing; add the file again');
      return await this.readInPool(item, key, blob, chunking);
    } catch (err) {
      if (isAbort(err) || this.signal.aborted) return null;
      // A reader that was stopped (memory, time) or died: the file is quarantined with the reason.
      return failedResult(err instanceof ReaderStopped ? err.message : `could not be read (${(err as Error).message})`);
    }
  }

  /** Read a version in a pool worker, with page and stage ticks. */
  private async readInPool(item: WorkItem, key: string, blob: string, chunking: ChunkingOptions): Promise<ParseResult> {
    const { state, store, ctx, ocr } = this;
    const password = ctx.ports.passwords.get(passwordKey(this.caseId, item.sha256));
    const file = await store.file(item.fileId);
    // The reader unpacks no more than what is left of the caps on what the dropped file expands to.
    const limits = { ...ctx.limits, ...(await this.innerLeft(file)) };
    const isLatest =
      latestVersion(file ?? { id: '', name: '', versions: [], doc_type_override: null })?.version === item.version;
    return ctx.pool().run(
      {
        caseDir: store.caseDir,
        blobPath: blob,
        name: item.name,
        fileId: item.fileId,
        version: item.version,
        isLatest,
        maxBytes: ctx.limits.maxFileBytes,
        limits,
        chunking,
        standardFontDataUrl: ctx.standardFontDataUrl,
        ...(ocr
          ? {
              ocr: {
                language: ocr.language,
                cacheDir: path.join(store.caseDir, 'ocr', `${item.sha256}-${ocr.language}`),
              },
            }
          : {}),
        ...(password !== undefined ? { password } : {}),
        ...(this.dayFirst ? { dayFirst: true } : {}),
        ...(file?.bates_prefix !== undefined ? { batesPrefix: file.bates_prefix } : {}),
      },
      {
        signal: this.signal,
        onPage: (done, total) => {
          const cur = state.current.get(item.name);
          if (cur) {
            cur.pages = total;
            cur.pagesDone = done;
            delete cur.ocrPage;
            if (cur.stage === 'parsing') {
              cur.done = done;
              cur.total = total;
            }
          }
          pagesKnown(state, key, total, item.size);
          // The first (page count known) and last ticks always go out, so a bar starts at 0 and ends at 1.
          ctx.emitProgress(state, done === 0 || done === total);
        },
        onStage: (stage) => this.setStage(item.name, stage, item.size),
        onOcrPage: (page, total) => {
          const cur = state.current.get(item.name);
          if (cur) Object.assign(cur, { ocrPage: page, pages: total });
          ctx.emitProgress(state, true);
        },
      },
    );
  }

  /** Embed and index a parsed version's chunks (or drop stale ones), and make it the latest where it is. Null when cancelled. */
  private async indexVersion(
    sink: IndexSink,
    item: WorkItem,
    key: string,
    parsed: ParseResult,
  ): Promise<{ status: FinalStatus; reason: string } | null> {
    const { state, signal } = this;
    const { summary, chunks } = parsed;
    let status: FinalStatus = summary.status;
    let reason = summary.reason;
    const written = status === 'indexed' && chunks.length > 0;
    try {
      if (written) {
        pagesKnown(state, key, summary.pages, item.size);
        // Keyword-searchable now; its vectors come from the run's embedding stage (embedAll).
        this.setStage(item.name, 'indexing', item.size, summary.pages);
        this.emitFile(item, 'indexing', '', 'indexing', summary.pages);
        await sink.indexVersion(chunks, { signal, defer: true, added: this.added.delete(key) });
        this.indexedFiles.add(item.fileId);
        // The run's coverage counts these passages now; the embedding stage picks them up.
        const share = await sink.embeddedShare(this.indexedFiles);
        if (share) state.progress.semantic = share;
        this.wakeEmbedding?.();
      } else if (!this.added.delete(key)) {
        // A redone version that indexed chunks before a crash and now yields none: drop them.
        await sink.removeFile(item.fileId, [item.version]);
      }
      // A file's only version whose rows went in as the latest leaves no row of the file to change:
      // no table write (a write commits even when it changes nothing, and slowed small files most).
      const file = await this.store.file(item.fileId);
      const latest = file ? (latestVersion(file)?.version ?? null) : null;
      const alone = file?.versions.length === 1 && (!written || chunks.every((c) => c.is_latest));
      if (latest === item.version && !alone) await sink.setLatest(item.fileId, latest);
    } catch (err) {
      if (isAbort(err) || signal.aborted) return null;
      status = 'failed';
      reason = `could not be added to the search index (${(err as Error).message})`;
      await sink.removeFile(item.fileId, [item.version]).catch(() => {});
    }
    return { status, reason };
  }

  /**
   * The files inside a file just read (an email's attachments, an archive's files), stored by the
   * reader: each is registered as a file of its own under the container's name and queued in this
   * run, like a dropped file (unchanged bytes stay as they are). Deeper than `maxNestingDepth`
   * containers, or not taken out, they are listed as failed with the reason. What one dropped file
   * expands to, at every level, is capped (`maxInnerFiles`, `maxInnerBytes`): past it, files are
   * not registered, and the dropped file and the container say so. Returns the container's
   * reason where that changed it.
   */
  private async registerChildren(parentId: string, children: StoredChild[]): Promise<string | undefined> {
    const now = new Date().toISOString();
    const { limits } = this.ctx;
    const tallies = await this.innerTallies();
    const added: WorkItem[] = [];
    const noted: IngestResultItem[] = [];
    await this.store.change((tx) => {
      const parent = tx.peek(parentId);
      if (!parent) return;
      const { top, depth } = ancestry(tx, parent);
      const tooDeep = depth >= limits.maxNestingDepth;
      let tally = tallies.get(top.id);
      if (!tally) tallies.set(top.id, (tally = { files: 0, bytes: 0 }));
      const records = changedRecords(tx);
      let over: 'files' | 'bytes' | undefined;
      let left = 0;
      for (const c of children) {
        const name = `${parent.name}/${c.name}`;
        if (!tx.editNamed(name)) {
          // A file not registered before counts towards what its dropped file expands to.
          over ??=
            tally.files >= limits.maxInnerFiles
              ? 'files'
              : tally.bytes + c.size > limits.maxInnerBytes
                ? 'bytes'
                : undefined;
          if (over) {
            left++;
            continue;
          }
          tally.files++;
          tally.bytes += c.size;
        }
        const reason = tooDeep
          ? `not read: it is nested more than ${limits.maxNestingDepth} ${limits.maxNestingDepth === 1 ? 'level' : 'levels'} deep (attachments of attachments, archives in archives).${raiseHint('maxNestingDepth')}`
          : c.reason;
        if (reason || !c.sha256)
          this.registerUnreadable(
            records,
            { name, size: c.size, reason: reason ?? 'could not be taken out of the file' },
            now,
          );
        else this.registerImported(records, { name, sha256: c.sha256, size: c.size }, now);
        const file = records.named(name);
        file.parent = parent.id;
        const v = latestVersion(file);
        if (v && v.status === 'queued' && !this.work.has(`${file.id}@${v.version}`))
          added.push({ fileId: file.id, name, version: v.version, size: v.size, sha256: v.sha256 });
      }
      if (!over) return;
      this.leftOut += left;
      noted.push(...this.noteLeftOut(tx, top.id, innerLimitNote(limits, over, true)));
      if (top.id !== parent.id)
        noted.push(
          ...this.noteLeftOut(
            tx,
            parent.id,
            `${left.toLocaleString('en-US')} of the files inside it were left out: ${innerLimitNote(limits, over, false)}`,
          ),
        );
    });
    for (const w of added) {
      this.work.set(`${w.fileId}@${w.version}`, w);
      this.state.unopened.set(`${w.fileId}@${w.version}`, w.size);
      this.state.progress.files_total++;
      this.state.progress.bytes_total += w.size;
    }
    this.queue.push(...added);
    let parentReason: string | undefined;
    for (const r of noted) {
      if (r.file_id === parentId) parentReason = r.reason;
      else {
        this.results.set(r.name, r);
        this.emitFile({ fileId: r.file_id, name: r.name, version: r.version }, r.status, r.reason);
      }
    }
    return parentReason;
  }

  /** Add `note` to the reason of a file's latest version (once); the file's result with it. */
  private noteLeftOut(tx: ManifestChange, fileId: string, note: string): IngestResultItem[] {
    const file = tx.edit(fileId);
    const v = file && latestVersion(file);
    if (!file || !v || v.reason.includes(note)) return [];
    v.reason = v.reason ? `${v.reason}; ${note}` : note;
    return [
      { file_id: file.id, name: file.name, version: v.version, status: v.status as IngestFileStatus, reason: v.reason },
    ];
  }

  /** What is left of the caps on what `file`'s dropped file expands to (at least 1: a limit is a positive number). */
  private async innerLeft(
    file: FileRecord | undefined,
  ): Promise<Pick<IngestLimits, 'maxInnerFiles' | 'maxInnerBytes'>> {
    const { maxInnerFiles, maxInnerBytes } = this.ctx.limits;
    let top = file;
    const seen = new Set<string>();
    while (top?.parent && !seen.has(top.id)) {
      seen.add(top.id);
      const up = await this.store.file(top.parent);
      if (!up) break;
      top = up;
    }
    const tally = top && (await this.innerTallies()).get(top.id);
    return {
      maxInnerFiles: Math.max(1, maxInnerFiles - (tally?.files ?? 0)),
      maxInnerBytes: Math.max(1, maxInnerBytes - (tally?.bytes ?? 0)),
    };
  }

  /**
   * For each file added itself, the files taken out of it at every level so far and their bytes:
   * counted from the manifest once a run (files registered in earlier runs count), then kept up.
   */
  private async innerTallies(): Promise<Map<string, { files: number; bytes: number }>> {
    if (this.tallies) return this.tallies;
    const files = await this.store.files();
    const byId = new Map(files.map((f) => [f.id, f]));
    const tallies = new Map<string, { files: number; bytes: number }>();
    for (const f of files) {
      if (!f.parent) continue;
      let top = f;
      const seen = new Set<string>();
      for (let up = byId.get(top.parent!); up && !seen.has(up.id); up = up.parent ? byId.get(up.parent) : undefined) {
        seen.add(up.id);
        top = up;
      }
      const tally = tallies.get(top.id) ?? { files: 0, bytes: 0 };
      tally.files++;
      tally.bytes += latestVersion(f)?.size ?? 0;
      tallies.set(top.id, tally);
    }
    return (this.tallies ??= tallies);
  }

  /** Record a version's final status in the manifest; returns the file's name there (renamed since?). */
  private async recordVersion(
    item: WorkItem,
    parsed: ParseResult,
    status: FinalStatus,
    reason: string,
  ): Promise<string> {
    const { summary, chunks } = parsed;
    let name = item.name;
    await this.store.change((tx) => {
      const file = tx.edit(item.fileId);
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
        ...(summary.ocrPages?.length ? { ocr_pages: summary.ocrPages } : {}),
        ...(summary.locked ? { locked: true as const } : {}),
        ...(summary.email ? { email: summary.email } : {}),
        ...(summary.annotations ? { annotations: summary.annotations } : {}),
        ...(summary.bates ? { bates: summary.bates } : {}),
        ...(summary.transcript ? { transcript: summary.transcript } : {}),
        chunks: status === 'indexed' ? chunks.length : 0,
        ingested_at: new Date().toISOString(),
      } satisfies Partial<VersionRecord>);
    });
    return name;
  }
}

/** What one dropped file may expand to, passed: in plain words, for the dropped file (`top`) or a container inside it. */
function innerLimitNote(limits: IngestLimits, over: 'files' | 'bytes', top: boolean): string {
  const counting = 'counting the files inside the files it holds';
  if (over === 'files') {
    const n = limits.maxInnerFiles.toLocaleString('en-US');
    return top
      ? `it holds more than ${n} files in all, ${counting}: the first ${n} were added, the rest were left out.${raiseHint('maxInnerFiles')}`
      : `the file it came from holds more than ${n} files in all, ${counting}.${raiseHint('maxInnerFiles')}`;
  }
  const size = formatBytes(limits.maxInnerBytes);
  return top
    ? `the files inside it add up to more than ${size} in all, ${counting}: the files past that were left out.${raiseHint('maxInnerBytes')}`
    : `the files inside the file it came from add up to more than ${size} in all, ${counting}.${raiseHint('maxInnerBytes')}`;
}

/** File records by name, to change: the one of a name, added (with no versions yet) when there is none. */
interface Records {
  named(name: string): FileRecord;
}

/** The records of a whole manifest (a run's start), found by name through an index. */
function manifestRecords(m: FileManifest): Records {
  const byName = new Map<string, FileRecord>();
  for (const f of m.files) if (!byName.has(f.name)) byName.set(f.name, f);
  return {
    named(name) {
      let file = byName.get(name);
      if (!file) {
        file = { id: newId('f', 12), name, versions: [], doc_type_override: null };
        m.files.push(file);
        byName.set(name, file);
      }
      return file;
    },
  };
}

/** The records of a change to a few of them (a container's children). */
function changedRecords(tx: ManifestChange): Records {
  return {
    named(name) {
      let file = tx.editNamed(name);
      if (!file) {
        file = { id: newId('f', 12), name, versions: [], doc_type_override: null };
        tx.add(file);
      }
      return file;
    },
  };
}

/** The file a file was taken out of at the top (itself for a file that was added itself), and how many containers it is inside. */
function ancestry(tx: ManifestChange, file: Readonly<FileRecord>): { top: Readonly<FileRecord>; depth: number } {
  let top = file;
  let depth = 0;
  const seen = new Set<string>([file.id]);
  for (
    let up = file.parent ? tx.peek(file.parent) : undefined;
    up && !seen.has(up.id);
    up = up.parent ? tx.peek(up.parent) : undefined
  ) {
    seen.add(up.id);
    top = up;
    depth++;
  }
  // A parent that is no longer listed still counts as a level.
  if (top.parent && !seen.has(top.parent)) depth++;
  return { top, depth };
}

/** Remove and return the largest (in bytes) item of `queue`; the first of equals. */
function takeLargest(queue: WorkItem[]): WorkItem | undefined {
  let best = 0;
  for (let i = 1; i < queue.length; i++) if (queue[i]!.size > queue[best]!.size) best = i;
  return queue.splice(best, 1)[0];
}
