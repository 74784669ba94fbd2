import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FileInfo } from '../../src/shared/contract/ingest';
import { bombPdf } from '../fixtures/hostile';
import { expect, screenshot, test } from './fixtures';

test.describe('hostile files', () => {
  test('a decompression bomb fails with its reason and can be retried by hand; a link out of the folder is listed as not added', async ({
    app,
  }) => {
    test.slow(); // real ingest runs: the time depends on the machine and its load
    const { page } = app;
    const created = await app.op<{ id: string }>('cases.create', { name: 'Hostile Drop' });
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-hostile-')), 'drop');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'bomb.pdf'), bombPdf());
    writeFileSync(path.join(dir, 'notes.txt'), 'The client called about the notice of default.\n');
    symlinkSync('/etc/hostname', path.join(dir, 'outside-link.txt'));
    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Hostile Drop/ })
      .click();
    const docs = page.getByRole('region', { name: 'Documents' });
    await expect(docs.getByText('Drop a case folder here')).toBeVisible();

    await app.op('ingest.start', { case_id: created.id, paths: [dir], wait: false });
    const row = (name: string) => docs.locator(`[data-file="${name}"]`);
    await expect(row('notes.txt').locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed', {
      timeout: 90_000,
    });
    await expect(row('bomb.pdf').locator('[data-status]').first()).toHaveAttribute('data-status', 'failed', {
      timeout: 90_000,
    });
    // The link is not a file of the case: it is listed, with why, as not added.
    const notAdded = docs.getByRole('status', { name: 'Not added' });
    await expect(notAdded).toContainText('Not added: 1 item');
    await notAdded.locator('summary').click();
    await expect(notAdded).toContainText('outside-link.txt — link pointing outside the dropped folder');
    await expect(docs.locator('[data-file="outside-link.txt"]')).toHaveCount(0);

    // The reason says what happened; Retry reads the file again.
    await row('bomb.pdf').getByRole('button', { name: 'Why?' }).click();
    await expect(row('bomb.pdf').getByRole('note')).toContainText(
      'damaged or hostile PDF (a stream expands beyond 256 MB)',
    );
    await screenshot(page, 'documents-hostile');
    const before = (await app.op<{ files: FileInfo[] }>('files.list', { case_id: created.id })).files.find(
      (f) => f.name === 'bomb.pdf',
    )!;
    await row('bomb.pdf').getByRole('button', { name: 'Retry' }).click();
    await expect(row('bomb.pdf').getByRole('note')).toHaveCount(0);
    await expect
      .poll(
        async () =>
          (await app.op<{ files: FileInfo[] }>('files.list', { case_id: created.id })).files
            .find((f) => f.name === 'bomb.pdf')
            ?.versions.at(-1)?.ingested_at,
        { timeout: 90_000 },
      )
      .not.toBe(before.versions.at(-1)?.ingested_at);
    await expect(row('bomb.pdf').locator('[data-status]').first()).toHaveAttribute('data-status', 'failed', {
      timeout: 90_000,
    });
  });
});
