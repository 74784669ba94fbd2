import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { threadId } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { RemoteEmbedder, sharedEmbedHost } from '../../src/core/retrieval/embed-host';
import { Embedder } from '../../src/core/retrieval/embedder';
import { embedThreads } from '../../src/core/retrieval/embed-protocol';
import { loadEmbedder } from '../../src/core/retrieval/models';
import { ModelRegistry } from '../../src/core/models/registry';
import { ChunkStore, embeddingText } from '../../src/core/retrieval/store';
import { openCaseTools } from '../../src/core/tools/index';
import { corpusDir, tempHome } from '../helpers/home';
import { installTestModels, MINILM_ID, testModels } from '../helpers/models';
import { NDA_DIR } from './helpers';

/**
 * Embedding runs in its own worker thread (src/core/retrieval/embed-worker.ts), never on the engine's
 * thread — in the app, Electron's main process. Structural proof: this thread's module cache never
 * holds onnxruntime, while the vectors are exactly those an in-thread Embedder makes.
 */
const { miniLmDir } = testModels();
const NDAS = [
  'nda_form_motorola.txt',
  'Focus-Group-APIC-Seattle-Confidentiality-Agreement-031115.txt',
  'vmw-certification-conduct-policy.txt',
];
/** A 40 KB contract: two of the stage's calls, the first of them stopped by the crash. */
const AGENCY = path.join(
  corpusDir,
  'cuad',
  'full_contract_txt',
  'BIOPURECORP_06_30_1999-EX-10.13-AGENCY AGREEMENT.txt',
);

/** Modules of the embedding runtime loaded on this thread (onnxruntime-node is CommonJS: its binding shows in the cache). */
function runtimeOnThisThread(): string[] {
  return Object.keys(createRequire(import.meta.url).cache).filter((k) =>
    /onnxruntime|[\\/]@huggingface[\\/]transformers[\\/]/.test(k),
  );
}

async function openWithModel(home: string): Promise<{ engine: Engine; caseId: string; drop: string }> {
  await installTestModels(home); // the import validates the model by embedding a sentence — in the worker too
  const engine = await Engine.open({ home, ingest: { concurrency: 1 } });
  const caseId = (await engine.router.call('cases.create', { name: 'Worker v. Main' })).id;
  const drop = path.join(home, 'drop');
  mkdirSync(drop, { recursive: true });
  return { engine, caseId, drop };
}

describe('embedding worker (all-MiniLM-L6-v2)', () => {
  it('ingest and search embed in the worker: this thread never loads onnxruntime, the model loads once, vectors equal in-thread embedding', async () => {
    expect(runtimeOnThisThread()).toEqual([]);
    const { engine, caseId, drop } = await openWithModel(tempHome('casefile-embedw-'));
    for (const f of NDAS) copyFileSync(path.join(NDA_DIR, f), path.join(drop, f));

    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    // One thread count throughout (else the stage may take every core once parsing is done, a
    // second session of the model: see progressive.test.ts), so one load serves everything.
    const saved = process.env.CASEFILE_EMBED_THREADS;
    process.env.CASEFILE_EMBED_THREADS = String(embedThreads());
    const run = await engine.router.call('ingest.start', { case_id: caseId, paths: [drop] }).finally(() => {
      if (saved === undefined) delete process.env.CASEFILE_EMBED_THREADS;
      else process.env.CASEFILE_EMBED_THREADS = saved;
    });
    delay.disable();
    if (!('results' in run)) throw new Error('expected results');
    expect(run.results.map((r) => r.status)).toEqual(['indexed', 'indexed', 'indexed']);

    const tools = await openCaseTools(engine, caseId);
    const hits = await tools.vector_search({ query: 'Which law governs this agreement?', top_k: 3 });
    expect(hits.semantic).toBe(true);
    expect(hits.results.length).toBeGreaterThan(0);

    const host = sharedEmbedHost();
    const stats = await host.stats();
    expect(stats.threadId).not.toBe(threadId);
    expect(stats.loads).toBe(1); // import check, three files and the query: one load, reused
    expect(stats.models.map((m) => m.id)).toEqual([MINILM_ID]);

    const store = await ChunkStore.open(engine.cases.caseDir(caseId));
    const table = (await store.table())!;
    const rows = (await table.query().select(['chunk_id', 'text', 'context', 'vector']).toArray()) as {
      chunk_id: string;
      text: string;
      context: string;
      vector: ArrayLike<number>;
    }[];
    expect(rows.every((r) => r.context.length > 0)).toBe(true);
    store.close();
    expect(stats.texts).toBeGreaterThanOrEqual(rows.length + 2);
    // The engine's thread never held the runtime, through import, ingest and search.
    expect(runtimeOnThisThread()).toEqual([]);
    console.info(
      `embed worker: ${rows.length} chunks; max event-loop delay on the engine thread during ingest ${(delay.max / 1e6).toFixed(1)} ms (p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms)`,
    );

    // Closing the (last) engine stops the worker.
    const worker = host.runningWorker!;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    await engine.close();
    await exited;
    expect(host.threadId).toBeNull();

    // The same model on this thread, with the same settings, gives exactly the stored vectors.
    const local = new Embedder({ id: MINILM_ID, dir: miniLmDir });
    try {
      // What is embedded is the chunk's context (title › section path) on a line before its text.
      const vectors = await local.embed(rows.map(embeddingText));
      rows.forEach((r, i) => expect(Array.from(r.vector)).toEqual(Array.from(vectors[i]!)));
    } finally {
      await local.dispose();
    }
    expect(runtimeOnThisThread().length).toBeGreaterThan(0); // the probe does see an in-thread load
  });

  it('cancel – an aborted embed rejects with AbortError and the worker stops after its current batch', async () => {
    const host = sharedEmbedHost();
    const saved = process.env.CASEFILE_EMBED_THREADS;
    process.env.CASEFILE_EMBED_THREADS = '1';
    const embedder = new RemoteEmbedder({ id: MINILM_ID, dir: miniLmDir });
    if (saved === undefined) delete process.env.CASEFILE_EMBED_THREADS;
    else process.env.CASEFILE_EMBED_THREADS = saved;
    try {
      await embedder.init();
      // The thread count set on the engine's side is what onnxruntime runs with in the worker.
      expect((await host.stats()).models).toContainEqual({ id: MINILM_ID, threads: 1 });
      const before = (await host.stats()).texts;
      const texts = Array.from(
        { length: 480 },
        (_, i) => `Clause ${i}. ${'The receiving party shall keep the information confidential. '.repeat(12)}`,
      );
      const ctrl = new AbortController();
      const pending = embedder.embed(texts, ctrl.signal);
      // Abort once the worker has begun (a first batch is in flight), not before.
      await new Promise((resolve) => setTimeout(resolve, 50));
      ctrl.abort();
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
      expect(host.inFlight).toBe(0);
      // The next request runs after the cancelled one stopped: far fewer than 480 texts were embedded.
      expect(await embedder.embed(['Notice must be given in writing.'])).toHaveLength(1);
      const done = (await host.stats()).texts - before;
      expect(done).toBeGreaterThanOrEqual(1);
      expect(done).toBeLessThan(texts.length / 2);
    } finally {
      await embedder.dispose();
      await host.close();
    }
  });

  it('a crash while the model loads is an error of that call (not a silent keyword-only fallback); the next load starts a new worker', async () => {
    const home = tempHome('casefile-embedw-');
    await installTestModels(home);
    const host = sharedEmbedHost();
    await host.close();
    await host.stats(); // a fresh worker, started and idle: the model is not loaded yet
    // The worker dies as the load is handed to it. (Stopped in the middle of a forward pass or a
    // model load, onnxruntime-node aborts the whole process — the app only ever stops the worker
    // after draining it — so a crash is simulated while it is idle.)
    const load = host.load.bind(host);
    host.load = (model, signal) => {
      void host.runningWorker?.terminate();
      return load(model, signal);
    };
    const where = new ModelRegistry({ modelsDir: path.join(home, 'models') });
    try {
      await expect(loadEmbedder(where, null)).rejects.toMatchObject({
        code: 'failed',
        message: expect.stringMatching(/embedding worker stopped unexpectedly/),
      });
    } finally {
      Reflect.deleteProperty(host, 'load');
    }
    const again = await loadEmbedder(where, null);
    expect(again.ok && again.embedder.dimension).toBe(384);
    if (again.ok) await again.embedder.dispose();
    await host.close();
  });

  it('a crash of the embedding worker under a batch: a new worker embeds it again; every file ends indexed with all its vectors', async () => {
    const { engine, caseId, drop } = await openWithModel(tempHome('casefile-embedw-'));
    const host = sharedEmbedHost();
    try {
      copyFileSync(AGENCY, path.join(drop, 'a-agency.txt'));
      copyFileSync(path.join(NDA_DIR, NDAS[0]!), path.join(drop, 'b-nda.txt'));
      // Stop the worker the way a crash would, as the first batch of the contract is handed to it:
      // the batch goes down with the worker. Only while it has nothing else to do (see above: a
      // worker stopped in the middle of a forward pass takes the process with it).
      let killed = false;
      const embed = host.embed.bind(host);
      host.embed = (model, texts, signal) => {
        if (!killed && host.inFlight === 0 && texts.some((t) => /Biopure/i.test(t))) {
          killed = true;
          void host.runningWorker?.terminate();
        }
        return embed(model, texts, signal);
      };
      const run = await engine.router.call('ingest.start', { case_id: caseId, paths: [drop] });
      if (!('results' in run)) throw new Error('expected results');
      const byName = Object.fromEntries(run.results.map((r) => [r.name, r]));
      expect(killed).toBe(true);
      expect(byName['a-agency.txt']).toMatchObject({ status: 'indexed' });
      expect(byName['b-nda.txt']).toMatchObject({ status: 'indexed' });
      // Nothing is left without its vector: a vector search finds the contract's passages.
      const res = await engine.router.call('search', {
        case_id: caseId,
        query: 'Biopure veterinary products agent',
        mode: 'hybrid',
        k: 3,
      });
      expect(res.semantic_coverage).toBeUndefined();
      expect(res.results.some((r) => r.file_name === 'a-agency.txt')).toBe(true);
    } finally {
      Reflect.deleteProperty(host, 'embed');
      await engine.close();
    }
  });
});
