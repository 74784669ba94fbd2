import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CORPUS } from './corpus';
import { corpusDir, expect, test } from './fixtures';
import { recordTexts } from './record';

test.describe('settings', () => {
  test('shows the data folder, version, model state; retrieval settings persist', async ({ app }) => {
    const { page } = app;
    await page.getByRole('button', { name: 'Settings' }).click();
    const settings = page.getByRole('region', { name: 'Settings' });
    await expect(settings.getByTestId('data-folder')).toHaveText(app.home);
    const info = await app.op<{ version: string }>('app.info', {});
    await expect(settings.getByTestId('app-version')).toHaveText(info.version);
    await expect(settings.getByRole('region', { name: 'Models' })).toContainText(/Semantic search is (on|off)/);

    // A bad import path gets a plain error, not a crash.
    await settings.getByLabel('Model path').fill('/nowhere/model.gguf');
    await settings.getByRole('button', { name: 'Import' }).click();
    await expect(settings.getByRole('region', { name: 'Models' }).getByRole('alert')).toBeVisible();
    await expect(settings.getByRole('region', { name: 'Models' }).getByRole('alert')).not.toContainText(/at \S+\.(ts|js):\d+/);

    // A real GGUF imported from disk shows up in the models table.
    const gguf = path.join(corpusDir, '..', 'models', 'llama-2-tiny-random', 'llama-2-tiny-random.gguf');
    // The toast lasts a few seconds: recorded when shown, checked once the import is listed.
    const statusTexts = await recordTexts(page, '[role="status"]');
    await settings.getByLabel('Model path').fill(gguf);
    await settings.getByRole('button', { name: 'Import' }).click();
    const row = settings.getByRole('region', { name: 'Models' }).getByRole('row', { name: /llama-2-tiny-random/ });
    await expect(row).toContainText('chat', { timeout: 60_000 });
    await expect(row).toContainText('4096');
    await expect.poll(statusTexts).toContainEqual(expect.stringContaining('Imported llama-2-tiny-random.'));

    // A download that cannot reach its server says so plainly.
    await settings.getByLabel('Model to download').fill('http://127.0.0.1:9/model.gguf');
    await settings.getByRole('button', { name: 'Download' }).click();
    await expect(settings.getByRole('region', { name: 'Models' }).getByRole('alert')).toBeVisible();
    await expect(settings.getByRole('button', { name: 'Download' })).toBeEnabled();

    await settings.getByLabel('Agent steps per question (1–5)').fill('3');
    await page.reload();
    await page.getByRole('button', { name: 'Settings' }).click();
    await expect(page.getByLabel('Agent steps per question (1–5)')).toHaveValue('3');
  });

  test('the top k set in Settings is what the case search returns', async ({ app }) => {
    const { page } = app;
    const { id: caseId } = await app.op<{ id: string }>('cases.create', { name: 'Golf endorsement' });
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-topk-')), 'docs');
    mkdirSync(dir);
    copyFileSync(path.join(corpusDir, CORPUS.txt), path.join(dir, 'endorsement.txt'));
    await app.op('ingest.start', { caseId, paths: [dir], wait: true });
    await page.reload();
    await page.getByRole('navigation', { name: 'Cases' }).getByRole('button', { name: /Golf endorsement/ }).click();

    const setTopK = async (k: number) => {
      await page.getByRole('button', { name: 'Settings' }).click();
      await page.getByLabel('Results per search (top k)').fill(String(k));
      await page.getByRole('button', { name: 'Settings' }).click();
    };
    const search = async () => {
      const box = page.getByRole('searchbox', { name: 'Search this case' });
      await box.fill('agreement');
      await box.press('Enter');
      return page.getByRole('region', { name: 'Search results' }).getByRole('listitem');
    };
    await setTopK(2);
    await expect(await search()).toHaveCount(2);
    await setTopK(5);
    await expect(await search()).toHaveCount(5);

    // A score threshold nothing reaches: no results, said in words.
    const setField = async (label: string, value: string) => {
      await page.getByRole('button', { name: 'Settings' }).click();
      await page.getByLabel(label).fill(value);
      await page.getByRole('button', { name: 'Settings' }).click();
    };
    await setField('Score threshold', '1000000');
    await expect(await search()).toHaveCount(0);
    const results = page.getByRole('region', { name: 'Search results' });
    await expect(results).toContainText('Nothing in this case matches.');
    await setField('Score threshold', '');
    await expect(await search()).toHaveCount(5);

    // Reranking asked for with no reranker model installed: the results say it did not happen, and why.
    await setField('Rerank top N', '5');
    await expect(await search()).toHaveCount(5);
    await expect(results.getByRole('note').filter({ hasText: 'Reranking is off' })).toContainText('no reranker model is installed');
  });
});
