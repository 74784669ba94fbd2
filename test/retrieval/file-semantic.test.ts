import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { fileSemanticText } from '../../src/shared/format';
import { tempHome } from '../helpers/home';
import { holdVectors, ingestMoments } from '../helpers/ingest-stages';
import { installTestModels } from '../helpers/models';
import { NDA_DIR } from './helpers';

const NDAS = [
  'nda_form_motorola.txt',
  'Focus-Group-APIC-Seattle-Confidentiality-Agreement-031115.txt',
  'vmw-certification-conduct-policy.txt',
];

describe('files.list says, per file, how much of it is found by meaning yet', () => {
  it('while the vectors are being made a file is listed with its share; once they are in, no file carries one', async () => {
    const home = tempHome('casefile-file-semantic-');
    await installTestModels(home);
    const engine = await Engine.open({ home, ingest: { concurrency: 1 } });
    const caseId = (await engine.router.call('cases.create', { name: 'Per file' })).id;
    const drop = path.join(home, 'drop');
    mkdirSync(drop, { recursive: true });
    for (const f of NDAS) copyFileSync(path.join(NDA_DIR, f), path.join(drop, f));
    // The first batch of vectors goes in; the next waits until the test lets it through.
    const held = holdVectors(1);
    const moments = ingestMoments(engine, caseId, NDAS.length);
    try {
      await engine.router.call('ingest.start', { case_id: caseId, paths: [drop], wait: false });
      await Promise.all([moments.searchable, held.passed]);

      const coverage = (
        await engine.router.call('search', {
          case_id: caseId,
          query: 'confidential information',
          mode: 'keyword',
          k: 3,
        })
      ).semantic_coverage!;
      expect(coverage.embedded).toBeGreaterThan(0);
      expect(coverage.embedded).toBeLessThan(coverage.total);
      const { files } = await engine.router.call('files.list', { case_id: caseId });
      const waiting = files.filter((f) => f.semantic);
      expect(waiting.length).toBeGreaterThan(0);
      for (const f of waiting) {
        expect(f.status).toBe('indexed'); // found by its words already
        expect(f.semantic!.embedded).toBeLessThan(f.semantic!.total);
        expect(fileSemanticText(f)).toMatch(/^found by its words; by meaning soon \(\d+%\)$/);
      }
      // The files' figures add up to what the case still waits for.
      expect(waiting.reduce((n, f) => n + f.semantic!.total - f.semantic!.embedded, 0)).toBe(
        coverage.total - coverage.embedded,
      );

      held.release();
      await moments.done;
      const after = await engine.router.call('files.list', { case_id: caseId });
      expect(after.files).toHaveLength(NDAS.length);
      expect(after.files.filter((f) => f.semantic)).toEqual([]);
    } finally {
      moments.off();
      held.restore();
      await engine.close();
    }
  });

  it('a case without an embedding model lists no share', async () => {
    const home = tempHome('casefile-file-semantic-none-');
    const engine = await Engine.open({ home, ingest: { concurrency: 1 } });
    try {
      const caseId = (await engine.router.call('cases.create', { name: 'Words only' })).id;
      const drop = path.join(home, 'drop');
      mkdirSync(drop, { recursive: true });
      copyFileSync(path.join(NDA_DIR, NDAS[0]!), path.join(drop, NDAS[0]!));
      await engine.router.call('ingest.start', { case_id: caseId, paths: [drop] });
      const { files } = await engine.router.call('files.list', { case_id: caseId });
      expect(files).toHaveLength(1);
      expect(files[0]!.semantic).toBeUndefined();
    } finally {
      await engine.close();
    }
  });
});
