/**
 * A case catches up by itself: passages indexed before an embedding model was installed get their
 * vectors in the background once one is (real LanceDB, the real MiniLM in onnxruntime), a stopped
 * engine resumes where it was, and adding a file to such a case embeds that file's passages only.
 */
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import type { IndexVectorsEvent } from '../../src/shared/events';
import type { IngestProgress } from '../../src/shared/contract/ingest';
import { tempHome } from '../helpers/home';
import { installTestModels, MINILM_ID } from '../helpers/models';
import { corpusText, indexDocs } from './helpers';

const NDA = (name: string) => corpusText(`legalbench-rag/corpus/contractnli/${name}`);
const QUESTION = "Which nation's legislation controls this deal?";

/** Besides the two NDAs every case holds, for a case of more passages than the catch-up's first batch. */
const MORE = ['01_Bosch-Automotive-Service-Solutions-Mutual-Non-Disclosure-Agreement-7-12-17.txt'];

/** A keyword-only case of NDAs, made before any model was installed. */
async function keywordOnlyCase(engine: Engine, more: string[] = []): Promise<string> {
  const { id } = await engine.cases.create('Made before the model');
  await indexDocs(
    engine,
    id,
    ['AGProjects-NDA.txt', 'BT_NDA.txt', ...more].map((name, i) => ({ fileId: `f${i}`, name, text: NDA(name) })),
  );
  return id;
}

function until(
  engine: Engine,
  caseId: string,
  done: (e: IndexVectorsEvent) => boolean,
): { events: IndexVectorsEvent[]; reached: Promise<IndexVectorsEvent> } {
  const events: IndexVectorsEvent[] = [];
  const reached = new Promise<IndexVectorsEvent>((resolve) => {
    const off = engine.events.on('index.vectors', (e) => {
      if (e.case_id !== caseId) return;
      events.push(e);
      if (done(e)) {
        off();
        resolve(e);
      }
    });
  });
  return { events, reached };
}

describe('vectors catch-up (index.vectors, index.catchUp)', () => {
  it('a model installed after the case was made: the case is embedded in the background with progress; stopped half-way, the next engine keeps what was made and finishes', async () => {
    const home = tempHome();
    let engine = await Engine.open({ home });
    const caseId = await keywordOnlyCase(engine, MORE);
    let seen = 0;
    try {
      expect(await engine.router.call('index.vectors', { case_id: caseId })).toMatchObject({
        state: 'none',
        model_id: null,
      });
      await engine.startVectorCatchUp();
      // The model comes (an import, or the default one at the next start): the catch-up starts by itself.
      const { reached } = until(engine, caseId, (e) => e.state === 'running' && e.embedded > 0);
      await installTestModels(home);
      engine.events.emit('models.changed', { model_id: MINILM_ID, kind: 'imported' });
      const partway = await reached;
      expect(partway).toMatchObject({ model_id: MINILM_ID });
      expect(partway.embedded).toBeLessThan(partway.total);
      seen = partway.embedded;
    } finally {
      await engine.close();
    }

    engine = await Engine.open({ home });
    try {
      const after = await engine.router.call('index.vectors', { case_id: caseId });
      expect(after).toMatchObject({ state: 'needed', model_id: MINILM_ID });
      expect(after.embedded).toBeGreaterThanOrEqual(seen);
      const words = await engine.router.call('search', {
        case_id: caseId,
        query: 'Netherlands',
        mode: 'keyword',
        k: 1,
      });
      expect(words.results[0]!.text).toContain('Netherlands');

      // The case's button: index.catchUp puts it first and starts it.
      const { events, reached } = until(engine, caseId, (e) => e.state === 'done');
      expect(await engine.router.call('index.catchUp', { case_id: caseId })).toMatchObject({
        state: 'waiting',
        model_id: MINILM_ID,
      });
      const done = await reached;
      expect(done.embedded).toBe(done.total);
      const running = events.filter((e) => e.state === 'running').map((e) => e.embedded);
      expect(running.length).toBeGreaterThan(1);
      expect(running[0]).toBeGreaterThanOrEqual(seen);
      expect(running).toEqual([...running].sort((a, b) => a - b));
      expect(await engine.router.call('index.vectors', { case_id: caseId })).toMatchObject({
        state: 'done',
        embedded: done.total,
        total: done.total,
      });
      const res = await engine.router.call('search', { case_id: caseId, query: QUESTION, mode: 'vector', k: 3 });
      expect(res.semantic).toBe(true);
      expect(res.results.map((r) => r.text).join(' ')).toContain('laws of Netherlands');
    } finally {
      await engine.close();
    }
  });

  it("adding one file to a keyword-only case embeds that file's passages, and the ingest's counts are that file's", async () => {
    const home = tempHome();
    const engine = await Engine.open({ home, ingest: { concurrency: 1, ocr: false } });
    try {
      const caseId = await keywordOnlyCase(engine);
      await installTestModels(home);
      const drop = tempHome('casefile-drop-');
      const { writeFileSync } = await import('node:fs');
      writeFileSync(
        `${drop}/lease.txt`,
        'The landlord may end this lease if the tenant fails to pay the rent for two months in a row.\n',
      );
      const progress: IngestProgress[] = [];
      const off = engine.events.on('ingest.progress', (p) => progress.push(p));
      await engine.router.call('ingest.start', { case_id: caseId, paths: [drop] });
      off();

      const semantic = progress.flatMap((p) => (p.semantic ? [p.semantic] : []));
      const last = semantic.at(-1)!;
      expect(last.embedded).toBe(last.total);
      const status = await engine.router.call('index.vectors', { case_id: caseId });
      // The lease's passages have their vectors; the two NDAs' wait for the catch-up.
      expect(status).toMatchObject({ state: 'needed', embedded: last.total, model_id: MINILM_ID });
      expect(status.total).toBeGreaterThan(last.total + 10);
      // Never the case's whole: nothing before the lease's passages are written, then theirs.
      expect(semantic.every((s) => s.total === 0 || s.total === last.total)).toBe(true);
      const res = await engine.router.call('search', {
        case_id: caseId,
        query: 'eviction of an occupant who stopped paying',
        mode: 'vector',
        k: 1,
      });
      expect(res.results[0]!.text).toContain('landlord');
    } finally {
      await engine.close();
    }
  });
});
