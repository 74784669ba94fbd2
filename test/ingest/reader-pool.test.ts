import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/core/domain/limits';
import { readerV8Flags, WorkerPool } from '../../src/core/ingest/pool';
import { DEFAULT_CHUNKING } from '../../src/core/domain/types';
import { CUAD_SMALL, cuadPdf, repoRoot, tempHome } from '../helpers/home';
import { procStat } from '../helpers/proc';

// Real reader processes (pdf.js) on real contracts. A reader keeps what its native and WebAssembly
// decoders took for a large file; the pool replaces one that holds more than its threshold after a
// file, and the files after it still read in full.
/** This process's child processes (Linux /proc; empty elsewhere): here, only the pool's readers. */
function childPids(): number[] {
  if (process.platform !== 'linux') return [];
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e) && Number(procStat(`/proc/${e}/stat`)?.[1]) === process.pid)
    .map(Number);
}

const FILES = [CUAD_SMALL.pcquote, CUAD_SMALL.mphase, CUAD_SMALL.datacall].map(cuadPdf);

describe('reader V8 flags', () => {
  it('runs readers without V8 helper threads where the readers alone fill the cores, with them where cores are to spare', () => {
    expect(readerV8Flags(2, 2)).toEqual(['--single-threaded']);
    expect(readerV8Flags(4, 4)).toEqual(['--single-threaded']);
    expect(readerV8Flags(1, 1)).toEqual(['--single-threaded']);
    expect(readerV8Flags(4, 16)).toEqual([]);
  });
});

describe('reader recycling', () => {
  let pool: WorkerPool | undefined;
  /** The files as read with a fresh reader for each (the first test), for the second to compare with. */
  let freshEach: { status: string; chunks: number }[] | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  async function readAll(caseDir: string): Promise<{ status: string; chunks: number }[]> {
    const out: { status: string; chunks: number }[] = [];
    for (const [i, blobPath] of FILES.entries()) {
      const { summary, chunks } = await pool!.run({
        caseDir,
        blobPath,
        name: path.basename(blobPath),
        fileId: `f${i}`,
        version: 1,
        isLatest: true,
        maxBytes: 1 << 30,
        chunking: DEFAULT_CHUNKING,
      });
      out.push({ status: summary.status, chunks: chunks.length });
    }
    return out;
  }

  it('gives each file a fresh reader once readers hold more than the threshold, and every file still reads', async () => {
    const caseDir = tempHome();
    // Every reader holds more than one byte: each file after the first gets a new one.
    pool = new WorkerPool({ concurrency: 1, recycleRssBytes: 1 });
    const results = await readAll(caseDir);
    expect(results.map((r) => r.status)).toEqual(['indexed', 'indexed', 'indexed']);
    expect(results.every((r) => r.chunks > 0)).toBe(true);
    expect(pool.started).toBe(FILES.length);
    freshEach = results;
    // The last reader was let go after its file too; closing waits until every reader is gone.
    await pool.close();
    expect(childPids()).toEqual([]);
  });

  it('keeps a reader below the threshold for the next file, with the same results; the source through tsx reads as the build does', async () => {
    const caseDir = tempHome();
    // This reader runs the TypeScript source through tsx (as `bin/casefile.mjs` starts it); the
    // other tests' readers are the app's build (CASEFILE_WORKER_DIR, vitest.config.ts).
    pool = new WorkerPool({ concurrency: 1, workerPath: path.join(repoRoot, 'src', 'core', 'reader', 'worker.ts') });
    const results = await readAll(caseDir);
    expect(results.map((r) => r.status)).toEqual(['indexed', 'indexed', 'indexed']);
    expect(pool.started).toBe(1);
    await pool.close();
    // The same as with a fresh reader for each file: as the test above read them, in a case of its
    // own (read here where that test did not run).
    if (!freshEach) {
      pool = new WorkerPool({ concurrency: 1, recycleRssBytes: 1 });
      freshEach = await readAll(tempHome());
    }
    expect(freshEach).toEqual(results);
  });
});

describe('a reader stopped from outside (#42)', () => {
  let pool: WorkerPool | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  const task = (caseDir: string) => ({
    caseDir,
    blobPath: FILES[0]!,
    name: 'pcquote.pdf',
    fileId: 'f0',
    version: 1,
    isLatest: true,
    maxBytes: 1 << 30,
    chunking: DEFAULT_CHUNKING,
  });
  /** Kill this process's reader with `signal` as it begins the file, the first `times` times. */
  const killOnStart = (signal: NodeJS.Signals, times: number) => {
    let starts = 0;
    return () => {
      if (starts++ < times) for (const pid of childPids()) process.kill(pid, signal);
    };
  };

  it('is not the file’s fault: the file is read again on a fresh reader', async () => {
    pool = new WorkerPool({ concurrency: 1 });
    const { summary, chunks } = await pool.run(task(tempHome()), { onStarted: killOnStart('SIGKILL', 1) });
    expect(summary.status).toBe('indexed');
    expect(chunks.length).toBeGreaterThan(0);
    expect(pool.started).toBe(2);
  });

  it('stopped so at every try, the file fails saying so; a fault the reader raises itself fails it at once', async () => {
    pool = new WorkerPool({ concurrency: 1, limits: { ...DEFAULT_LIMITS, quarantineAfter: 3 } });
    await expect(pool.run(task(tempHome()), { onStarted: killOnStart('SIGTERM', 99) })).rejects.toThrow(
      /^stopped: its reader was stopped from outside 3 times while reading it \(last by SIGTERM\); the computer may be short of memory/,
    );
    expect(pool.started).toBe(3);
    await expect(pool.run(task(tempHome()), { onStarted: killOnStart('SIGSEGV', 1) })).rejects.toThrow(
      'the reader stopped unexpectedly (signal SIGSEGV)',
    );
    expect(pool.started).toBe(4);
  });
});
