import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, repoRoot, test } from './fixtures';

/** The test copy of the default embedding model (npm run models:test), copied where serve may read it. */
const miniLm = path.join(repoRoot, 'test', '.models', 'all-MiniLM-L6-v2');

test.describe('search by meaning catches up', () => {
  test('a case made before any model: once one is imported, the case offers to make its passages searchable by meaning, and does', async ({
    app,
  }) => {
    const { page, home, op } = app;
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-vectors-'));
    try {
      writeFileSync(
        path.join(tmp, 'lease.txt'),
        'The landlord may end this lease and take back the flat if the tenant fails to pay the rent for two months in a row.\n',
      );
      writeFileSync(
        path.join(tmp, 'warranty.txt'),
        'The vendor warrants that the software will perform substantially as described in its documentation for ninety days.\n',
      );
      const { id } = await op<{ id: string }>('cases.create', { name: 'Before the model' });
      await op('ingest.start', { case_id: id, paths: [tmp] });

      // Another process holds the case while the model comes, so its passages still wait when the case is opened.
      const lock = path.join(home, 'cases', id, 'ingest.lock');
      writeFileSync(lock, JSON.stringify({ pid: process.pid, started: new Date().toISOString() }));
      cpSync(miniLm, path.join(tmp, 'model'), { recursive: true });
      await op('models.import', { path: path.join(tmp, 'model'), id: 'all-MiniLM-L6-v2', mode: 'link' });

      await page
        .getByRole('navigation', { name: 'Cases' })
        .getByRole('button', { name: /Before the model/ })
        .click();
      const banner = page.getByRole('region', { name: 'Documents' }).getByRole('status', { name: 'Search by meaning' });
      await expect(banner).toContainText('passages are found by their words only');
      await expect(banner).not.toContainText(/index\.|casefile /);

      rmSync(lock);
      await banner.getByRole('button', { name: /Make searchable by meaning|Try again/ }).click();
      await expect(banner).toBeHidden({ timeout: 60_000 });
      expect(await op('index.vectors', { case_id: id })).toMatchObject({ state: 'done', model_id: 'all-MiniLM-L6-v2' });
      const found = await op<{ semantic: boolean; results: Array<{ file_name: string }> }>('search', {
        case_id: id,
        query: 'eviction of an occupant who stopped paying',
        mode: 'vector',
        k: 1,
      });
      expect(found.semantic).toBe(true);
      expect(found.results[0]!.file_name).toBe('lease.txt');
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
