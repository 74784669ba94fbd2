/**
 * The documents pane as a table a lawyer reviews in: sorted by any column, filtered by name, type,
 * date and status, long names cut in the middle; counts that agree everywhere while an ingest runs;
 * no guessed type before a file is read.
 */
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FileInfo } from '../../src/shared/contract/ingest';
import { multiPagePdf } from '../fixtures/pdfs';
import { CORPUS } from './corpus';
import { TYPE_LABEL } from '../../src/renderer/src/lib/display-format';
import { corpusDir, expect, screenshot, test } from './fixtures';
import { overflowing } from './layout';

const LONG = 'SteelVaultCorp_20081224_10-K_EX-10.16_3074935_EX-10.16_Affiliate Agreement.pdf';

const FILES = 6;

test.describe('documents table', () => {
  test('while an ingest runs, the header, the sidebar and the list give the same file count; queued files say "queued", not a type', async ({
    app,
  }) => {
    test.slow(); // 600 pages to read: the time depends on the machine and its load
    const { page } = app;
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-counts-')), 'Bundles');
    mkdirSync(dir);
    // More files than the ingest runs at once (at most 4 lanes), so some wait queued.
    for (let i = 1; i <= FILES; i++)
      writeFileSync(path.join(dir, `bundle-${i}.pdf`), await multiPagePdf(100, 40, `marker${i}`));
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
    await expect(queued.locator('.col-type')).toHaveText('queued');
    await expect(docs.locator('.file-row:has([data-status="queued"]) .col-type', { hasText: /^Other/ })).toHaveCount(0);

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

  test('sort by any column, filter by name, type, date and status; "needs attention" filters; long names keep their end', async ({
    app,
  }) => {
    test.slow(); // real PDFs ingested
    const { page } = app;
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-table-')), 'Production');
    mkdirSync(dir);
    copyFileSync(path.join(corpusDir, CORPUS.steelVault), path.join(dir, LONG));
    copyFileSync(path.join(corpusDir, CORPUS.mphase), path.join(dir, 'Mphase co-branding.pdf'));
    copyFileSync(path.join(corpusDir, CORPUS.txt), path.join(dir, 'endorsement.txt'));
    writeFileSync(path.join(dir, 'empty.pdf'), '');
    const { id: caseId } = await app.op<{ id: string }>('cases.create', { name: 'Table' });
    await app.op('ingest.start', { case_id: caseId, paths: [dir], wait: true });
    const { files } = await app.op<{ files: FileInfo[] }>('files.list', { case_id: caseId });
    expect(files).toHaveLength(4);
    await page.reload();
    await page.getByRole('navigation', { name: 'Cases' }).getByRole('button', { name: /Table/ }).click();
    const docs = page.getByRole('region', { name: 'Documents' });
    const grid = docs.getByRole('treegrid', { name: 'Documents of this case' });
    const rows = grid.locator('[role="row"][data-file]');
    await expect(rows).toHaveCount(4);
    const order = () => rows.evaluateAll((els) => els.map((el) => el.getAttribute('data-file')));

    // A table: each column's cells line up across the rows and under its header (one left edge per column).
    for (const col of ['type', 'date', 'pages', 'status']) {
      const lefts = await grid
        .locator(`.col-${col}`)
        .evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().left)));
      expect(lefts, `the ${col} column`).toHaveLength(5); // the header and 4 rows
      expect(new Set(lefts).size, `the ${col} column's left edges: ${lefts.join(', ')}`).toBe(1);
    }
    // Type, date and pages are cells of their own (not a line under the name).
    const contractRow = grid.locator(`[data-file="${LONG}"]`);
    const longFile = files.find((f) => f.name === LONG)!;
    await expect(contractRow.getByRole('gridcell').nth(2)).toHaveText(longFile.date);
    await expect(contractRow.getByRole('gridcell').nth(3)).toHaveText(String(longFile.pages));
    const meta = contractRow.locator('.file-meta');
    await expect(meta.locator('.meta-col:visible')).toHaveCount(0);
    const named = (list: FileInfo[]) => list.map((f) => f.name);
    const byName = (a: FileInfo, b: FileInfo) =>
      a.name.localeCompare(b.name, undefined, { sensitivity: 'base', numeric: true });

    // Pages: a click sorts by it (fewest first), a second click reverses; the header says which (aria-sort).
    const pagesHeader = docs.getByRole('columnheader', { name: 'Pages' });
    await pagesHeader.getByRole('button').click();
    await expect(pagesHeader).toHaveAttribute('aria-sort', 'ascending');
    await expect(docs.getByRole('columnheader', { name: /^Name/ })).toHaveAttribute('aria-sort', 'none');
    await expect.poll(order).toEqual(named([...files].sort((a, b) => a.pages - b.pages || byName(a, b))));
    await pagesHeader.getByRole('button').click();
    await expect(pagesHeader).toHaveAttribute('aria-sort', 'descending');
    await expect.poll(order).toEqual(named([...files].sort((a, b) => b.pages - a.pages || byName(a, b))));
    // Date: the oldest first (undated last either way), then the newest first.
    const dateHeader = docs.getByRole('columnheader', { name: 'Date' });
    const byDate = (dir: 1 | -1) => (a: FileInfo, b: FileInfo) =>
      (!a.date || !b.date) && a.date !== b.date
        ? a.date
          ? -1
          : 1
        : dir * a.date.localeCompare(b.date) || byName(a, b);
    await dateHeader.getByRole('button').click();
    await expect(dateHeader).toHaveAttribute('aria-sort', 'ascending');
    await expect(pagesHeader).toHaveAttribute('aria-sort', 'none');
    await expect.poll(order).toEqual(named([...files].sort(byDate(1))));
    await dateHeader.getByRole('button').click();
    await expect(dateHeader).toHaveAttribute('aria-sort', 'descending');
    await expect.poll(order).toEqual(named([...files].sort(byDate(-1))));
    // Name, the other way round.
    const nameHeader = docs.getByRole('columnheader', { name: /^Name/ });
    await nameHeader.getByRole('button', { name: 'Name' }).click();
    await nameHeader.getByRole('button', { name: 'Name' }).click();
    await expect(nameHeader).toHaveAttribute('aria-sort', 'descending');
    await expect.poll(order).toEqual(named([...files].sort((a, b) => -byName(a, b))));

    // Each document's title (from its outline) under its name; the Title column sorts by it.
    const mphase = files.find((f) => f.name.endsWith('Mphase co-branding.pdf'))!;
    expect(mphase.title).toMatch(/AGREEMENT/i);
    await expect(docs.locator('[data-file$="Mphase co-branding.pdf"] [data-testid="file-title"]')).toHaveText(
      mphase.title!,
    );
    // The name's column sorts by title too (the title is under the name).
    await nameHeader.getByRole('button', { name: 'Title' }).click();
    await expect(nameHeader).toHaveAttribute('aria-sort', 'ascending');
    await expect(nameHeader.getByRole('button', { name: 'Title' })).toHaveAttribute('aria-pressed', 'true');
    const titleOf = (f: FileInfo) => f.title ?? f.name;
    await expect
      .poll(order)
      .toEqual(
        named(
          [...files].sort(
            (a, b) =>
              titleOf(a).localeCompare(titleOf(b), undefined, { sensitivity: 'base', numeric: true }) || byName(a, b),
          ),
        ),
      );

    // Filter by words of the name.
    const filters = docs.getByRole('group', { name: 'Filter documents' });
    await filters.getByRole('searchbox', { name: 'Filter by name' }).fill('co-branding');
    await expect.poll(order).toEqual(['Mphase co-branding.pdf']);
    await expect(docs.locator('.pane-foot')).toContainText('1 of 4 files');
    await filters.getByRole('searchbox', { name: 'Filter by name' }).fill('');
    // By type: the types the engine gave.
    const contract = files.find((f) => f.name === LONG)!;
    await filters.getByRole('combobox', { name: 'Type' }).selectOption(contract.type);
    await expect
      .poll(async () => (await order()).sort())
      .toEqual(named(files.filter((f) => f.type === contract.type)).sort());
    await filters.getByRole('combobox', { name: 'Type' }).selectOption('');
    // By date: the contract's own day, from and to.
    expect(contract.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    await filters.getByLabel('Dated from').fill(contract.date);
    await filters.getByLabel('to', { exact: true }).fill(contract.date);
    await expect
      .poll(async () => (await order()).sort())
      .toEqual(named(files.filter((f) => f.date === contract.date)).sort());
    await screenshot(page, 'documents-table-filtered');
    await docs.locator('.pane-foot').getByRole('button', { name: 'Show all' }).click();
    await expect(rows).toHaveCount(4);

    // "1 file needs attention" is a link to those files.
    await docs.locator('.pane-foot').getByRole('button', { name: '1 file needs attention' }).click();
    await expect.poll(order).toEqual(['empty.pdf']);
    await expect(filters.getByRole('combobox', { name: 'Status' })).toHaveValue('attention');
    await docs.locator('.pane-foot').getByRole('button', { name: 'Show all' }).click();
    await expect(rows).toHaveCount(4);

    // A long name is cut in the middle: its end (where names differ) stays in view; the whole name on hover.
    const long = docs.locator(`[data-file="${LONG}"] .file-name`);
    await expect(long).toHaveAttribute('title', LONG);
    // …and a screen reader reads it whole, not as its two halves.
    await expect(docs.getByRole('button', { name: LONG, exact: true })).toBeVisible();
    await expect(long.locator('.mid-tail')).toHaveText(/Affiliate Agreement\.pdf$/);
    await expect(long.locator('.mid-tail')).toBeInViewport({ ratio: 1 });
    const [cell, tail] = [await long.boundingBox(), await long.locator('.mid-tail').boundingBox()];
    expect(tail!.x + tail!.width).toBeLessThanOrEqual(cell!.x + cell!.width + 1);
    await screenshot(page, 'documents-table');

    // Beside the viewer (1400 px wide) the documents keep a readable width; the columns that do not
    // fit move under the name (its pages, its date, its type), and nothing runs out of the window.
    await docs.getByRole('button', { name: 'Mphase co-branding.pdf', exact: true }).click();
    const viewer = page.getByRole('region', { name: 'Source viewer' });
    await expect(viewer).toBeVisible();
    expect((await docs.boundingBox())!.width).toBeGreaterThanOrEqual(240);
    for (const col of ['Type', 'Date', 'Pages'])
      await expect(docs.getByRole('columnheader', { name: col })).toBeHidden();
    // Under the name, as visible text: "Contract · 2008-12-24 · 4 pages" (the dots are the CSS's, between what is shown).
    const metaText = () =>
      meta.evaluate((el) =>
        [...el.children]
          .filter((c) => getComputedStyle(c).display !== 'none')
          .map((c) => `${getComputedStyle(c, '::before').content.replace(/^none$|"/g, '')}${c.textContent}`)
          .join(''),
      );
    await expect.poll(metaText).toBe(`${TYPE_LABEL[longFile.type]} · ${longFile.date} · ${longFile.pages} pages`);
    await expect(contractRow.locator('.file-name .mid-tail')).toBeInViewport({ ratio: 1 });
    expect(await overflowing(page), 'documents beside the viewer').toEqual([]);
    await screenshot(page, 'documents-table-beside-viewer');
    await viewer.getByRole('button', { name: 'Close source viewer' }).click();
    await expect(viewer).toBeHidden();
    await expect(docs.getByRole('columnheader', { name: 'Pages' })).toBeVisible();

    // A window half as wide keeps the type in its column and moves the pages and the date under the name.
    await page.setViewportSize({ width: 1100, height: 800 });
    await expect(docs.getByRole('columnheader', { name: 'Pages' })).toBeHidden();
    await expect(docs.getByRole('columnheader', { name: 'Date' })).toBeHidden();
    await expect(docs.getByRole('columnheader', { name: 'Type' })).toBeVisible();
    await expect.poll(metaText).toBe(`${longFile.date} · ${longFile.pages} pages`);
    expect(await overflowing(page), 'documents at 1100 px').toEqual([]);

    // At 900×700 only the name and the status keep columns (the status still aligned); the rest is under the name.
    await page.setViewportSize({ width: 900, height: 700 });
    await expect(docs.getByRole('columnheader', { name: 'Type' })).toBeHidden();
    await expect(docs.getByRole('columnheader', { name: 'Status' })).toBeVisible();
    await expect.poll(metaText).toBe(`${TYPE_LABEL[longFile.type]} · ${longFile.date} · ${longFile.pages} pages`);
    const lefts = await grid
      .locator('.col-status')
      .evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().left)));
    expect(new Set(lefts).size, `the status column's left edges at 900 px: ${lefts.join(', ')}`).toBe(1);
    // The long name is cut harder, and still at its start and middle: its end is in view.
    const [button, end] = [await long.boundingBox(), await long.locator('.mid-tail > span').boundingBox()];
    expect(end!.x + end!.width).toBeLessThanOrEqual(button!.x + button!.width + 1);
    expect(await overflowing(page), 'documents at 900×700').toEqual([]);
    await screenshot(page, 'documents-table-900');
  });
});
