import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { multiPagePdf } from '../fixtures/pdfs';
import { expect, test } from './fixtures';
import { recordTexts } from './record';

/** Drop files on the window the way the OS does (a DataTransfer carrying File objects). */
async function dropFiles(page: Page, files: { name: string; text: string }[]): Promise<void> {
  const dt = await page.evaluateHandle((list) => {
    // DOM types are not in the Node-side tsconfig; this runs in the page.
    const g = globalThis as unknown as {
      DataTransfer: new () => { items: { add(file: unknown): void } };
      File: new (parts: string[], name: string, options: { type: string }) => unknown;
    };
    const transfer = new g.DataTransfer();
    for (const f of list) transfer.items.add(new g.File([f.text], f.name, { type: 'text/plain' }));
    return transfer;
  }, files);
  await page.dispatchEvent('main', 'dragenter', { dataTransfer: dt });
  await page.dispatchEvent('main', 'dragover', { dataTransfer: dt });
  await page.dispatchEvent('main', 'drop', { dataTransfer: dt });
}

/**
 * Drag real files or folders from disk onto the window: Chromium's own drag (CDP), so folders
 * arrive as directory entries exactly as from the OS file manager. The drop lands on another
 * element than the last drag-over, as when the page moves under the pointer (a list growing
 * during an ingest, the page still settling): Chromium then fires only a dragenter there, and
 * the drop counts only if the window accepted that too (a drop was lost this way on CI).
 */
async function dropFromDisk(page: Page, paths: string[]): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const data = { items: [], files: paths, dragOperationsMask: 1 };
  await cdp.send('Input.dispatchDragEvent', { type: 'dragEnter', x: 700, y: 400, data });
  await cdp.send('Input.dispatchDragEvent', { type: 'dragOver', x: 700, y: 400, data });
  await cdp.send('Input.dispatchDragEvent', { type: 'drop', x: 120, y: 120, data });
  await cdp.detach();
}

const v1 = 'MEMO. The tenant shall give ninety days written notice before leaving the premises.';
const v2 = 'MEMO (revised). The tenant shall give sixty days written notice before leaving the premises.';

test.describe('drag and drop', () => {
  test('a drop with no case open offers a case named after it; a changed file becomes v2; delete names the file count', async ({
    app,
  }) => {
    const { page } = app;
    await expect(page.getByRole('heading', { name: 'Welcome to Casefile' })).toBeVisible();
    await dropFiles(page, [{ name: 'Lease notes.txt', text: v1 }]);
    const dialog = page.getByRole('dialog', { name: 'New case' });
    await expect(dialog.getByLabel('Case name')).toHaveValue('Lease notes');
    await dialog.getByRole('button', { name: 'Create case' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Lease notes' })).toBeVisible();
    const docs = page.getByRole('region', { name: 'Documents' });
    const row = docs.locator('[data-file="Lease notes.txt"]');
    await expect(row.locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed', { timeout: 60_000 });
    // One version: no version badge (the row's "More actions" lists its versions).
    await expect(row.getByRole('button', { name: /^v\d/ })).toHaveCount(0);

    // The same name with new content: a second version, the first kept and listed.
    await dropFiles(page, [{ name: 'Lease notes.txt', text: v2 }]);
    await expect(row.getByRole('button', { name: /^v2/ })).toBeVisible({ timeout: 60_000 });
    // The row shows the latest version's state: v2 is searchable once it says indexed (until
    // then a search still finds v1, the latest version that can be searched).
    await expect(row.locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed', { timeout: 60_000 });
    await row.getByRole('button', { name: /^v2/ }).click();
    const list = page.getByRole('dialog', { name: 'Versions of Lease notes.txt' });
    await expect(list.getByRole('listitem')).toHaveCount(2);
    await expect(list.getByRole('listitem').nth(1)).toContainText('v1');
    // Each version with its own status and the date it was added.
    await expect(list.getByRole('listitem').nth(1).locator('[data-status]')).toHaveAttribute('data-status', 'indexed');
    await expect(list.getByRole('listitem').nth(1)).toContainText(/\b\d{4}\b/);

    // Search defaults to the latest version.
    await page.getByRole('searchbox', { name: 'Search this case' }).fill('sixty days');
    await page.getByRole('searchbox', { name: 'Search this case' }).press('Enter');
    await expect(page.getByRole('region', { name: 'Search results' }).getByRole('listitem').first()).toContainText(
      'sixty days',
    );

    // Delete: the confirmation names the case and its file count.
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete case' });
    await expect(confirm).toContainText('“Lease notes” and its 1 file?');
    await confirm.getByRole('button', { name: 'Delete case' }).click();
    await expect(page.getByRole('heading', { name: 'Welcome to Casefile' })).toBeVisible();
    const { cases } = await app.op<{ cases: unknown[] }>('cases.list', {});
    expect(cases).toEqual([]);
  });

  test('a folder dropped from disk with no case open: a case named after the folder, with its subfolders', async ({
    app,
  }) => {
    const { page } = app;
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-folder-')), 'Smith matter');
    mkdirSync(path.join(dir, 'letters'), { recursive: true });
    writeFileSync(path.join(dir, 'letters', 'notice.txt'), v1);
    writeFileSync(path.join(dir, 'summary.txt'), 'The landlord replied that the deposit is held in trust.');
    await expect(page.getByRole('heading', { name: 'Welcome to Casefile' })).toBeVisible();
    await dropFromDisk(page, [dir]);
    const dialog = page.getByRole('dialog', { name: 'New case' });
    await expect(dialog.getByLabel('Case name')).toHaveValue('Smith matter');
    await dialog.getByRole('button', { name: 'Create case' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Smith matter' })).toBeVisible();
    const docs = page.getByRole('region', { name: 'Documents' });
    for (const name of ['letters/notice.txt', 'summary.txt']) {
      await expect(docs.locator(`[data-file="${name}"] [data-status]`).first()).toHaveAttribute(
        'data-status',
        'indexed',
        { timeout: 60_000 },
      );
    }
    await expect(docs.getByRole('row', { name: /letters \(1\)/ })).toBeVisible();
  });

  test('a drop while an ingest runs is queued behind it, said so, and then added', async ({ app }) => {
    test.slow(); // a 200-page PDF to ingest: its time depends on the machine and its load
    const { page } = app;
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-queue-')), 'Bundle');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'bundle-200-pages.pdf'), await multiPagePdf(200, 40, 'indemnity'));
    await app.op('cases.create', { name: 'Queue check' });
    await page.reload();
    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Queue check/ })
      .click();
    const docs = page.getByRole('region', { name: 'Documents' });
    // The toast and the progress panel's lines are recorded at every change and checked at the end:
    // how long each stays on screen depends on how fast this machine ingests.
    const statusTexts = await recordTexts(page, '[role="status"]');
    await docs.getByLabel('Choose a folder to add').setInputFiles(dir);
    const progress = docs.getByRole('status', { name: 'Ingest progress' });
    await expect(progress).toBeVisible({ timeout: 60_000 });

    // Dropped while the big PDF is still being added: the user is told it waits its turn.
    await dropFiles(page, [{ name: 'Lease notes.txt', text: v1 }]);

    // Both end up indexed.
    for (const name of ['bundle-200-pages.pdf', 'Lease notes.txt']) {
      await expect(docs.locator(`[data-file="${name}"] [data-status]`).first()).toHaveAttribute(
        'data-status',
        'indexed',
        { timeout: 120_000 },
      );
    }
    await expect(progress).toBeHidden({ timeout: 30_000 });
    const shown = await statusTexts();
    expect(
      shown.filter((t) => t.includes('Queued “Lease notes.txt”')),
      'the queued toast',
    ).not.toEqual([]);
    expect(
      shown.filter((t) => t.includes('Waiting to be added next: Lease notes.txt')),
      'the waiting line',
    ).not.toEqual([]);
  });
});
