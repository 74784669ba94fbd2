import type { FileInfo } from '../../src/shared/contract/ingest';
import { makeCaseFolder } from './corpus';
import { expect, screenshot, test } from './fixtures';

test.describe('documents', () => {
  test('add a folder of real documents: progress to done, broken files say why, search finds text', async ({ app }) => {
    const { page } = app;
    const created = await app.op<{ id: string }>('cases.create', { name: 'Steel Vault' });
    const { dir, names } = makeCaseFolder();
    await page.getByRole('navigation', { name: 'Cases' }).getByRole('button', { name: /Steel Vault/ }).click();
    const docs = page.getByRole('region', { name: 'Documents' });
    await expect(docs.getByText('Drop a case folder here')).toBeVisible();

    await docs.getByLabel('Choose a folder to add').setInputFiles(dir);

    // Every file ends up listed, in its folder, with a final status.
    for (const name of Object.values(names)) {
      await expect(docs.locator(`[data-file="${name}"]`)).toBeVisible({ timeout: 60_000 });
    }
    const row = (name: string) => docs.locator(`[data-file="${name}"]`);
    await expect(row(names.steelVault!).locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed', { timeout: 90_000 });
    await expect(row(names.mphase!).locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed', { timeout: 90_000 });
    await expect(row(names.docx!).locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed');
    await expect(row(names.txt!).locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed');
    await expect(row(names.truncated!).locator('[data-status]').first()).toHaveAttribute('data-status', 'failed');
    await expect(row(names.empty!).locator('[data-status]').first()).toHaveAttribute('data-status', 'failed');
    await expect(docs.getByRole('status', { name: 'Ingest progress' })).toBeHidden({ timeout: 60_000 });

    // The failure reasons, in plain words, on click.
    await row(names.empty!).getByRole('button', { name: /Failed: show reason/ }).click();
    await expect(row(names.empty!).getByRole('note')).toHaveText('empty file');
    await row(names.truncated!).getByRole('button', { name: /Failed: show reason/ }).click();
    await expect(row(names.truncated!).getByRole('note')).toContainText(/PDF/);

    // Pages and version badges as the engine reports them.
    const { files } = await app.op<{ files: FileInfo[] }>('files.list', { caseId: created.id });
    const steel = files.find((f) => f.name === names.steelVault)!;
    await expect(row(names.steelVault!)).toContainText(`${steel.pages} pages`);
    await expect(row(names.steelVault!).getByRole('button', { name: /^v1/ })).toBeVisible();
    await expect(docs.getByRole('button', { name: /contracts \(2\)/ })).toBeVisible();
    await screenshot(page, '02-documents');

    // Search: a phrase from the Steel Vault contract finds it; the result opens the page with boxes.
    await page.getByRole('searchbox', { name: 'Search this case' }).fill('marketing affiliate agreement');
    await page.getByRole('searchbox', { name: 'Search this case' }).press('Enter');
    const results = page.getByRole('region', { name: 'Search results' });
    await expect(results.getByRole('listitem').first()).toContainText(names.steelVault!);
    await results.getByRole('listitem').first().getByRole('button').click();
    const viewer = page.getByRole('region', { name: 'Source viewer' });
    await expect(viewer.getByRole('img', { name: /Page \d+ of contracts\/affiliate-agreement\.pdf/ })).toBeVisible();
    await expect(viewer.getByTestId('cite-box').first()).toBeVisible();
    await screenshot(page, '03-search-viewer');

    // A text document opens as its passage with the cited span highlighted.
    await page.getByRole('searchbox', { name: 'Search this case' }).fill('TOM WATSON professional golfer');
    await page.getByRole('searchbox', { name: 'Search this case' }).press('Enter');
    const txtResult = results.getByRole('listitem').filter({ hasText: names.txt! }).first();
    await expect(txtResult).toBeVisible();
    await txtResult.getByRole('button').click();
    await expect(viewer.getByTestId('passage').locator('mark')).toContainText('TOM WATSON');
    await expect(viewer.getByTestId('passage').locator('mark')).toBeInViewport();

    // Remove a file: confirmed in a dialog naming it, then gone from the list and the engine.
    await row(names.empty!).hover();
    await row(names.empty!).getByRole('button', { name: `Remove ${names.empty}` }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove document' });
    await expect(confirm).toContainText(`“${names.empty}”`);
    await confirm.getByRole('button', { name: 'Remove' }).click();
    await expect(row(names.empty!)).toHaveCount(0);
    const after = await app.op<{ files: FileInfo[] }>('files.list', { caseId: created.id });
    expect(after.files.map((f) => f.name)).not.toContain(names.empty);
  });
});
