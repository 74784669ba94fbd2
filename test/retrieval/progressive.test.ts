import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { ChunkStore } from '../../src/core/retrieval/store';
import {
  defaultEmbedThreads,
  embedThreads,
  IdleCores,
  ingestEmbedThreads,
} from '../../src/core/retrieval/embed-protocol';
import { sharedEmbedHost } from '../../src/core/retrieval/embed-host';
import { createIndexSink } from '../../src/core/retrieval/sink';
import { THREAD_PRIORITIES } from '../../src/core/util/priority';
import { corpusDir, cliEntry, repoRoot, tempHome } from '../helpers/home';
import { holdVectors, ingestMoments } from '../helpers/ingest-stages';
import { installTestModels, MINILM_ID } from '../helpers/models';
import { chunkDoc, NDA_DIR } from './helpers';

const NDAS = [
  'nda_form_motorola.txt',
  'Focus-Group-APIC-Seattle-Confidentiality-Agreement-031115.txt',
  'vmw-certification-conduct-policy.txt',
];
const QUERY = 'which law governs this agreement';
/** A 40 KB contract: its vectors take a few seconds, the window in which the run is killed. */
const MID = path.join(corpusDir, 'cuad', 'full_contract_txt', 'BIOPURECORP_06_30_1999-EX-10.13-AGENCY AGREEMENT.txt');

async function openCase(home: string): Promise<{ engine: Engine; caseId: string; drop: string }> {
  await installTestModels(home);
  const engine = await Engine.open({ home, ingest: { concurrency: 1 } });
  const caseId = (await engine.router.call('cases.create', { name: 'Progressive' })).id;
  const drop = path.join(home, 'drop');
  mkdirSync(drop, { recursive: true });
  for (const f of NDAS) copyFileSync(path.join(NDA_DIR, f), path.join(drop, f));
  return { engine, caseId, drop };
}

/** Every row of the case's table: chunk ids, and whether each has its vector (a non-zero one). */
async function rowsOf(engine: Engine, caseId: string): Promise<{ ids: string[]; embedded: boolean[] }> {
  const store = await ChunkStore.open(engine.cases.caseDir(caseId));
  try {
    const rows = (await (await store.table())!.query().select(['chunk_id', 'embedded', 'vector']).toArray()) as {
      chunk_id: string;
      embedded: boolean;
      vector: Float32Array;
    }[];
    rows.sort((a, b) => a.chunk_id.localeCompare(b.chunk_id));
    return {
      ids: rows.map((r) => r.chunk_id),
      embedded: rows.map((r) => r.embedded && Array.from(r.vector).some((x) => x !== 0)),
    };
  } finally {
    store.close();
  }
}

/** A table the other process has not finished creating: null, to poll again; any other error is thrown. */
function notYet(err: unknown): null {
  if (/was not found|Not found/i.test(String((err as Error)?.message ?? err))) return null;
  throw err;
}

describe('progressive indexing: a file is searchable by its words once parsed, by meaning once its vectors land', () => {
  it('during the embedding stage a search finds the new files by their words and says coverage is partial; after it, hybrid; progress reports both stages to 100%', async () => {
    const { engine, caseId, drop } = await openCase(tempHome('casefile-progressive-'));
    // Hold the passages' vectors on their way into the table until the test lets them through.
    const held = holdVectors();
    const moments = ingestMoments(engine, caseId, NDAS.length);
    const { progress } = moments;
    try {
      await engine.router.call('ingest.start', { case_id: caseId, paths: [drop], wait: false });
      await moments.searchable;

      // Stage one: every file is indexed and found by its words; the vectors are on their way.
      const during = await engine.router.call('search', { case_id: caseId, query: QUERY, mode: 'hybrid', k: 5 });
      expect(during.results.length).toBeGreaterThan(0);
      expect(during.semantic_coverage).toMatchObject({ embedded: 0, total: expect.any(Number) });
      expect(during.semantic_coverage!.total).toBeGreaterThan(10);
      expect(during.results.every((r) => r.scores.vector === undefined)).toBe(true);
      const { progress: now } = await engine.router.call('ingest.status', { case_id: caseId });
      expect(now?.semantic).toEqual({ embedded: 0, total: during.semantic_coverage!.total });
      expect((await engine.router.call('files.list', { case_id: caseId })).files.map((f) => f.status)).toEqual([
        'indexed',
        'indexed',
        'indexed',
      ]);

      held.release();
      await moments.done;
      // Stage two: hybrid, with nothing left out.
      const after = await engine.router.call('search', { case_id: caseId, query: QUERY, mode: 'hybrid', k: 5 });
      expect(after.semantic_coverage).toBeUndefined();
      expect(after.results.some((r) => r.scores.vector !== undefined)).toBe(true);
      const semantic = progress.filter((p) => p.semantic).map((p) => p.semantic!);
      expect(semantic.at(-1)).toEqual({
        embedded: during.semantic_coverage!.total,
        total: during.semantic_coverage!.total,
      });
      // Coverage only grows.
      for (let i = 1; i < semantic.length; i++)
        expect(semantic[i]!.embedded).toBeGreaterThanOrEqual(semantic[i - 1]!.embedded);
      expect(progress.at(-1)).toMatchObject({ state: 'done', files_done: 3, files_total: 3 });
      const rows = await rowsOf(engine, caseId);
      expect(rows.embedded.every(Boolean)).toBe(true);
      // Where the embedding thread runs below the rest (Linux), the stage and the searches used one
      // session of the model, on every core: one memory arena, not one per thread count.
      if (THREAD_PRIORITIES) {
        const sessions = (await sharedEmbedHost().stats()).models.filter((m) => m.id === MINILM_ID);
        expect(sessions.map((m) => m.threads)).toEqual([Math.min(8, os.availableParallelism())]);
      }
    } finally {
      moments.off();
      held.restore();
      await engine.close();
    }
  });

  it('killed (SIGKILL) between the stages: resuming makes the missing vectors; the passages equal a clean run, each with its vector once', async () => {
    const one = await openCase(tempHome('casefile-progressive-clean-'));
    copyFileSync(MID, path.join(one.drop, 'agency.txt'));
    // The clean run's passages, as they are once searchable (their vectors change no id).
    await one.engine.router.call('ingest.start', { case_id: one.caseId, paths: [one.drop], searchable: true });
    const clean = await rowsOf(one.engine, one.caseId);
    await one.engine.close();

    const home = tempHome('casefile-progressive-killed-');
    const two = await openCase(home);
    copyFileSync(MID, path.join(two.drop, 'agency.txt'));
    await two.engine.close();
    const child = spawn(process.execPath, [cliEntry, '--home', home, 'ingest', 'Progressive', two.drop], {
      cwd: repoRoot,
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Killed as soon as passages are in the table without their vectors (between the two stages).
    let killed = false;
    const caseDir = path.join(home, 'cases', two.caseId);
    while (!killed) {
      if (
        (await Promise.race([exited.then(() => 'exited'), new Promise((r) => setTimeout(() => r('polled'), 50))])) ===
        'exited'
      )
        break;
      // The child may be creating the table at this moment: not there yet is "poll again".
      const store = await ChunkStore.open(caseDir).catch(notYet);
      if (!store) continue;
      try {
        if (((await store.pending(1).catch(notYet)) ?? []).length) killed = child.kill('SIGKILL');
      } finally {
        store.close();
      }
    }
    expect(await exited).toBeNull(); // killed, not finished
    const engine = await Engine.open({ home });
    try {
      const partial = await rowsOf(engine, two.caseId);
      expect(partial.embedded.every(Boolean)).toBe(false);
      await engine.router.call('ingest.resume', { case_id: two.caseId });
      const after = await rowsOf(engine, two.caseId);
      expect(after.ids).toEqual(clean.ids);
      expect(after.embedded.every(Boolean)).toBe(true);
      expect(
        (await engine.router.call('search', { case_id: two.caseId, query: QUERY, mode: 'hybrid', k: 3 }))
          .semantic_coverage,
      ).toBeUndefined();
    } finally {
      await engine.close();
    }
  });

  it('a run that stops at "searchable": the next run makes the vectors; the passages equal a run done in one go, each with its vector once', async () => {
    const one = await openCase(tempHome('casefile-progressive-one-'));
    await one.engine.router.call('ingest.start', { case_id: one.caseId, paths: [one.drop] });
    const clean = await rowsOf(one.engine, one.caseId);
    await one.engine.close();

    const two = await openCase(tempHome('casefile-progressive-two-'));
    try {
      const first = await two.engine.router.call('ingest.start', {
        case_id: two.caseId,
        paths: [two.drop],
        searchable: true,
      });
      if (!('results' in first)) throw new Error('expected results');
      expect(first.results.map((r) => r.status)).toEqual(['indexed', 'indexed', 'indexed']);
      const between = await rowsOf(two.engine, two.caseId);
      expect(between.ids).toEqual(clean.ids);
      expect(between.embedded.some(Boolean)).toBe(false);
      expect(
        (await two.engine.router.call('search', { case_id: two.caseId, query: QUERY, mode: 'keyword', k: 3 })).results
          .length,
      ).toBeGreaterThan(0);
      // The next run (nothing new to read) finishes the vectors.
      const second = await two.engine.router.call('ingest.start', { case_id: two.caseId, paths: [two.drop] });
      if (!('results' in second)) throw new Error('expected results');
      expect(second.results.map((r) => r.status)).toEqual(['unchanged', 'unchanged', 'unchanged']);
      const after = await rowsOf(two.engine, two.caseId);
      expect(after.ids).toEqual(clean.ids);
      expect(after.embedded.every(Boolean)).toBe(true);
    } finally {
      await two.engine.close();
    }
  });

  it.skipIf(os.availableParallelism() > 8)(
    'where a reader parses on every core, the files become searchable first: the vectors wait until a core is free of parsing',
    async () => {
      // As many readers as cores, and four times as many short contracts.
      const cores = os.availableParallelism();
      const home = tempHome('casefile-progressive-cores-');
      await installTestModels(home);
      const engine = await Engine.open({ home, ingest: { concurrency: cores } });
      const caseId = (await engine.router.call('cases.create', { name: 'Every core' })).id;
      const contracts = path.join(corpusDir, 'cuad', 'full_contract_txt');
      const short = readdirSync(contracts)
        .filter((f) => f.endsWith('.txt'))
        .map((f) => ({ f, size: statSync(path.join(contracts, f)).size }))
        .sort((a, b) => a.size - b.size || a.f.localeCompare(b.f))
        .map((x) => x.f);
      const first = path.join(home, 'first');
      const drop = path.join(home, 'drop');
      mkdirSync(first, { recursive: true });
      mkdirSync(drop, { recursive: true });
      copyFileSync(path.join(contracts, short[0]!), path.join(first, short[0]!));
      const files = short.slice(1, 4 * cores + 5);
      for (const f of files) copyFileSync(path.join(contracts, f), path.join(drop, f));
      // A first run loads the model, so the stage could start the moment the next run writes a file.
      await engine.router.call('ingest.start', { case_id: caseId, paths: [first] });
      const moments = ingestMoments(engine, caseId, files.length + 1);
      let indexed = 0;
      const offIndexed = engine.events.on('ingest.file', (e) => {
        if (e.case_id === caseId && e.status === 'indexed') indexed++;
      });
      // How many files of the drop were indexed each time the stage took passages it then embedded.
      // (A batch read and put back does not count: a pass that starts between two files reads one,
      // finds the readers on every core again, and stops before embedding it.)
      const looked: number[] = [];
      const readAt = new WeakMap<object, number>();
      const pending = ChunkStore.prototype.pending;
      const setVectors = ChunkStore.prototype.setVectors;
      ChunkStore.prototype.pending = async function (this: ChunkStore, ...args: Parameters<typeof pending>) {
        const at = indexed;
        const batch = await pending.apply(this, args);
        readAt.set(batch, at);
        return batch;
      };
      ChunkStore.prototype.setVectors = async function (this: ChunkStore, ...args: Parameters<typeof setVectors>) {
        looked.push(readAt.get(args[0]) ?? indexed);
        return setVectors.apply(this, args);
      };
      try {
        await engine.router.call('ingest.start', { case_id: caseId, paths: [drop] });
        expect(indexed).toBe(files.length);
        expect(looked.length).toBeGreaterThan(0);
        // A lane frees its core only once every file is taken; the other lanes hold one file at most.
        expect(looked[0]).toBeGreaterThanOrEqual(files.length - cores + 1);
        expect((await rowsOf(engine, caseId)).embedded.every(Boolean)).toBe(true);
        const last = moments.progress.at(-1)!.semantic!;
        expect(last.embedded).toBe(last.total);
      } finally {
        ChunkStore.prototype.pending = pending;
        ChunkStore.prototype.setVectors = setVectors;
        offIndexed();
        moments.off();
        await engine.close();
      }
    },
  );

  it('the embedding stage takes the cores parsing leaves, and every core once parsing is done: a batch asked for more threads runs on them', async () => {
    // Where the embedding thread runs below everything else (Linux), one session with every core
    // (up to 8) serves queries and the ingest alike: the priority shares the cores out.
    for (const readers of [0, 1, 4]) {
      expect(ingestEmbedThreads(readers, { cores: 2, lowered: true })).toBe(2);
      expect(ingestEmbedThreads(readers, { cores: 16, current: 3, idle: 0, lowered: true })).toBe(8);
    }
    expect(defaultEmbedThreads(2, true)).toBe(2);
    expect(defaultEmbedThreads(1, true)).toBe(1);
    // Elsewhere (threads share the process's priority): half the cores for queries; beside busy
    // readers, what they leave (never 0); alone, every core up to 8, as far as they were idle over
    // the last batch (a busy machine keeps the count it has).
    expect(defaultEmbedThreads(2, false)).toBe(1);
    expect(defaultEmbedThreads(16, false)).toBe(8);
    const elsewhere = { lowered: false };
    expect(ingestEmbedThreads(1, { cores: 2, ...elsewhere })).toBe(1);
    expect(ingestEmbedThreads(4, { cores: 4, ...elsewhere })).toBe(1);
    expect(ingestEmbedThreads(4, { cores: 16, ...elsewhere })).toBe(8);
    expect(ingestEmbedThreads(0, { cores: 2, current: 1, idle: 0.9, ...elsewhere })).toBe(2);
    expect(ingestEmbedThreads(0, { cores: 2, current: 1, idle: 0.3, ...elsewhere })).toBe(1);
    expect(ingestEmbedThreads(0, { cores: 16, current: 4, idle: 2.1, ...elsewhere })).toBe(6);
    expect(ingestEmbedThreads(0, { cores: 16, current: 4, idle: 12, ...elsewhere })).toBe(8);
    expect(ingestEmbedThreads(0, { cores: 1, current: 1, idle: 1, ...elsewhere })).toBe(1);
    // A sampler of idle cores reads between 0 and the cores there are.
    const idle = new IdleCores();
    for (let i = 0; i < 1e6; i++) Math.sqrt(i);
    expect(idle.sample()).toBeGreaterThanOrEqual(0);
    expect(idle.sample()).toBeLessThanOrEqual(os.availableParallelism() + 1e-9);

    const { engine, caseId, drop } = await openCase(tempHome('casefile-progressive-threads-'));
    copyFileSync(MID, path.join(drop, 'agency.txt')); // passages for more than one batch
    try {
      await engine.router.call('ingest.start', { case_id: caseId, paths: [drop], searchable: true });
      const sink = await createIndexSink(await engine.indexSinkOptions(caseId));
      try {
        // The model's own count and one more: the stage switches between them batch by batch.
        const own = embedThreads();
        const asked: number[] = [];
        await sink.embedPending({ threads: () => (asked.push(asked.length ? own + 1 : own), asked.at(-1)!) });
        expect(asked.length).toBeGreaterThan(1);
        // Loaded in the embedding worker with the thread count asked for, beside the model's own.
        const models = (await sharedEmbedHost().stats()).models.filter((m) => m.id === MINILM_ID).map((m) => m.threads);
        expect(models).toEqual(expect.arrayContaining([own, own + 1]));
      } finally {
        await sink.close();
      }
      const rows = await rowsOf(engine, caseId);
      expect(rows.embedded.every(Boolean)).toBe(true);
      expect(
        (await engine.router.call('search', { case_id: caseId, query: QUERY, mode: 'hybrid', k: 3 })).semantic_coverage,
      ).toBeUndefined();
    } finally {
      await engine.close();
    }
  });

  it('the stage writes the table in batches that double up to the largest (32, 64, … 512 in the app): one write each, progress after each, every passage once', async () => {
    const home = tempHome('casefile-progressive-steps-');
    await installTestModels(home);
    const engine = await Engine.open({ home });
    try {
      const caseId = (await engine.router.call('cases.create', { name: 'Steps' })).id;
      const sink = await createIndexSink(await engine.indexSinkOptions(caseId));
      try {
        // About 150 short passages, keyword-searchable, no vector yet; the ramp is the app's
        // scaled down (its 32 … 512 would need a thousand passages embedded for the same check).
        const ramp = { first: 4, max: 64 };
        const text = readFileSync(MID, 'utf8').slice(0, 20_000);
        await sink.indexVersion(chunkDoc({ fileId: 'f1', name: 'agency.txt', text }, 130, 10), { defer: true });
        const store = await ChunkStore.open(engine.cases.caseDir(caseId));
        try {
          const table = (await store.table())!;
          const total = await table.countRows();
          expect(total).toBeGreaterThan(4 + 8 + 16 + 32 + 64);
          const before = await table.version();
          const seen: { embedded: number; total: number }[] = [];
          await sink.embedPending({ ramp, onProgress: (embedded, all) => seen.push({ embedded, total: all }) });
          // One write a batch (each write is a merge over the whole table), and progress after each.
          const sizes: number[] = [];
          for (let left = total, size = ramp.first; left > 0; left -= size, size = Math.min(ramp.max, size * 2))
            sizes.push(Math.min(size, left));
          await table.checkoutLatest();
          expect((await table.version()) - before).toBe(sizes.length);
          let sum = 0;
          expect(seen).toEqual(sizes.map((n) => ({ embedded: (sum += n), total })));
        } finally {
          store.close();
        }
      } finally {
        await sink.close();
      }
      const rows = await rowsOf(engine, caseId);
      expect(rows.embedded.every(Boolean)).toBe(true);
      expect(new Set(rows.ids).size).toBe(rows.ids.length);
    } finally {
      await engine.close();
    }
  });
});
