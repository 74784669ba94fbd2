import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FileInfo } from '../../src/shared/contract/ingest';
import { multiPagePdf } from '../fixtures/pdfs';
import { eml } from '../helpers/mail';
import { workbook } from '../fixtures/sheets';
import { corpusDir, expect, screenshot, test } from './fixtures';

const EMAIL = 'notice of default.eml';

/** A billing workbook of two sheets, written by SheetJS. */
function billing(): Buffer {
  return workbook({
    Billing: [
      ['Date', 'Timekeeper', 'Hours', 'Description'],
      ['2023-03-02', 'J. Doe', 1.5, 'Call with client about the lease'],
      ['2023-03-04', 'J. Doe', 3.25, 'Drafted the quindecim demand letter'],
    ],
    Damages: [
      ['Item', 'Amount'],
      ['Water damage repairs', 12500],
    ],
  });
}

test.describe('emails, attachments and spreadsheets', () => {
  test('a dropped email shows its attachments nested under it with its sender and subject; a hit inside an attachment opens it with boxes; a spreadsheet hit names its sheets and rows', async ({
    app,
  }) => {
    test.slow(); // a folder of five documents is read, then searched twice
    const { page } = app;
    const created = await app.op<{ id: string }>('cases.create', { name: 'Landlord dispute' });
    const work = mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-formats-'));
    const dir = path.join(work, 'Landlord dispute');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, EMAIL),
      await eml({
        from: 'Jane Doe <jane@firm.example>',
        to: 'Client <client@example.com>',
        subject: 'Re: Notice of default',
        date: new Date('2023-05-02T14:03:00Z'),
        text: 'Attached are the notice served on the landlord and the lease.',
        attachments: [
          { filename: 'notice.pdf', content: await multiPagePdf(2, 8, 'vermilionclause') },
          { filename: 'lease.docx', content: readFileSync(path.join(corpusDir, 'freelaw-doctor/word-docx.docx')) },
        ],
      }),
    );
    writeFileSync(path.join(dir, 'billing.xlsx'), billing());

    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Landlord dispute/ })
      .click();
    const docs = page.getByRole('region', { name: 'Documents' });
    await docs.getByLabel('Choose a folder to add').setInputFiles(dir);

    // The email's row says who sent it and its subject; its attachments are nested under it.
    const email = docs.locator(`[data-file="${EMAIL}"]`);
    await expect(email.locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed', {
      timeout: 120_000,
    });
    await expect(email.locator('.file-relation').first()).toHaveText(
      'from Jane Doe <jane@firm.example> “Re: Notice of default” · 2 attachments',
      { timeout: 60_000 },
    );
    // …on one line (cut at its end where the pane is narrow), the whole of it on hover.
    const relation = email.locator('.file-relation').first();
    await expect(relation).toHaveAttribute(
      'title',
      'from Jane Doe <jane@firm.example> “Re: Notice of default” · 2 attachments',
    );
    const lines = await relation.evaluate(
      (el) => el.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(el).fontSize),
    );
    expect(lines, 'the height of the sender and subject, in font sizes').toBeLessThan(1.8);
    // Its attachments are rows a level deeper, right after it (the table is a tree).
    await expect(email).toHaveAttribute('aria-expanded', 'true');
    const attachments = docs.getByRole('treegrid').locator(`[data-parent="${await email.getAttribute('data-key')}"]`);
    const notice = attachments.and(docs.locator(`[data-file="${EMAIL}/notice.pdf"]`));
    await expect(notice).toHaveAttribute('aria-level', String(Number(await email.getAttribute('aria-level')) + 1));
    await expect(notice.locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed', {
      timeout: 120_000,
    });
    await expect(notice.getByRole('button', { name: 'notice.pdf', exact: true })).toBeVisible();
    await expect(notice.locator('.file-relation')).toHaveText('attached to: Re: Notice of default, 2023-05-02');
    await expect(
      attachments
        .and(docs.locator(`[data-file="${EMAIL}/lease.docx"]`))
        .locator('[data-status]')
        .first(),
    ).toHaveAttribute('data-status', 'indexed', { timeout: 120_000 });
    const sheet = docs.locator('[data-file="billing.xlsx"]');
    await expect(sheet.locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed', {
      timeout: 120_000,
    });
    await screenshot(page, '30-email-attachments');

    // The engine agrees: the attachments are files of their own, linked to the email.
    const files = (await app.op<{ files: FileInfo[] }>('files.list', { case_id: created.id })).files;
    const byName = new Map(files.map((f) => [f.name, f]));
    expect(byName.get(EMAIL)).toMatchObject({
      kind: 'email',
      children: 2,
      email: { subject: 'Re: Notice of default' },
    });
    expect(byName.get(`${EMAIL}/notice.pdf`)?.parent?.id).toBe(byName.get(EMAIL)?.id);

    // A word of the attached PDF is found in it, and opens its page with boxes on the words.
    const search = page.getByRole('searchbox', { name: 'Search this case' });
    await search.fill('vermilionclause');
    await search.press('Enter');
    const results = page.getByRole('region', { name: 'Search results' });
    const hit = results.getByRole('listitem').filter({ hasText: 'notice.pdf' }).first();
    await expect(hit.locator('.result-head')).toContainText(/p\. 1(?!\d)/, { timeout: 60_000 });
    await hit.getByRole('button').first().click();
    const viewer = page.getByRole('region', { name: 'Source viewer' });
    await expect(viewer.getByRole('img', { name: `Page 1 of ${EMAIL}/notice.pdf` })).toBeVisible({ timeout: 60_000 });
    await expect(viewer.getByTestId('cite-box').first()).toBeVisible();
    await screenshot(page, '31-attachment-citation');

    // A spreadsheet's hit says which sheet and row it is on.
    await search.fill('quindecim demand letter');
    await search.press('Enter');
    const row = results.getByRole('listitem').filter({ hasText: 'billing.xlsx' }).first();
    await expect(row).toContainText('Sheet Billing, rows 2–3; Sheet Damages, row 2', { timeout: 60_000 });
    // It opens as the table it came from: the rows with their column names, the cited ones marked.
    await row.getByRole('button').first().click();
    const table = viewer.getByRole('table').first();
    await expect(table.getByRole('columnheader')).toHaveText(['Row', 'Date', 'Timekeeper', 'Hours', 'Description'], {
      timeout: 60_000,
    });
    const row3 = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: '3', exact: true }) });
    await expect(row3).toHaveAttribute('aria-current', 'true');
    await expect(row3.getByRole('cell')).toHaveText([
      '2023-03-04',
      'J. Doe',
      '3.25',
      'Drafted the quindecim demand letter',
    ]);
    await expect(viewer.getByRole('table').nth(1).getByRole('columnheader')).toHaveText(['Row', 'Item', 'Amount']);
    // The search's words are marked in their cells; Ctrl+F finds words in the table, the current one in view.
    await expect(row3.getByTestId('hit-mark')).toHaveText(['quindecim', 'demand', 'letter']);
    await table.getByRole('columnheader', { name: 'Date' }).click();
    await page.keyboard.press('Control+f');
    const find = viewer.getByRole('searchbox', { name: 'Find in document' });
    await expect(find).toBeFocused();
    await find.fill('call with client');
    await expect(viewer.getByTestId('find-status')).toHaveText('1 of 1');
    const row2 = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: '2', exact: true }) });
    const current = row2.getByRole('cell').nth(3).locator('[data-testid="hit-mark"][data-current="true"]');
    await expect(current).toHaveText('Call with client');
    await expect(current).toBeInViewport();
    await expect(row3.getByTestId('hit-mark')).toHaveCount(0);
    await screenshot(page, '32-spreadsheet-row');
  });
});
