/**
 * When ingest shows "about N left", and what N is. The estimate appears once enough *work* has been
 * seen to extrapolate from, never after a number of seconds: a gate in seconds made the estimate
 * depend on machine speed (a fast machine could finish a stage before it opened; a snapshot taken
 * just before it opened stayed on screen until the next event, "estimating time left…").
 */

/** Least share of a run's work done before its rate is extrapolated to the whole run… */
export const RUN_ETA_MIN_FRACTION = 0.02;
/** …or this many pages parsed (a large run reaches 2 % late). */
export const RUN_ETA_MIN_PAGES = 10;
/** Least share of one file's stage (pages parsed, chunks embedded) done before that stage's estimate. */
export const STAGE_ETA_MIN_FRACTION = 0.05;

export interface RunWork {
  /** Is the run still running (a finished or cancelled run has nothing left: 0). */
  running: boolean;
  /** Work done and in all (bytes, weighted by how far each file in flight is). */
  done: number;
  total: number;
  pagesDone: number;
  /** Seconds since the run started. */
  elapsedSeconds: number;
}

/** Seconds left for a whole run, or null while too little work is done to say. */
export function runEtaSeconds(w: RunWork): number | null {
  if (!w.running) return 0;
  if (!(w.done > 0) || !(w.total > 0)) return null;
  const enough = w.done / w.total >= RUN_ETA_MIN_FRACTION || w.pagesDone >= RUN_ETA_MIN_PAGES;
  if (!enough) return null;
  const remaining = Math.max(0, w.total - w.done);
  return Math.round((Math.max(0, w.elapsedSeconds) / w.done) * remaining);
}

/** Seconds left in one file's current stage from its count so far, or null while too little of it is done. */
export function stageEtaSeconds(done: number | null, total: number | null, secondsInStage: number): number | null {
  if (done === null || total === null || !(total > 0) || !(done > 0)) return null;
  const fraction = Math.min(1, done / total);
  if (fraction < STAGE_ETA_MIN_FRACTION || fraction >= 1) return null;
  return Math.round((Math.max(0, secondsInStage) * (1 - fraction)) / fraction);
}
