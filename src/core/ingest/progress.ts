/**
 * Progress of an ingest run: what is in flight, how far each file is, and the snapshot that
 * `ingest.progress` events and `ingest.status` carry. Pure arithmetic over a {@link RunProgress}:
 * every function that needs the time takes `now` (ms since the epoch) instead of reading a clock,
 * so it is unit-tested directly (test/unit/ingest-progress.test.ts).
 */
import type { IngestCurrentFile, IngestFileStatus, IngestProgress, IngestStage } from '../../shared/contract/ingest';
import { runEtaSeconds, smoothEta, stageEtaSeconds, type ShownEta } from './eta';

/** A file in flight: its stage, and that stage's count (pages parsed, chunks embedded). */
export interface CurrentFile {
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
  /** The page being read by OCR now (until that page is done). */
  ocrPage?: number;
  /** The stage's time left as last shown (smoothed), and the stage it was for. */
  shown?: { stage: IngestStage; eta: ShownEta | null };
}

/** The counting part of a run's state. */
export interface RunProgress {
  progress: IngestProgress;
  /** When the run started (ms). */
  started: number;
  /** When progress was last emitted (ms), for the throttle. */
  lastEmit: number;
  current: Map<string, CurrentFile>;
  /** Work items whose page count is not known yet (key → bytes), for the pagesTotal estimate. */
  unopened: Map<string, number>;
  /** Pages and bytes of the files of this run whose page count is known (pages-per-byte basis). */
  knownPages: number;
  knownBytes: number;
  /** The run's time left as last shown (smoothed). */
  shownEta?: ShownEta | null;
}

/** Page ticks closer together than this are not emitted (stage changes always are). */
export const EMIT_INTERVAL_MS = 200;

/**
 * Share of a file's work that parsing stands for in the overall bar and ETA; the rest is
 * embedding + indexing, which on a CPU is the slower part. Without this an ingest looked finished
 * ("0s left") while the last file was still being embedded.
 */
export const PARSE_SHARE = 0.4;

/** The status `files.list` shows for a version in flight, by stage. */
export const LIVE_STATUS: Record<IngestStage, IngestFileStatus> = {
  hashing: 'parsing',
  parsing: 'parsing',
  chunking: 'parsing',
  embedding: 'embedding',
  indexing: 'indexing',
};

/** A fresh run's progress: nothing counted yet. */
export function newRunProgress(caseId: string, jobId: string, now: number): RunProgress {
  return {
    started: now,
    lastEmit: 0,
    current: new Map(),
    unopened: new Map(),
    knownPages: 0,
    knownBytes: 0,
    progress: {
      case_id: caseId,
      job_id: jobId,
      state: 'running',
      files_done: 0,
      files_total: 0,
      pages_done: 0,
      pages_total: 0,
      pages_estimated: true,
      bytes_done: 0,
      bytes_total: 0,
      current: [],
      errors: 0,
      eta_seconds: null,
      elapsed_seconds: 0,
      waiting: [],
    },
  };
}

/** How far along an in-flight file is (0–1), from its stage and the stage's own count. */
export function fileFraction(c: CurrentFile): number {
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

/** An in-flight file as the contract shows it, with its stage's count and time left at `now`. */
export function currentFile(c: CurrentFile, now: number): IngestCurrentFile {
  const counted = c.done !== null && c.total !== null && c.total > 0;
  const fraction = counted ? Math.min(1, Math.max(0, c.done! / c.total!)) : null;
  const inStage = (now - c.stageStarted) / 1000;
  const etaSeconds = counted ? stageEtaSeconds(c.done, c.total, inStage) : null;
  return {
    name: c.name,
    file_id: c.fileId,
    version: c.version,
    stage: c.stage,
    done: counted ? c.done : null,
    total: counted ? c.total : null,
    fraction,
    pages: c.pages > 0 ? c.pages : null,
    eta_seconds: etaSeconds,
    ...(c.ocrPage !== undefined && c.stage === 'parsing' ? { ocr_page: c.ocrPage } : {}),
  };
}

/** A file enters a stage (or gets its page count or ids) at `now`; a new stage restarts its count and clock. */
export function setStage(
  state: RunProgress,
  now: number,
  name: string,
  stage: IngestStage,
  bytes: number,
  pages = 0,
  ids?: { fileId: string; version: number },
  count: { done: number; total: number } | null = null,
): void {
  const cur = state.current.get(name);
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
    state.current.set(name, {
      name,
      fileId: ids?.fileId ?? null,
      version: ids?.version ?? null,
      stage,
      pages,
      pagesDone: 0,
      bytes,
      done: count?.done ?? null,
      total: count?.total ?? null,
      stageStarted: now,
    });
  }
}

/** A work item's page count is known (opened, or finished): it leaves the estimate and joins its basis. */
export function pagesKnown(state: RunProgress, key: string, pages: number, bytes: number): void {
  if (!state.unopened.has(key)) return;
  state.unopened.delete(key);
  if (pages > 0) {
    state.knownPages += pages;
    state.knownBytes += bytes;
  }
}

/** A version is finished (any status): its pages and bytes move from in flight to done. */
export function fileFinished(
  state: RunProgress,
  key: string,
  name: string,
  pages: number,
  bytes: number,
  failed: boolean,
): void {
  pagesKnown(state, key, pages, bytes);
  state.unopened.delete(key);
  state.progress.pages_done += pages;
  state.progress.pages_total += pages;
  state.progress.bytes_done += bytes;
  state.progress.files_done++;
  if (failed) state.progress.errors++;
  state.current.delete(name);
}

/** Should progress go out at `now` (a forced one always; otherwise at most every {@link EMIT_INTERVAL_MS})? Records the emit. */
export function takeEmit(state: RunProgress, now: number, force: boolean): boolean {
  if (!force && now - state.lastEmit < EMIT_INTERVAL_MS) return false;
  state.lastEmit = now;
  return true;
}

/** An in-flight file as shown at `now`: its stage's time left smoothed (afresh for each stage). */
function shownFile(c: CurrentFile, now: number): IngestCurrentFile {
  const raw = currentFile(c, now);
  const prev = c.shown?.stage === c.stage ? c.shown.eta : null;
  const eta = smoothEta(prev, raw.eta_seconds, now);
  c.shown = { stage: c.stage, eta };
  return { ...raw, eta_seconds: eta ? Math.round(eta.seconds) : null };
}

/**
 * The run's time left as shown: smoothed, and never less than any file in flight still needs
 * (it said "about 11 s left" while its running file said "about 23 s").
 */
function runEta(
  state: RunProgress,
  now: number,
  work: Parameters<typeof runEtaSeconds>[0],
  current: IngestCurrentFile[],
): number | null {
  const raw = runEtaSeconds(work);
  if (!work.running) return raw;
  state.shownEta = smoothEta(state.shownEta ?? null, raw, now);
  if (!state.shownEta) return null;
  const longest = Math.max(0, ...current.map((c) => c.eta_seconds ?? 0));
  return Math.max(Math.round(state.shownEta.seconds), longest);
}

/**
 * The run's progress at `now`: done counts plus the files in flight (weighted by how far each is),
 * pages of files not opened yet estimated from the pages-per-byte seen so far, and the time left.
 * `waiting` names what runs queued behind this one will add. The times left are smoothed: the
 * state keeps what was last shown (and nothing else is changed by taking a snapshot).
 */
export function snapshot(state: RunProgress, now: number, waiting: string[]): IngestProgress {
  const p = state.progress;
  let pagesDone = p.pages_done;
  let pagesTotal = p.pages_total;
  let bytesDone = p.bytes_done;
  for (const c of state.current.values()) {
    pagesDone += c.pagesDone;
    pagesTotal += c.pages;
    bytesDone += c.bytes * fileFraction(c);
  }
  // Files not opened yet: estimated from their bytes at the pages-per-byte of the files opened so far.
  let unopenedBytes = 0;
  for (const b of state.unopened.values()) unopenedBytes += b;
  const pagesEstimated = p.state === 'running' && (state.unopened.size > 0 || p.files_total === 0);
  if (state.unopened.size > 0 && state.knownBytes > 0)
    pagesTotal += Math.round((unopenedBytes * state.knownPages) / state.knownBytes);
  pagesTotal = Math.max(pagesTotal, pagesDone);
  const elapsed = (now - state.started) / 1000;
  const current = [...state.current.values()].map((c) => shownFile(c, now));
  const eta = runEta(
    state,
    now,
    { running: p.state === 'running', done: bytesDone, total: p.bytes_total, pagesDone, elapsedSeconds: elapsed },
    current,
  );
  return {
    ...p,
    pages_done: pagesDone,
    pages_total: pagesTotal,
    pages_estimated: pagesEstimated,
    bytes_done: Math.round(bytesDone),
    current,
    eta_seconds: eta,
    elapsed_seconds: Math.round(elapsed * 10) / 10,
    waiting,
  };
}
