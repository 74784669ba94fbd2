import { describe, expect, it } from 'vitest';
import { ETA_DOUBLING_SECONDS, smoothEta, type ShownEta } from '../../src/core/ingest/eta';
import { newRunProgress, setStage, snapshot } from '../../src/core/ingest/progress';

const T0 = 1_000_000;

/** Feed raw estimates (one per `stepMs`) and return what would be shown after each. */
function shownFor(raws: (number | null)[], stepMs: number): { at: number; seconds: number }[] {
  let shown: ShownEta | null = null;
  const out: { at: number; seconds: number }[] = [];
  raws.forEach((raw, i) => {
    shown = smoothEta(shown, raw, T0 + i * stepMs);
    if (shown) out.push({ at: shown.at, seconds: shown.seconds });
  });
  return out;
}

describe('time left as shown: smoothed', () => {
  it('shows the first estimate as it is, and nothing before there is one', () => {
    expect(smoothEta(null, null, T0)).toBeNull();
    expect(smoothEta(null, 133, T0)).toEqual({ seconds: 133, at: T0 });
  });

  it('counts down by itself while no new estimate comes', () => {
    const later = smoothEta({ seconds: 60, at: T0 }, null, T0 + 10_000)!;
    expect(later.seconds).toBeCloseTo(50);
    expect(smoothEta({ seconds: 5, at: T0 }, null, T0 + 10_000)!.seconds).toBe(0);
  });

  it('the CLI swing (2m13s → 17s → 37s within seconds) moves the shown time by less than 2× in 5 s', () => {
    // Raw estimates every 0.5 s that jump between 133, 17 and 37 s.
    const raws = Array.from({ length: 60 }, (_, i) => [133, 133, 17, 17, 37, 37, 133, 17][i % 8]!);
    const shown = shownFor(raws, 500);
    for (const a of shown) {
      for (const b of shown) {
        const dt = (b.at - a.at) / 1000;
        if (dt <= 0 || dt > ETA_DOUBLING_SECONDS) continue;
        // Never more than twice what was shown 5 s before, nor under half of it counted down.
        const said = `${a.seconds.toFixed(1)} s → ${b.seconds.toFixed(1)} s in ${dt} s`;
        expect(b.seconds, said).toBeLessThanOrEqual(2.0001 * a.seconds);
        expect(b.seconds, said).toBeGreaterThanOrEqual((a.seconds - dt) / 2.0001);
      }
    }
  });

  it('settles on a steady estimate: after a minute of "about 100 s" the shown time is within 5 % of it', () => {
    // A steady run: each raw estimate is 100 s less the time gone by, as a real countdown is.
    const raws = Array.from({ length: 121 }, (_, i) => 200 - i * 0.5);
    const shown = shownFor([20, ...raws.slice(1)], 500);
    const last = shown.at(-1)!;
    expect(Math.abs(last.seconds - raws.at(-1)!)).toBeLessThan(0.05 * raws.at(-1)!);
  });

  it('grows from almost nothing when work turns out to remain (from 0 s, too)', () => {
    const shown = shownFor([0, ...Array.from({ length: 40 }, () => 120)], 500);
    expect(shown.at(-1)!.seconds).toBeGreaterThan(10);
  });
});

describe('time left of a run', () => {
  it('is never less than the running file still needs', () => {
    const s = newRunProgress('c1', 'j1', T0);
    Object.assign(s.progress, { files_total: 2, files_done: 1, bytes_total: 2000, bytes_done: 1000 });
    // The second file has parsed 10 of 100 pages in 10 s: its stage needs about 90 s more,
    // while the run's bytes (the first file's whole size done) say about 12 s.
    setStage(s, T0, 'big.pdf', 'parsing', 1000, 100, { fileId: 'f2', version: 1 }, { done: 10, total: 100 });
    s.current.get('big.pdf')!.pagesDone = 10;
    const snap = snapshot(s, T0 + 10_000, []);
    const file = snap.current[0]!.eta_seconds!;
    expect(file).toBe(90);
    expect(snap.eta_seconds!).toBeGreaterThanOrEqual(file);
  });

  it('a file entering a new stage starts its estimate afresh', () => {
    const s = newRunProgress('c1', 'j1', T0);
    Object.assign(s.progress, { files_total: 1, bytes_total: 1000 });
    setStage(s, T0, 'a.pdf', 'parsing', 1000, 100, { fileId: 'f1', version: 1 }, { done: 50, total: 100 });
    expect(snapshot(s, T0 + 50_000, []).current[0]!.eta_seconds).toBe(50);
    setStage(s, T0 + 50_000, 'a.pdf', 'embedding', 1000, 100, undefined, { done: 10, total: 20 });
    // Embedding 10 of 20 chunks in 2 s: 2 s more, not the parsing stage's 48 s counted down.
    expect(snapshot(s, T0 + 52_000, []).current[0]!.eta_seconds).toBe(2);
  });
});
