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

/**
 * Smoothing of what is shown. A raw estimate follows each file's speed, so it swung from minutes
 * to seconds and back within seconds; the shown one counts down by itself, moves towards each new raw
 * estimate over about {@link ETA_SMOOTHING_SECONDS}, and never grows or shrinks faster than
 * doubling (halving) every {@link ETA_DOUBLING_SECONDS} — so no 5× jump within seconds.
 */
export const ETA_SMOOTHING_SECONDS = 8;
export const ETA_DOUBLING_SECONDS = 5;

/** A shown estimate: its seconds left as of `at` (ms). */
export interface ShownEta {
  seconds: number;
  at: number;
}

/** The estimate to show at `now`, from the one shown before (null: none yet) and the new raw one (null: none). */
export function smoothEta(prev: ShownEta | null, raw: number | null, now: number): ShownEta | null {
  if (!prev) return raw === null ? null : { seconds: Math.max(0, raw), at: now };
  const dt = Math.max(0, (now - prev.at) / 1000);
  const predicted = Math.max(0, prev.seconds - dt);
  if (raw === null) return { seconds: predicted, at: now };
  const toward = predicted + (1 - Math.exp(-dt / ETA_SMOOTHING_SECONDS)) * (Math.max(0, raw) - predicted);
  const limit = 2 ** (dt / ETA_DOUBLING_SECONDS);
  // Up: at most the doubling rate over what was shown (from 1 s when it was 0, which no factor
  // could move); down: at most the halving rate below the countdown.
  const bounded = Math.min(Math.max(toward, predicted / limit), Math.max(prev.seconds, 1) * limit);
  return { seconds: bounded, at: now };
}
