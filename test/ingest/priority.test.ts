/**
 * The embedding stage runs below everything else, so parsing (what makes a case searchable) goes
 * before the vectors: the embedding thread and the onnxruntime threads it starts are lowered
 * (Linux, where a thread has a priority of its own); the engine's own thread keeps its priority.
 */
import { readdirSync } from 'node:fs';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { EmbedWorkerHost } from '../../src/core/retrieval/embed-host';
import { ensureTestModels, miniLmDir, MINILM_ID } from '../helpers/models';
import { procStat } from '../helpers/proc';

/** Nice value of each thread of this process (Linux: /proc/self/task/<tid>/stat, field 19). */
function threadNices(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    const f = procStat(`/proc/self/task/${tid}/stat`);
    if (f) out.set(Number(tid), Number(f[16]));
  }
  return out;
}

describe('the embedding stage runs below the app and the readers', () => {
  it.runIf(process.platform === 'linux')(
    'the embedding thread (and the onnxruntime threads it starts) run lowest; the engine thread does not',
    async () => {
      ensureTestModels();
      const before = threadNices();
      const host = new EmbedWorkerHost();
      try {
        const [vector] = await host.embed({ id: MINILM_ID, dir: miniLmDir, threads: 2 }, [
          'Which law governs this agreement?',
        ]);
        expect(vector!.length).toBe(384);
        const lowered = [...threadNices()].filter(
          ([tid, nice]) => !before.has(tid) && nice === os.constants.priority.PRIORITY_LOW,
        );
        expect(lowered.length).toBeGreaterThanOrEqual(2); // the worker thread and onnxruntime's second thread
        expect(threadNices().get(process.pid)).toBe(before.get(process.pid));
      } finally {
        await host.close();
      }
    },
  );
});
