/**
 * Background work runs below the app, so a long ingest never slows the window and parsing (what
 * makes a case searchable) goes before the vectors: readers below normal priority, the embedding
 * thread lower still (Linux, where a thread has a priority of its own); the engine's own thread
 * keeps its priority.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkerPool } from '../../src/core/ingest/pool';
import { DEFAULT_CHUNKING } from '../../src/core/ingest/types';
import { EmbedWorkerHost } from '../../src/core/retrieval/embed-host';
import { ensureTestModels, miniLmDir, MINILM_ID } from '../helpers/models';

const dir = mkdtempSync(path.join(os.tmpdir(), 'casefile-priority-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Nice value of each thread of this process (Linux: /proc/self/task/<tid>/stat, field 19). */
function threadNices(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    out.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return out;
}

describe('background work runs below the app', () => {
  it('a reader process runs below the engine while it reads a file', async () => {
    const pool = new WorkerPool({ concurrency: 1 });
    const file = path.join(dir, 'note.txt');
    writeFileSync(file, 'The lease ends on 30 June 2021.\n');
    const seen: number[] = [];
    try {
      await pool.run(
        { caseDir: dir, blobPath: file, name: 'note.txt', fileId: 'f1', version: 1, isLatest: true, maxBytes: 1 << 20, chunking: DEFAULT_CHUNKING },
        { onStarted: () => seen.push(...pool.readerPids.map((pid) => os.getPriority(pid))) },
      );
    } finally {
      await pool.close();
    }
    expect(seen.length).toBe(1);
    expect(seen[0]).toBeGreaterThan(os.getPriority()); // a higher nice value: a lower priority
  });

  it.runIf(process.platform === 'linux')('the embedding thread (and onnxruntime threads it starts) run below the readers; the engine thread does not', async () => {
    ensureTestModels();
    const before = threadNices();
    const host = new EmbedWorkerHost();
    try {
      const [vector] = await host.embed({ id: MINILM_ID, dir: miniLmDir, threads: 2 }, ['Which law governs this agreement?']);
      expect(vector!.length).toBe(384);
      const lowered = [...threadNices()].filter(([tid, nice]) => !before.has(tid) && nice === os.constants.priority.PRIORITY_LOW);
      expect(lowered.length).toBeGreaterThanOrEqual(2); // the worker thread and onnxruntime's second thread
      expect(threadNices().get(process.pid)).toBe(before.get(process.pid));
    } finally {
      await host.close();
    }
  });
});
