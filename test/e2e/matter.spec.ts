import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from './fixtures';

test.describe('move a matter', () => {
  test('Settings exports the open case locked with a passphrase and imports it back', async ({ app }) => {
    const { page } = app;
    const drop = mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-matter-'));
    writeFileSync(path.join(drop, 'memo.txt'), 'The anvil was delivered on 3 March 2021 to the canyon.\n');
    const { id } = await app.op<{ id: string }>('cases.create', { name: 'Acme v. Coyote' });
    await app.op('ingest.start', { case_id: id, paths: [drop] });
    await page.reload();
    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Acme v\. Coyote/ })
      .click();
    await page.getByRole('button', { name: 'Settings' }).click();
    const card = page.getByRole('region', { name: 'Move a matter' });
    await card.getByLabel('Passphrase (optional)').fill('beep beep 1949');
    const downloading = page.waitForEvent('download');
    await card.getByRole('button', { name: 'Export “Acme v. Coyote”…' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('Acme v. Coyote.casefile');
    const file = path.join(drop, 'acme.casefile');
    await download.saveAs(file);
    await expect(card.getByRole('status')).toContainText('Exported “Acme v. Coyote”');

    // A wrong passphrase is told plainly; nothing is imported.
    await card.getByLabel('Passphrase (optional)').fill('wrong one');
    let chooser = page.waitForEvent('filechooser');
    await card.getByRole('button', { name: 'Import…' }).click();
    await (await chooser).setFiles(file);
    await expect(card.getByRole('alert')).toHaveText('The passphrase does not open this matter file.');

    // The right one: the matter comes back as the current version, the one here kept beside it.
    await card.getByLabel('Passphrase (optional)').fill('beep beep 1949');
    chooser = page.waitForEvent('filechooser');
    await card.getByRole('button', { name: 'Import…' }).click();
    await (await chooser).setFiles(file);
    await expect(card.getByRole('status')).toContainText('Imported “Acme v. Coyote”: ');
    await expect(card.getByRole('status')).toContainText('kept as “Acme v. Coyote (earlier version,');
    const sidebar = page.getByRole('navigation', { name: 'Cases' });
    await expect(sidebar.getByRole('button', { name: /Acme v\. Coyote \(earlier version/ })).toBeVisible();
  });
});
