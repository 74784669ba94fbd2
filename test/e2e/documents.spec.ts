import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FileInfo } from '../../src/shared/contract/ingest';
import { imageOnlyPdf } from '../fixtures/pdfs';
import { makeCaseFolder } from './corpus';
import { expect, screenshot, test } from './fixtures';

test.describe('documents', () => {
  test('add a folder of real documents: progress to done, broken files say why, search finds text', async ({ app }) => {
    test.slow(); // real documents ingested, searched and rendered: the time depends on the machine and its load
    const { page } = app;
    const created = await app.op<{ id: string }>('cases.create', { name: 'Steel Vault' });
    // OCR turned off for this case (OCR itself: ocr.spec.ts).
    await app.op('cases.setOcr', { case_id: created.id, enabled: false });
    const { dir, names } = makeCaseFolder();
    // A scan with no text layer, OCR off: listed as needing OCR, not as indexed or failed.
    mkdirSync(path.join(dir, 'scans'));
    writeFileSync(path.join(dir, 'scans', 'photo-scan.pdf'), await imageOnlyPdf());
    names.scan = 'scans/photo-scan.pdf';
    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Steel Vault/ })
      .click();
    const docs = page.getByRole('region', { name: 'Documents' });
    await expect(docs.getByText('Drop a case folder here')).toBeVisible();
    // It names every type that is read, not only PDF and Word.
    await expect(docs.getByText(/in folders of any depth/)).toHaveText(
      /^PDF, Word \(\.docx, \.doc\), .*emails \(\.eml, \.msg\), spreadsheets \(\.xlsx, .*\), ZIP archives and images, in folders/,
    );

    // A run that finishes normally never shows the "not finished" banner, not even for a moment.
    await page.evaluate(() => {
      const seen = () => document.querySelector('[aria-label="Unfinished documents"]') !== null;
      const w = window as unknown as { unfinishedShown: boolean };
      w.unfinishedShown = seen();
      new MutationObserver(() => (w.unfinishedShown ||= seen())).observe(document.body, {
        childList: true,
        subtree: true,
      });
    });
    await docs.getByLabel('Choose a folder to add').setInputFiles(dir);

    // Every file ends up listed, in its folder, with a final status.
    for (const name of Object.values(names)) {
      await expect(docs.locator(`[data-file="${name}"]`)).toBeVisible({ timeout: 60_000 });
    }
    const row = (name: string) => docs.locator(`[data-file="${name}"]`);
    await expect(row(names.steelVault!).locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed', {
      timeout: 90_000,
    });
    await expect(row(names.mphase!).locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed', {
      timeout: 90_000,
    });
    // (Each file's final status may still be on its way on a loaded machine: the same generous wait for each.)
    await expect(row(names.docx!).locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed', {
      timeout: 90_000,
    });
    await expect(row(names.txt!).locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed', {
      timeout: 90_000,
    });
    await expect(row(names.truncated!).locator('[data-status]').first()).toHaveAttribute('data-status', 'failed', {
      timeout: 90_000,
    });
    await expect(row(names.empty!).locator('[data-status]').first()).toHaveAttribute('data-status', 'failed', {
      timeout: 90_000,
    });
    await expect(row(names.scan!).locator('[data-status]').first()).toHaveAttribute('data-status', 'needs_ocr', {
      timeout: 90_000,
    });
    await expect(row(names.scan!).locator('[data-status]').first()).toHaveText('Needs OCR');
    await expect(docs.getByRole('status', { name: 'Ingest progress' })).toBeHidden({ timeout: 60_000 });

    // The failure reasons, in plain words, on hover (the pill's tooltip) and on click.
    await expect(row(names.empty!).locator('[data-status]').first()).toHaveAttribute('title', 'empty file');
    await row(names.empty!).getByRole('button', { name: 'Why?' }).click();
    await expect(row(names.empty!).getByRole('note')).toHaveText('empty file');
    await row(names.truncated!).getByRole('button', { name: 'Why?' }).click();
    await expect(row(names.truncated!).getByRole('note')).toContainText(/PDF/);

    // Pages as the engine reports them.
    const { files } = await app.op<{ files: FileInfo[] }>('files.list', { case_id: created.id });
    const steel = files.find((f) => f.name === names.steelVault)!;
    // Its pages, document type and date (when the engine found one) in their columns.
    const cells = row(names.steelVault!).getByRole('gridcell');
    await expect(cells.nth(1)).toHaveText(new RegExp(`^${steel.type.replace(/_/g, ' ')}$`, 'i'));
    await expect(cells.nth(1)).toBeVisible();
    await expect(cells.nth(2)).toHaveText(steel.date);
    await expect(cells.nth(3)).toHaveText(String(steel.pages));
    await expect(cells.nth(3)).toBeVisible();
    // One version: no version badge ("v2 ▾" shows only where there are more; the row's ⋯ lists them).
    await expect(row(names.steelVault!).getByRole('button', { name: /^v\d/ })).toHaveCount(0);
    await expect(docs.getByRole('row', { name: /contracts \(2\)/ })).toBeVisible();
    await screenshot(page, '02-documents');

    // Search: a phrase from the Steel Vault contract finds it; the result opens the page with boxes.
    await page.getByRole('searchbox', { name: 'Search this case' }).fill('marketing affiliate agreement');
    await page.getByRole('searchbox', { name: 'Search this case' }).press('Enter');
    const results = page.getByRole('region', { name: 'Search results' });
    await expect(results.getByRole('listitem').first()).toContainText(names.steelVault!);
    // The question names the affiliate agreement: the search says it looked there first, and can widen.
    const focusNote = results.getByRole('note', { name: 'Search focus' });
    await expect(focusNote).toContainText(`the document the question names`);
    await expect(focusNote).toContainText(names.steelVault!);
    await focusNote.getByRole('button', { name: 'Search all documents' }).click();
    await expect(focusNote).toBeHidden();
    await expect(results.getByRole('listitem').first()).toBeVisible();
    await results.getByRole('listitem').filter({ hasText: names.steelVault! }).first().getByRole('button').click();
    const viewer = page.getByRole('region', { name: 'Source viewer' });
    await expect(viewer.getByRole('img', { name: /Page \d+ of contracts\/affiliate-agreement\.pdf/ })).toBeVisible();
    await expect(viewer.getByTestId('cite-box').first()).toBeVisible();
    await screenshot(page, '03-search-viewer');
    expect(await page.evaluate(() => (window as unknown as { unfinishedShown: boolean }).unfinishedShown)).toBe(false);

    // A text document opens as its passage with the cited span highlighted.
    await page.getByRole('searchbox', { name: 'Search this case' }).fill('TOM WATSON professional golfer');
    await page.getByRole('searchbox', { name: 'Search this case' }).press('Enter');
    const txtResult = results.getByRole('listitem').filter({ hasText: names.txt! }).first();
    await expect(txtResult).toBeVisible();
    await txtResult.getByRole('button').click();
    // (The search's words are marked too, inside and around it: the cited span is the .cite-mark.)
    await expect(viewer.getByTestId('passage').locator('mark.cite-mark')).toContainText('TOM WATSON');
    await expect(viewer.getByTestId('passage').locator('mark.cite-mark')).toBeInViewport();

    // A DOCX opens in its own formatting (mammoth's HTML, sanitised): heading, paragraphs and list
    // items, with the cited words marked in place — exactly the span's words — and scrolled to.
    await page
      .getByRole('searchbox', { name: 'Search this case' })
      .fill('Applicant contends command did not support him personal problems divorce');
    await page.getByRole('searchbox', { name: 'Search this case' }).press('Enter');
    const docxResult = results.getByRole('listitem').filter({ hasText: names.docx! }).first();
    await expect(docxResult).toBeVisible();
    await docxResult.getByRole('button').click();
    const docxView = viewer.locator('[data-testid="passage"][data-view="docx"]');
    await expect(docxView).toBeVisible();
    await expect(docxView.locator('h1')).toHaveCount(1);
    expect(await docxView.locator('p').count()).toBeGreaterThan(20);
    expect(await docxView.locator('li').count()).toBeGreaterThan(2);
    expect(await docxView.locator('script, style, iframe, img, [style], [onclick], [href]').count()).toBe(0);
    const marks = docxView.locator('mark.cite-mark');
    await expect(marks.first()).toBeInViewport();
    const span = {
      start: Number(await docxView.getAttribute('data-start')),
      end: Number(await docxView.getAttribute('data-end')),
    };
    const docxFile = (await app.op<{ files: FileInfo[] }>('files.list', { case_id: created.id })).files.find(
      (f) => f.name === names.docx,
    )!;
    const content = await app.op<{ text: string }>('files.read', { case_id: created.id, file_id: docxFile.id });
    const squeeze = (s: string) => s.replace(/\s+/g, '');
    const marked = (await marks.allTextContents()).join('');
    expect(squeeze(marked)).toBe(squeeze(content.text.slice(span.start, span.end)));
    expect(squeeze(marked)).toContain(squeeze('did not support him'));
    await screenshot(page, '03b-docx-viewer');

    // Remove a file (from its row's "More actions" menu): confirmed in a dialog naming it, then gone from the list and the engine.
    await row(names.empty!)
      .getByRole('button', { name: /^More actions for / })
      .click();
    await row(names.empty!).getByRole('menuitem', { name: 'Remove from case…' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove document' });
    await expect(confirm).toContainText(`“${names.empty}”`);
    await confirm.getByRole('button', { name: 'Remove' }).click();
    await expect(row(names.empty!)).toHaveCount(0);
    const after = await app.op<{ files: FileInfo[] }>('files.list', { case_id: created.id });
    expect(after.files.map((f) => f.name)).not.toContain(names.empty);
  });
});
