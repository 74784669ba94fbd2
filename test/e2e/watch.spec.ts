/**
 * Watched folders (#16), in the app: a case set to follow its folder (Settings → "Folders … follows")
 * picks up a new file and a changed one by itself; both show in the documents list, and a file
 * deleted from the folder stays, its row saying so. Every wait is
 * on what the page shows, with generous limits; nothing depends on the debounce's length.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, screenshot, test } from './fixtures';

test.describe('watched folders', () => {
  test('a followed folder: a new file and a changed one appear in the documents list by themselves', async ({
    app,
    shell,
  }) => {
    const { page } = app;
    const folder = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-watch-')), 'Harbor lease');
    mkdirSync(folder);
    writeFileSync(
      path.join(folder, 'lease.txt'),
      'LEASE. The tenant shall pay rent of $2,000 on the first day of each month.\n',
    );
    const { id: caseId } = await app.op<{ id: string }>('cases.create', { name: 'Harbor lease' });
    await app.op('ingest.start', { case_id: caseId, paths: [folder], wait: true });
    await page.reload();
    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Harbor lease/ })
      .click();

    // Settings: follow the folder (switched on with the first folder).
    await page.getByRole('button', { name: 'Settings' }).click();
    const card = page.getByRole('region', { name: 'Folders “Harbor lease” follows' });
    // The desktop app offers the system's folder dialog; serve mode (none) a path box whose mistakes are said in sentences.
    await expect(card.getByRole('button', { name: 'Choose a folder to follow…' })).toHaveCount(
      shell === 'electron' ? 1 : 0,
    );
    const box = card.getByLabel('Folder to follow (its full path)');
    const alert = card.getByRole('alert');
    await card.getByRole('button', { name: 'Follow folder' }).click();
    await expect(alert).toHaveText('Type the folder’s full path, such as /Users/me/Cases/Smith v Jones.');
    await box.fill('Harbor lease');
    await card.getByRole('button', { name: 'Follow folder' }).click();
    await expect(alert).toHaveText(/^“Harbor lease” is not a full path\. Type it from the top of the disk/);
    await box.fill(`${folder} (old)`);
    await card.getByRole('button', { name: 'Follow folder' }).click();
    await expect(alert).toHaveText(
      `There is no folder at “${folder} (old)”. Check the path (copy it from your file manager), or connect the drive it is on.`,
    );
    await expect(card).toContainText('This case follows no folder yet.');
    await box.fill(folder);
    await card.getByRole('button', { name: 'Follow folder' }).click();
    await expect(card.getByRole('list', { name: 'Followed folders' })).toContainText(folder);
    await expect(alert).toHaveCount(0);
    await expect(
      card.getByRole('checkbox', { name: 'Add new and changed files from these folders automatically' }),
    ).toBeChecked();
    await screenshot(page, '52-watched-folder');
    await page.getByRole('button', { name: 'Settings' }).click();

    const docs = page.getByRole('region', { name: 'Documents' });
    const lease = docs.locator('[data-file="lease.txt"]');
    await expect(lease.locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed', { timeout: 60_000 });

    // A new file saved into the folder.
    writeFileSync(path.join(folder, 'notice.txt'), 'NOTICE. The landlord will inspect the premises on 4 May 2024.\n');
    const notice = docs.locator('[data-file="notice.txt"]');
    await expect(notice.locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed', {
      timeout: 60_000,
    });

    // The lease edited in place: a second version, searchable once indexed.
    appendFileSync(path.join(folder, 'lease.txt'), 'AMENDMENT. From 1 June 2024 the rent is $2,150.\n');
    await expect(lease.getByRole('button', { name: /^v2/ })).toBeVisible({ timeout: 60_000 });
    await expect(lease.locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed', { timeout: 60_000 });
    await page.getByRole('searchbox', { name: 'Search this case' }).fill('2,150');
    await page.getByRole('searchbox', { name: 'Search this case' }).press('Enter');
    await expect(page.getByRole('region', { name: 'Search results' })).toContainText('AMENDMENT', { timeout: 30_000 });

    // A file deleted from the folder stays in the case; its row says so in words.
    rmSync(path.join(folder, 'notice.txt'));
    await expect(notice.getByTestId('file-removed')).toHaveText(
      /^deleted from the folder on \d{1,2} [A-Z][a-z]{2} \d{4} — the copy here is kept$/,
      { timeout: 60_000 },
    );
    await expect(notice.locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed');

    // Switched off in Settings: the case says it no longer follows the folder.
    await page.getByRole('button', { name: 'Settings' }).click();
    const follow = card.getByRole('checkbox', { name: 'Add new and changed files from these folders automatically' });
    // (the box follows the saved setting, so it changes once the case says so)
    await follow.click();
    await expect(follow).not.toBeChecked({ timeout: 30_000 });
    await expect
      .poll(
        async () => (await app.op<{ watch: { enabled: boolean } }>('cases.get', { case_id: caseId })).watch.enabled,
        { timeout: 30_000 },
      )
      .toBe(false);
  });
});
