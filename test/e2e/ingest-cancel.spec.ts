import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FileInfo } from '../../src/shared/contract/ingest';
import { multiPagePdf } from '../fixtures/pdfs';
import { expect, test } from './fixtures';

const FILES = 6;

test.describe('ingest cancel', () => {
  test('cancel a running ingest: it stops, unfinished files say cancelled, and Resume finishes them', async ({
    app,
  }) => {
    test.slow(); // 600 pages to ingest (part of them twice): its time depends on the machine and its load
    const { page } = app;
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-cancel-')), 'Bundles');
    mkdirSync(dir);
    // More files than the ingest ever runs at once (at most 4 lanes, however many cores), so some wait queued.
    for (let i = 1; i <= FILES; i++)
      writeFileSync(path.join(dir, `bundle-${i}.pdf`), await multiPagePdf(100, 40, `marker${i}`));
    const { id: caseId } = await app.op<{ id: string }>('cases.create', { name: 'Cancel me' });
    await page.reload();
    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Cancel me/ })
      .click();
    const docs = page.getByRole('region', { name: 'Documents' });
    await docs.getByLabel('Choose a folder to add').setInputFiles(dir);
    const progress = docs.getByRole('status', { name: 'Ingest progress' });
    await expect(progress).toBeVisible({ timeout: 30_000 });
    // While it runs, the list shows each file's stage: one being worked on, the others queued behind it.
    const rows = docs.locator('.file-row');
    await expect(
      rows.locator('[data-status="parsing"], [data-status="embedding"], [data-status="indexing"]').first(),
    ).toBeVisible();
    await expect(rows.locator('[data-status="queued"]').first()).toBeVisible();
    await progress.getByRole('button', { name: 'Cancel' }).click();
    await expect(progress).toBeHidden({ timeout: 60_000 });

    const { files } = await app.op<{ files: FileInfo[] }>('files.list', { case_id: caseId });
    const cancelled = files.filter((f) => f.status === 'cancelled');
    expect(cancelled.length).toBeGreaterThan(0);
    for (const f of cancelled) {
      await expect(docs.locator(`[data-file="${f.name}"] [data-status]`).first()).toHaveAttribute(
        'data-status',
        'cancelled',
      );
    }

    const unfinished = docs.getByRole('status', { name: 'Unfinished documents' });
    await expect(unfinished).toBeVisible();
    await unfinished.getByRole('button', { name: 'Resume' }).click();
    for (let i = 1; i <= FILES; i++) {
      await expect(docs.locator(`[data-file="bundle-${i}.pdf"] [data-status]`).first()).toHaveAttribute(
        'data-status',
        'indexed',
        { timeout: 120_000 },
      );
    }
    await expect(unfinished).toBeHidden();
  });
});
