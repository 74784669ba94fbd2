/**
 * The documents pane as a table a lawyer reviews in: counts that agree everywhere while an ingest
 * runs; no guessed type before a file is read.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { multiPagePdf } from '../fixtures/pdfs';
import { expect, test } from './fixtures';

const FILES = 6;

test.describe('documents table', () => {
  test('while an ingest runs, the header, the sidebar and the list give the same file count; queued files say "queued", not a type', async ({ app }) => {
    test.slow(); // 600 pages to read: the time depends on the machine and its load
    const { page } = app;
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-counts-')), 'Bundles');
    mkdirSync(dir);
    // More files than the ingest runs at once (at most 4 lanes), so some wait queued.
    for (let i = 1; i <= FILES; i++) writeFileSync(path.join(dir, `bundle-${i}.pdf`), await multiPagePdf(100, 40, `marker${i}`));
    await app.op('cases.create', { name: 'Counting' });
    await page.reload();
    const caseButton = page.getByRole('navigation', { name: 'Cases' }).getByRole('button', { name: /Counting/ });
    await caseButton.click();
    const header = page.locator('.workspace-title .muted');
    await expect(header).toContainText('0 files');
    const docs = page.getByRole('region', { name: 'Documents' });
    await docs.getByLabel('Choose a folder to add').setInputFiles(dir);
    const progress = docs.getByRole('status', { name: 'Ingest progress' });
    await expect(progress).toBeVisible({ timeout: 30_000 });

    // A queued file has no type yet: its row says so instead of guessing "Other".
    const queued = docs.locator('.file-row:has([data-status="queued"])').first();
    await expect(queued.locator('.file-meta')).toHaveText(/^queued/);
    await expect(docs.locator('.file-row:has([data-status="queued"]) .file-meta', { hasText: /^Other/ })).toHaveCount(0);

    // The counts agree while it runs (not "0 files" beside a list of six).
    await expect(header).toContainText(`${FILES} files`);
    await expect(caseButton).toContainText(`${FILES} files`);
    await expect(docs.locator('.pane-foot')).toContainText(`${FILES} files`);
    await expect(progress).toBeVisible();

    await progress.getByRole('button', { name: 'Cancel' }).click();
    await expect(progress).toBeHidden({ timeout: 60_000 });
    await expect(header).toContainText(`${FILES} files`);
    await expect(caseButton).toContainText(`${FILES} files`);
  });
});
