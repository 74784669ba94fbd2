/**
 * Quitting while passages are being embedded: the embedding worker finishes the forward pass it is
 * in and lets its models go before it is stopped. Terminating it with the models loaded and work
 * under way aborted the whole process ("terminate called after throwing an instance of
 * 'Napi::Error'"), which here ends this test's process. The vectors not made are made by the next run.
 */
import { copyFileSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { corpusDir, tempHome } from '../helpers/home';
import { ingestMoments } from '../helpers/ingest-stages';
import { installTestModels } from '../helpers/models';

const CONTRACTS = path.join(corpusDir, 'cuad', 'full_contract_txt');

describe('closing the engine during the embedding stage', () => {
  it('stops cleanly with vectors still to make (no crash); reopened, the run finishes every vector', async () => {
    const home = tempHome('casefile-embed-close-');
    await installTestModels(home);
    const drop = path.join(home, 'drop');
    mkdirSync(drop);
    // Four contracts of 12-26 KB (about 110 passages): parsed in a second or two, their vectors
    // take several seconds more, so the close comes while the worker is in a forward pass.
    const names = readdirSync(CONTRACTS)
      .sort()
      .slice(0, 8)
      .filter((f) => statSync(path.join(CONTRACTS, f)).size < 30_000)
      .slice(0, 4);
    for (const f of names) copyFileSync(path.join(CONTRACTS, f), path.join(drop, f));
    const engine = await Engine.open({ home, ingest: { concurrency: 1 } });
    const { id: caseId } = await engine.router.call('cases.create', { name: 'Closing' });
    const moments = ingestMoments(engine, caseId, names.length);
    await engine.router.call('ingest.start', { case_id: caseId, paths: [drop], wait: false });
    // Every file searchable by its words; most vectors still to come (parsing is far faster).
    await moments.searchable;
    moments.off();
    await engine.close();

    const again = await Engine.open({ home });
    try {
      const before = await again.router.call('search', {
        case_id: caseId,
        query: 'termination',
        mode: 'keyword',
        k: 1,
      });
      expect(before.semantic_coverage!.embedded).toBeLessThan(before.semantic_coverage!.total);
      await again.router.call('ingest.resume', { case_id: caseId });
      const after = await again.router.call('search', {
        case_id: caseId,
        query: 'who may end the agreement early',
        mode: 'hybrid',
        k: 3,
      });
      expect(after.semantic_coverage).toBeUndefined();
      expect(after.results.some((r) => r.scores.vector !== undefined)).toBe(true);
    } finally {
      await again.close();
    }
  });
});
