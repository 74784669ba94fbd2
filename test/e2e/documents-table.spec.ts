/**
 * The documents pane as a table a lawyer reviews in: sorted by any column (by the headers, or the
 * sort menu at any width), filtered by name, type, date and status, a document's title as its main
 * line and long names cut in the middle, compact rows whose rare actions are in a row menu, a few
 * Tab stops from the name filter; counts that agree everywhere while an ingest runs; no guessed
 * type before a file is read.
 */
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import type { FileInfo } from '../../src/shared/contract/ingest';
import { multiPagePdf } from '../fixtures/pdfs';
import { CORPUS } from './corpus';
import { TYPE_LABEL } from '../../src/renderer/src/lib/display-format';
import { corpusDir, expect, screenshot, test, type AppFixture } from './fixtures';
import { overflowing } from './layout';

const LONG = 'SteelVaultCorp_20081224_10-K_EX-10.16_3074935_EX-10.16_Affiliate Agreement.pdf';

const FILES = 6;

/**
 * A case of four documents ingested: a long-named contract, a titled PDF, a text file typed as
 * correspondence (the longest type's word) and an empty PDF that failed; opened in the window.
 */
async function productionCase(app: AppFixture) {
  const { page } = app;
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-table-')), 'Production');
  mkdirSync(dir);
  copyFileSync(path.join(corpusDir, CORPUS.steelVault), path.join(dir, LONG));
  copyFileSync(path.join(corpusDir, CORPUS.mphase), path.join(dir, 'Mphase co-branding.pdf'));
  copyFileSync(path.join(corpusDir, CORPUS.txt), path.join(dir, 'endorsement.txt'));
  writeFileSync(path.join(dir, 'empty.pdf'), '');
  const { id: caseId } = await app.op<{ id: string }>('cases.create', { name: 'Table' });
  await app.op('ingest.start', { case_id: caseId, paths: [dir], wait: true });
  const listed = await app.op<{ files: FileInfo[] }>('files.list', { case_id: caseId });
  const letter = listed.files.find((f) => f.name === 'endorsement.txt')!;
  await app.op('files.setType', { case_id: caseId, file_id: letter.id, type: 'correspondence' });
  const { files } = await app.op<{ files: FileInfo[] }>('files.list', { case_id: caseId });
  expect(files).toHaveLength(4);
  await page.reload();
  await page.getByRole('navigation', { name: 'Cases' }).getByRole('button', { name: /Table/ }).click();
  const docs = page.getByRole('region', { name: 'Documents' });
  const grid = docs.getByRole('treegrid', { name: 'Documents of this case' });
  const rows = grid.locator('[role="row"][data-file]');
  await expect(rows).toHaveCount(4);
  return { page, docs, grid, rows, files, caseId };
}

/** Serious and critical axe violations inside the documents pane as it is now (a menu open), as readable lines. */
async function paneViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).include('section.pane-docs').analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')}`));
}

const named = (list: FileInfo[]) => list.map((f) => f.name);
const byName = (a: FileInfo, b: FileInfo) =>
  a.name.localeCompare(b.name, undefined, { sensitivity: 'base', numeric: true });
/** The oldest first (undated last either way), or the newest first. */
const byDate = (dir: 1 | -1) => (a: FileInfo, b: FileInfo) =>
  (!a.date || !b.date) && a.date !== b.date ? (a.date ? -1 : 1) : dir * a.date.localeCompare(b.date) || byName(a, b);

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
    const { page, docs, grid, rows, files } = await productionCase(app);
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

    // A type is never broken inside a word ("Correspondenc/e"): each word on one line, and it fits its cell.
    await expect(grid.locator('[data-file="endorsement.txt"] .col-type')).toHaveText(TYPE_LABEL.correspondence!);
    const brokenTypes = await grid.locator('.file-row .col-type').evaluateAll((cells) =>
      cells.flatMap((cell) => {
        const text = cell.firstChild;
        if (!text) return [];
        if (cell.scrollWidth > cell.clientWidth) return [`${cell.textContent} is cut`];
        return [...(text.textContent ?? '').matchAll(/\S+/g)].flatMap((m) => {
          const range = document.createRange();
          range.setStart(text, m.index);
          range.setEnd(text, m.index + m[0].length);
          return range.getClientRects().length > 1 ? [`${m[0]} is broken over lines`] : [];
        });
      }),
    );
    expect(brokenTypes).toEqual([]);

    // Rows are compact: a plain PDF's row is its title and its name, two lines at most (no line of row actions).
    for (const name of [LONG, 'Mphase co-branding.pdf']) {
      const lines = await grid.locator(`[data-file="${name}"]`).evaluate((row) => {
        const line = row.querySelector('.file-open > :first-child')!.getBoundingClientRect().height;
        const style = getComputedStyle(row);
        const frame = Number.parseFloat(style.paddingTop) + Number.parseFloat(style.paddingBottom) + 1;
        return (row.getBoundingClientRect().height - frame) / line;
      });
      expect(lines, `${name}'s row, in lines as tall as its main line`).toBeLessThanOrEqual(2.3);
    }

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
    // …as the row's main line, the file name under it; a screen reader hears both.
    const mphaseRow = grid.locator('[data-file="Mphase co-branding.pdf"]');
    const titleBox = await mphaseRow.getByTestId('file-title').boundingBox();
    const nameBox = await mphaseRow.locator('.file-name').boundingBox();
    expect(nameBox!.y).toBeGreaterThanOrEqual(titleBox!.y + titleBox!.height - 1);
    await expect(mphaseRow.locator('.file-name')).toHaveText('Mphase co-branding.pdf');
    await expect(mphaseRow.locator('.file-open')).toHaveAccessibleName(`${mphase.title}, Mphase co-branding.pdf`);
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
    // By type: the types the engine gave (behind "Filters", with the status and the dates).
    await filters.getByRole('button', { name: /^Filters/ }).click();
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
    await expect(contractRow.locator('.file-open')).toHaveAccessibleName(new RegExp(`${LONG.replace(/[.]/g, '\\.')}$`));
    await expect(long.locator('.mid-tail')).toHaveText(/Affiliate Agreement\.pdf$/);
    await expect(long.locator('.mid-tail')).toBeInViewport({ ratio: 1 });
    const [cell, tail] = [await long.boundingBox(), await long.locator('.mid-tail').boundingBox()];
    expect(tail!.x + tail!.width).toBeLessThanOrEqual(cell!.x + cell!.width + 1);
    await screenshot(page, 'documents-table');

    // Beside the viewer (1400 px wide) the documents keep a readable width; the columns that do not
    // fit move under the name (its pages, its date, its type), and nothing runs out of the window.
    await docs.locator('[data-file="Mphase co-branding.pdf"] .file-open').click();
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

  test('three Tabs from the name filter reach the table; a narrow pane sorts by date with the sort menu; the row menu holds the versions and the Bates prefix, by keyboard', async ({
    app,
  }) => {
    test.slow(); // real PDFs ingested
    const { page, docs, grid, rows, files } = await productionCase(app);
    const order = () => rows.evaluateAll((els) => els.map((el) => el.getAttribute('data-file')));
    const filters = docs.getByRole('group', { name: 'Filter documents' });

    // From the name filter, the first document is at most three Tab presses away.
    await filters.getByRole('searchbox', { name: 'Filter by name' }).focus();
    const first = grid.locator('[role="row"][data-key]').first();
    for (let presses = 0; presses < 3 && !(await first.evaluate((el) => el === document.activeElement)); presses++)
      await page.keyboard.press('Tab');
    await expect(first).toBeFocused();

    // A small window: the Date column and its header are gone, yet the list sorts by date, by keyboard.
    await page.setViewportSize({ width: 900, height: 700 });
    await expect(docs.getByRole('columnheader', { name: 'Date' })).toBeHidden();
    const sortButton = filters.getByRole('button', { name: /^Sort:/ });
    await expect(sortButton).toHaveAttribute('aria-haspopup', 'menu');
    await expect(sortButton).toHaveText(/Name, A to Z/);
    await sortButton.focus();
    await page.keyboard.press('Enter');
    const sortMenu = page.getByRole('menu', { name: 'Sort documents by' });
    const byNameAZ = sortMenu.getByRole('menuitemradio', { name: 'Name, A to Z' });
    await expect(byNameAZ).toBeFocused();
    await expect(byNameAZ).toHaveAttribute('aria-checked', 'true');
    expect(await paneViolations(page), 'the sort menu open').toEqual([]);
    // Escape closes it and gives the focus back to its button.
    await page.keyboard.press('Escape');
    await expect(sortMenu).toBeHidden();
    await expect(sortButton).toBeFocused();
    await page.keyboard.press('ArrowDown');
    const newest = sortMenu.getByRole('menuitemradio', { name: 'Date, newest first' });
    for (let i = 0; i < 12 && !(await newest.evaluate((el) => el === document.activeElement)); i++)
      await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect(sortMenu).toBeHidden();
    await expect(sortButton).toBeFocused();
    await expect(sortButton).toHaveText(/Date, newest first/);
    await expect.poll(order).toEqual(named([...files].sort(byDate(-1))));
    // The same order as the headers' (the Date header, hidden here, says so).
    await expect(grid.locator('[role="columnheader"].col-date')).toHaveAttribute('aria-sort', 'descending');
    await sortButton.click();
    await sortMenu.getByRole('menuitemradio', { name: 'Date, oldest first' }).click();
    await expect.poll(order).toEqual(named([...files].sort(byDate(1))));

    // A row's rare actions are in its "More actions" menu, the next Tab stop in the row.
    const row = grid.locator('[data-file="Mphase co-branding.pdf"]');
    await row.focus();
    await page.keyboard.press('Tab');
    const more = row.getByRole('button', { name: 'More actions for Mphase co-branding.pdf' });
    await expect(more).toBeFocused();
    await expect(more).toHaveAttribute('aria-haspopup', 'menu');
    await page.keyboard.press('Enter');
    const rowMenu = page.getByRole('menu', { name: 'Actions for Mphase co-branding.pdf' });
    await expect(rowMenu.getByRole('menuitem')).toHaveText(['Versions…', 'Set Bates prefix…', 'Remove from case…']);
    await expect(rowMenu.getByRole('menuitem', { name: 'Versions…' })).toBeFocused();
    await expect(more).toHaveAttribute('aria-expanded', 'true');
    await screenshot(page, 'documents-row-menu');
    expect(await paneViolations(page), 'a row menu open').toEqual([]);
    await page.keyboard.press('Escape');
    await expect(rowMenu).toBeHidden();
    await expect(more).toBeFocused();
    await expect(more).toHaveAttribute('aria-expanded', 'false');

    // The Bates prefix: a form under the row, its field focused; a prefix on no page is refused in plain words.
    await page.keyboard.press('ArrowDown');
    await expect(rowMenu.getByRole('menuitem', { name: 'Versions…' })).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect(rowMenu.getByRole('menuitem', { name: 'Set Bates prefix…' })).toBeFocused();
    await page.keyboard.press('Enter');
    const prefix = row.getByLabel('Bates prefix of Mphase co-branding.pdf');
    await expect(prefix).toBeFocused();
    await page.keyboard.type('XYZ');
    await page.keyboard.press('Enter');
    await expect(row.getByRole('alert')).toContainText(
      'No page of Mphase co-branding.pdf has a Bates number starting XYZ',
    );
    await page.keyboard.press('Escape');
    await expect(prefix).toBeHidden();
    await expect(more).toBeFocused();

    // The versions: the list of them, which opens one in the viewer.
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    const versions = page.getByRole('dialog', { name: 'Versions of Mphase co-branding.pdf' });
    await expect(versions.getByRole('listitem')).toHaveCount(1);
    const open1 = versions.getByRole('button', { name: 'Open version 1' });
    await expect(open1).toBeFocused();
    expect(await paneViolations(page), 'the versions list open').toEqual([]);
    await page.keyboard.press('Escape');
    await expect(versions).toBeHidden();
    await expect(more).toBeFocused();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await expect(open1).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(versions).toBeHidden();
    await expect(page.getByRole('region', { name: 'Source viewer' })).toBeVisible();
  });
});
