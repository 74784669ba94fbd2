import { semanticText } from '../../src/shared/format';
import { describe, expect, it } from 'vitest';
import {
  currentFile,
  EMIT_INTERVAL_MS,
  fileFinished,
  fileFraction,
  newRunProgress,
  PARSE_SHARE,
  pagesKnown,
  setStage,
  snapshot,
  takeEmit,
  type CurrentFile,
} from '../../src/core/ingest/progress';

/** Times in ms from an arbitrary epoch: the clock is passed in, never read. */
const T0 = 1_000_000;

function file(over: Partial<CurrentFile> = {}): CurrentFile {
  return {
    name: 'a.pdf',
    fileId: 'f1',
    version: 1,
    stage: 'parsing',
    pages: 0,
    pagesDone: 0,
    bytes: 1000,
    done: null,
    total: null,
    stageStarted: T0,
    ...over,
  };
}

describe('ingest progress: how far each file in flight is', () => {
  it('parsing is the first 40 % of a file, embedding most of the rest, indexing nearly done', () => {
    expect(fileFraction(file({ stage: 'hashing' }))).toBe(0);
    expect(fileFraction(file({ stage: 'parsing', pages: 0 }))).toBe(0);
    expect(fileFraction(file({ stage: 'parsing', pages: 10, pagesDone: 5 }))).toBeCloseTo(PARSE_SHARE / 2);
    expect(fileFraction(file({ stage: 'parsing', pages: 10, pagesDone: 20 }))).toBeCloseTo(PARSE_SHARE);
    expect(fileFraction(file({ stage: 'chunking' }))).toBe(PARSE_SHARE);
    expect(fileFraction(file({ stage: 'embedding', done: 0, total: 0 }))).toBe(PARSE_SHARE);
    expect(fileFraction(file({ stage: 'embedding', done: 50, total: 100 }))).toBeCloseTo(
      PARSE_SHARE + (1 - PARSE_SHARE) * 0.95 * 0.5,
    );
    expect(fileFraction(file({ stage: 'embedding', done: 100, total: 100 }))).toBeCloseTo(
      PARSE_SHARE + (1 - PARSE_SHARE) * 0.95,
    );
    expect(fileFraction(file({ stage: 'indexing' }))).toBe(0.97);
  });

  it('a file in flight shows its stage count and its time left from the clock passed in', () => {
    const c = file({ stage: 'embedding', done: 50, total: 200, pages: 12, stageStarted: T0 });
    expect(currentFile(c, T0 + 10_000)).toEqual({
      name: 'a.pdf',
      file_id: 'f1',
      version: 1,
      stage: 'embedding',
      done: 50,
      total: 200,
      fraction: 0.25,
      pages: 12,
      eta_seconds: 30,
    });
    // The same count seen later: more time per chunk, more left.
    expect(currentFile(c, T0 + 20_000).eta_seconds).toBe(60);
    // No count yet: no fraction, no estimate, no pages.
    expect(currentFile(file({ stage: 'hashing' }), T0 + 5000)).toMatchObject({
      done: null,
      total: null,
      fraction: null,
      pages: null,
      eta_seconds: null,
    });
  });
});

describe('ingest progress: stages and counts', () => {
  it('a new stage restarts its count and clock; the same stage keeps them', () => {
    const s = newRunProgress('c1', 'j1', T0);
    setStage(s, T0 + 100, 'a.pdf', 'parsing', 1000, 0, { fileId: 'f1', version: 2 });
    expect(s.current.get('a.pdf')).toMatchObject({
      fileId: 'f1',
      version: 2,
      stage: 'parsing',
      stageStarted: T0 + 100,
      done: null,
      total: null,
    });
    s.current.get('a.pdf')!.done = 3;
    setStage(s, T0 + 200, 'a.pdf', 'parsing', 1000, 7);
    expect(s.current.get('a.pdf')).toMatchObject({ stage: 'parsing', stageStarted: T0 + 100, done: 3, pages: 7 });
    setStage(s, T0 + 300, 'a.pdf', 'embedding', 1000, 7, undefined, { done: 0, total: 40 });
    expect(s.current.get('a.pdf')).toMatchObject({
      stage: 'embedding',
      stageStarted: T0 + 300,
      done: 0,
      total: 40,
      pages: 7,
      fileId: 'f1',
    });
  });

  it('pages of files not opened yet are estimated at the pages-per-byte seen so far', () => {
    const s = newRunProgress('c1', 'j1', T0);
    s.progress.files_total = 3;
    s.progress.bytes_total = 3000;
    s.unopened.set('f1@1', 1000).set('f2@1', 1000).set('f3@1', 1000);
    // Nothing opened: no basis, the total is what is known (0), estimated.
    expect(snapshot(s, T0, [])).toMatchObject({ pages_total: 0, pages_estimated: true });
    pagesKnown(s, 'f1@1', 10, 1000);
    pagesKnown(s, 'f1@1', 99, 1000); // once only
    expect(s.knownPages).toBe(10);
    expect(snapshot(s, T0, [])).toMatchObject({ pages_total: 20, pages_estimated: true });
    pagesKnown(s, 'f2@1', 30, 1000);
    // Basis: 40 pages in 2000 bytes; f3 (1000 bytes) is estimated at 20.
    expect(snapshot(s, T0, []).pages_total).toBe(20);
    pagesKnown(s, 'f3@1', 0, 1000); // a file with no pages leaves the estimate but not the basis
    expect(s.knownBytes).toBe(2000);
    expect(snapshot(s, T0, [])).toMatchObject({ pages_estimated: false });
  });

  it('a finished file moves from in flight to done', () => {
    const s = newRunProgress('c1', 'j1', T0);
    s.progress.files_total = 2;
    s.unopened.set('f1@1', 500);
    setStage(s, T0, 'a.pdf', 'indexing', 500, 4);
    fileFinished(s, 'f1@1', 'a.pdf', 4, 500, true);
    expect(s.current.size).toBe(0);
    expect(s.unopened.size).toBe(0);
    expect(s.progress).toMatchObject({ pages_done: 4, pages_total: 4, bytes_done: 500, files_done: 1, errors: 1 });
    expect(s.knownPages).toBe(4);
  });
});

describe('ingest progress: the snapshot at a given time', () => {
  it('counts done work plus each file in flight by how far it is, and times the run from the clock passed in', () => {
    const s = newRunProgress('c1', 'j1', T0);
    Object.assign(s.progress, {
      files_total: 2,
      files_done: 1,
      bytes_total: 2000,
      bytes_done: 1000,
      pages_done: 5,
      pages_total: 5,
    });
    s.current.set('b.pdf', file({ name: 'b.pdf', stage: 'parsing', pages: 10, pagesDone: 5, bytes: 1000 }));
    const snap = snapshot(s, T0 + 12_345, ['next.pdf']);
    expect(snap).toMatchObject({
      case_id: 'c1',
      job_id: 'j1',
      state: 'running',
      pages_done: 10,
      pages_total: 15,
      pages_estimated: false,
      bytes_done: 1200,
      elapsed_seconds: 12.3,
      waiting: ['next.pdf'],
    });
    expect(snap.current).toHaveLength(1);
    // 1200 of 2000 bytes in 12.345 s: 800 more at the same rate.
    expect(snap.eta_seconds).toBe(Math.round((12.345 / 1200) * 800));
    // The state itself is not changed by taking a snapshot.
    expect(s.progress.bytes_done).toBe(1000);
  });

  it('a finished run has nothing left and is not estimated; the total never falls below what is done', () => {
    const s = newRunProgress('c1', 'j1', T0);
    Object.assign(s.progress, {
      state: 'done',
      files_total: 1,
      files_done: 1,
      bytes_total: 100,
      bytes_done: 100,
      pages_done: 3,
      pages_total: 2,
    });
    expect(snapshot(s, T0 + 1000, [])).toMatchObject({
      eta_seconds: 0,
      pages_estimated: false,
      pages_total: 3,
      elapsed_seconds: 1,
    });
  });

  it('progress goes out at most every 200 ms unless forced', () => {
    const s = newRunProgress('c1', 'j1', T0);
    expect(takeEmit(s, T0, false)).toBe(true);
    expect(takeEmit(s, T0 + EMIT_INTERVAL_MS - 1, false)).toBe(false);
    expect(takeEmit(s, T0 + 50, true)).toBe(true);
    expect(s.lastEmit).toBe(T0 + 50);
    expect(takeEmit(s, T0 + 50 + EMIT_INTERVAL_MS, false)).toBe(true);
  });
});

describe('the semantic stage in words', () => {
  it('"semantic search 38% (2,880 of 7,560 passages)" while vectors are made; nothing once done or without vectors', () => {
    expect(semanticText({ semantic: { embedded: 2880, total: 7560 } })).toBe(
      'semantic search 38% (2,880 of 7,560 passages)',
    );
    expect(semanticText({ semantic: { embedded: 7560, total: 7560 } })).toBe('');
    expect(semanticText({})).toBe('');
  });
});
