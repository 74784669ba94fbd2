/**
 * The two stages of an ingest, held apart for a test: passages' vectors stopped on their way into
 * the table until the test lets them through, and the moments a run becomes searchable and ends.
 */
import type { Engine } from '../../src/core/engine';
import { ChunkStore } from '../../src/core/retrieval/store';
import type { IngestProgress } from '../../src/shared/contract/ingest';

export interface HeldVectors {
  /** Resolves once the first `pass` batches are in the table (at once for 0). */
  passed: Promise<void>;
  /** Let the held batches (and all later ones) through. */
  release(): void;
  /** Put ChunkStore back as it was, releasing anything still held. */
  restore(): void;
}

/** Hold every batch of vectors after the first `pass` (ChunkStore.setVectors) until `release()`. */
export function holdVectors(pass = 0): HeldVectors {
  const setVectors = ChunkStore.prototype.setVectors;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let passedAll!: () => void;
  const passed = new Promise<void>((resolve) => (passedAll = resolve));
  if (pass === 0) passedAll();
  let calls = 0;
  ChunkStore.prototype.setVectors = async function (this: ChunkStore, ...args: Parameters<typeof setVectors>) {
    if (calls++ < pass) {
      await setVectors.apply(this, args);
      if (calls === pass) passedAll();
      return;
    }
    await gate;
    return setVectors.apply(this, args);
  };
  return {
    passed,
    release,
    restore() {
      ChunkStore.prototype.setVectors = setVectors;
      release();
    },
  };
}

export interface IngestMoments {
  /** Resolves when `files` files of the case are indexed (found by their words). */
  searchable: Promise<void>;
  /** Resolves when the case's run is no longer running. */
  done: Promise<void>;
  /** Every progress event of the case, as sent. */
  progress: IngestProgress[];
  /** Stop listening. */
  off(): void;
}

/** Listen to a case's ingest events: when `files` files are indexed, and when the run ends. */
export function ingestMoments(engine: Engine, caseId: string, files: number): IngestMoments {
  const indexed = new Set<string>();
  const progress: IngestProgress[] = [];
  let allIndexed!: () => void;
  const searchable = new Promise<void>((resolve) => (allIndexed = resolve));
  let ended!: () => void;
  const done = new Promise<void>((resolve) => (ended = resolve));
  const offFile = engine.events.on('ingest.file', (e) => {
    if (e.case_id === caseId && e.status === 'indexed') indexed.add(e.name);
    if (indexed.size === files) allIndexed();
  });
  const offProgress = engine.events.on('ingest.progress', (p) => {
    if (p.case_id !== caseId) return;
    progress.push(structuredClone(p));
    if (p.state !== 'running') ended();
  });
  return {
    searchable,
    done,
    progress,
    off() {
      offFile();
      offProgress();
    },
  };
}
