import { describe, expect, it } from 'vitest';
import {
  RUN_ETA_MIN_FRACTION,
  RUN_ETA_MIN_PAGES,
  runEtaSeconds,
  stageEtaSeconds,
  STAGE_ETA_MIN_FRACTION,
} from '../../src/core/ingest/eta';

const run = { running: true, done: 0, total: 1_000_000, pagesDone: 0, elapsedSeconds: 0 };

describe('ingest time left: by work done, never by seconds elapsed', () => {
  it('a run has no estimate before any work, or a finished run has 0 left', () => {
    expect(runEtaSeconds({ ...run, elapsedSeconds: 600 })).toBeNull();
    expect(runEtaSeconds({ ...run, total: 0, done: 0, elapsedSeconds: 5 })).toBeNull();
    expect(runEtaSeconds({ ...run, running: false, done: 10 })).toBe(0);
  });

  it('a run estimates once 2 % of its work or 10 pages are done — however long or short that took', () => {
    const justUnder = { ...run, done: run.total * RUN_ETA_MIN_FRACTION * 0.99, pagesDone: RUN_ETA_MIN_PAGES - 1 };
    // Too little seen: no estimate, even after a long time (a slow machine) …
    expect(runEtaSeconds({ ...justUnder, elapsedSeconds: 300 })).toBeNull();
    // … and, once enough is done, an estimate even if that took a fraction of a second (a fast machine).
    expect(runEtaSeconds({ ...run, done: run.total * RUN_ETA_MIN_FRACTION, elapsedSeconds: 0.2 })).toBe(
      Math.round(0.2 * 49),
    );
    expect(runEtaSeconds({ ...run, done: 1000, pagesDone: RUN_ETA_MIN_PAGES, elapsedSeconds: 0.5 })).toBe(
      Math.round((0.5 / 1000) * 999_000),
    );
    // The same progress on a machine 10× slower: the estimate appears at the same point, 10× longer.
    const at = { ...run, done: 250_000 };
    expect(runEtaSeconds({ ...at, elapsedSeconds: 4 })).toBe(12);
    expect(runEtaSeconds({ ...at, elapsedSeconds: 40 })).toBe(120);
    // All done but still running (the last file being written): nothing left.
    expect(runEtaSeconds({ ...run, done: run.total, elapsedSeconds: 9 })).toBe(0);
  });

  it('a file stage estimates once 5 % of its count is done, and not at its end', () => {
    expect(stageEtaSeconds(null, null, 10)).toBeNull();
    expect(stageEtaSeconds(0, 200, 10)).toBeNull();
    expect(stageEtaSeconds(9, 200, 60)).toBeNull();
    const atMin = 200 * STAGE_ETA_MIN_FRACTION;
    expect(stageEtaSeconds(atMin, 200, 0.1)).toBe(Math.round(0.1 * 19));
    expect(stageEtaSeconds(atMin, 200, 3)).toBe(57);
    expect(stageEtaSeconds(100, 200, 20)).toBe(20);
    expect(stageEtaSeconds(200, 200, 20)).toBeNull();
  });
});
