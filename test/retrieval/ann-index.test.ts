/**
 * A large case gets an approximate vector index (IVF-PQ) once it has enough passages. The index's
 * partitions and codebooks are learnt from the vectors in the table, so it must not be built while
 * passages still wait for theirs (stored as zeros during an ingest's embedding stage): trained on
 * zeros, it would put every real vector in the wrong place and search by meaning would miss.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChunkStore } from '../../src/core/retrieval/store';
import { chunkDoc } from './helpers';

const DIM = 16;

function vector(seed: number): number[] {
  // Spread on the sphere, deterministic: a few sines of the seed.
  const v = Array.from({ length: DIM }, (_, d) => Math.sin(seed * (d + 1) * 0.37 + d));
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

describe('vector index of a large case', () => {
  it('is not built while passages wait for their vectors; it is once every passage has one, and finds a passage by its own vector', async () => {
    const store = await ChunkStore.open(mkdtempSync(path.join(os.tmpdir(), 'casefile-ann-')));
    try {
      const text = Array.from(
        { length: 700 },
        (_, i) => `Clause ${i}. The parties agree to term number ${i} of this agreement.`,
      ).join(' ');
      const chunks = chunkDoc({ fileId: 'f1', name: 'big.txt', text }, 60, 0);
      expect(chunks.length).toBeGreaterThan(600);
      await store.replaceVersion('f1', 1, chunks, { pending: DIM });
      const annMinRows = 500;
      const vectorIndex = async () =>
        (await (await store.table())!.listIndices()).filter((i) => i.columns.includes('vector'));

      await store.optimize({ annMinRows });
      expect(await vectorIndex()).toEqual([]);
      // Half the vectors in: still waiting.
      const pending = await store.pending(chunks.length);
      const half = pending.slice(0, Math.floor(pending.length / 2));
      await store.setVectors(
        half,
        half.map((c) => vector(c.chunk_index)),
      );
      await store.optimize({ annMinRows });
      expect(await vectorIndex()).toEqual([]);

      const rest = await store.pending(chunks.length);
      await store.setVectors(
        rest,
        rest.map((c) => vector(c.chunk_index)),
      );
      await store.optimize({ annMinRows });
      expect((await vectorIndex()).length).toBe(1);
      // Through the index, every passage's own vector finds it first, scored by its true distance
      // (the index's compressed distances alone missed 10-35 of them in the top 5, build to build).
      const lost: string[] = [];
      for (const probe of chunks) {
        const [top] = await store.vector(vector(probe.chunk_index), undefined, 5);
        if (top?.chunk.chunk_id !== probe.chunk_id || Math.abs(top.score - 1) > 1e-4) lost.push(probe.chunk_id);
      }
      expect(lost).toEqual([]);
    } finally {
      store.close();
    }
  });
});
