/**
 * The source viewer as a place to check a citation: at least its minimum width, a splitter whose
 * width is remembered, page keys, the page box, fit width / fit page, a selectable text layer on
 * the words, "Copy quote with citation", the search's words boxed on the page with next/previous
 * across the document, find in the document (Ctrl+F), and lazily drawn page thumbnails.
 */
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Page, Response } from '@playwright/test';
import { quoteWithCitation } from '../../src/shared/citation-text';
import type { FileContent } from '../../src/shared/contract/ingest';
import type { SearchResponse } from '../../src/shared/contract/search';
import type { PageWords } from '../../src/shared/contract/viewer';
import { multiPagePdf } from '../fixtures/pdfs';
import { eml } from '../helpers/mail';
import { CORPUS } from './corpus';
import { scanOf } from './scans';
import { corpusDir, expect, screenshot, test, type AppFixture } from './fixtures';

const FILE = 'affiliate-agreement.pdf';
const BAA_DOCX =
  'open-agreements/templates/common-paper-cc-by-4.0/common-paper-business-associate-agreement/template.docx';

/** A case holding `files` (name → bytes, or a corpus path), ingested and opened in the app. */
async function openCase(app: AppFixture, files: Record<string, Uint8Array | string>): Promise<string> {
  const { id } = await app.op<{ id: string }>('cases.create', { name: 'Viewer matter' });
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-viewer-')), 'docs');
  mkdirSync(dir);
  for (const [name, from] of Object.entries(files)) {
    if (typeof from === 'string') copyFileSync(path.join(corpusDir, from), path.join(dir, name));
    else writeFileSync(path.join(dir, name), from);
  }
  await app.op('ingest.start', { case_id: id, paths: [dir], wait: true });
  await app.page.reload();
  await app.page
    .getByRole('navigation', { name: 'Cases' })
    .getByRole('button', { name: /Viewer matter/ })
    .click();
  return id;
}

/** Search the case from the header; the search's answer as the app received it. */
async function search(page: Page, query: string): Promise<SearchResponse> {
  const box = page.getByRole('searchbox', { name: 'Search this case' });
  await box.fill(query);
  const answered = page.waitForResponse(
    (r: Response) => r.url().endsWith('/api/op/search') && r.request().method() === 'POST',
  );
  await box.press('Enter');
  const response = (await (await answered).json()) as SearchResponse;
  await expect(page.getByRole('region', { name: 'Search results' }).getByRole('listitem').first()).toBeVisible();
  return response;
}

async function fileId(app: AppFixture, caseId: string, name: string): Promise<string> {
  const { files } = await app.op<{ files: { id: string; name: string }[] }>('files.list', { case_id: caseId });
  return files.find((f) => f.name.endsWith(name))!.id;
}

/** The page number the viewer shows, from its page image's name ("Page 2 of …"). */
async function shownPage(page: Page): Promise<number> {
  const alt = await page.getByRole('region', { name: 'Source viewer' }).locator('img.page-image').getAttribute('alt');
  return Number(/^Page (\d+) of/.exec(alt ?? '')![1]);
}

/** Words of the document that start with one of `terms`, as the viewer marks a search's words. */
function termHits(text: string, terms: string[]): { start: number; end: number }[] {
  const re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${terms.join('|')})[\\p{L}\\p{N}]*`, 'giu');
  return [...text.matchAll(re)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
}

/** Serious and critical axe violations inside the viewer, as readable lines. */
async function viewerViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).include('section[aria-label="Source viewer"]').analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) =>
      v.nodes.map(
        (n) => `${v.id} (${v.impact}): ${n.target.join(' ')} — ${n.failureSummary?.replace(/\s+/g, ' ') ?? ''}`,
      ),
    );
}

/** The text of the document from the current found word on (its first mark), as the view shows it. */
async function textFromCurrent(page: Page, length: number): Promise<string> {
  return page
    .getByRole('region', { name: 'Source viewer' })
    .locator('[data-testid="hit-mark"][data-current="true"]')
    .first()
    .evaluate((mark, n) => {
      const range = document.createRange();
      const box = mark.closest('[data-testid="passage"]')!;
      range.setStart(box, 0);
      range.setEndBefore(mark);
      return (box.textContent ?? '').slice(range.toString().length, range.toString().length + n);
    }, length);
}

/** A long email (about 48,000 characters): "indemnity holdback" near its start, middle and end, each followed by its own word. */
function longLetter(): Promise<Buffer> {
  const where: Record<number, string> = { 5: 'alpha', 400: 'bravo', 795: 'charlie' };
  const paragraphs = Array.from({ length: 800 }, (_, i) =>
    where[i]
      ? `Paragraph ${i}: the indemnity holdback ${where[i]} stays with the escrow agent.`
      : `Paragraph ${i}: routine correspondence about the schedule.`,
  );
  return eml({
    from: 'Jane Doe <jane@firm.example>',
    to: 'Client <client@example.com>',
    subject: 'Closing statement',
    date: new Date('2023-05-02T14:03:00Z'),
    text: paragraphs.join('\n\n'),
  });
}

const pageOf = (doc: FileContent, at: number) => doc.pages.filter((p) => p.start <= at).at(-1)!.page;

/**
 * The text layer of the page shown: each word of its first line lies on that word of the page
 * image, and the line selected with the mouse copies as its words with spaces between.
 */
async function expectLineSelectable(page: Page, words: PageWords): Promise<void> {
  const viewer = page.getByRole('region', { name: 'Source viewer' });
  const img = viewer.locator('img.page-image');
  const layer = viewer.getByTestId('text-layer').locator('span');
  await expect(layer).toHaveCount(words.words.length);
  // Each word of the text layer lies on its word of the page image.
  const frame = (await img.boundingBox())!;
  const sameLine = words.words.findIndex((w) => Math.abs(w.y - words.words[0]!.y) >= w.height / 2);
  const line = words.words.slice(0, sameLine < 0 ? words.words.length : sameLine);
  expect(line.length).toBeGreaterThan(0);
  const firstLine = await layer.first().boundingBox();
  expect(Math.abs((firstLine!.x - frame.x) / frame.width - words.words[0]!.x)).toBeLessThan(0.004);
  for (let i = 0; i < line.length; i++) {
    const b = (await layer.nth(i).boundingBox())!;
    expect(Math.abs((b.x - frame.x) / frame.width - line[i]!.x)).toBeLessThan(0.004);
    expect(Math.abs((b.y - frame.y) / frame.height - line[i]!.y)).toBeLessThan(0.006);
    expect(Math.abs(b.width / frame.width - line[i]!.width)).toBeLessThan(Math.max(0.004, line[i]!.width * 0.1));
  }

  // Select a line with the mouse and copy: its words, as they read.
  const a = (await layer.nth(0).boundingBox())!;
  const z = (await layer.nth(line.length - 1).boundingBox())!;
  await layer.nth(0).scrollIntoViewIfNeeded();
  const a2 = (await layer.nth(0).boundingBox())!;
  const dy = a2.y - a.y;
  await page.mouse.move(a2.x + 1, a2.y + a2.height / 2);
  await page.mouse.down();
  await page.mouse.move(z.x + z.width - 1, z.y + dy + z.height / 2, { steps: 8 });
  await page.mouse.up();
  await page.keyboard.press('Control+c');
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(line.map((w) => w.text).join(' '));
}

test.describe('source viewer', () => {
  test('at least its minimum width, a remembered splitter, page keys, the page box, fit width and fit page, Esc closes', async ({
    app,
  }) => {
    const { page } = app;
    await openCase(app, { [FILE]: CORPUS.steelVault });
    const results = page.getByRole('region', { name: 'Search results' });
    await search(page, 'late charge on the unpaid past-due amount');
    // The snippet marks the search's words.
    const first = results.getByRole('listitem').first();
    const marks = first.locator('mark.term-mark');
    await expect(marks.first()).toBeVisible();
    for (const text of await marks.allTextContents()) expect(text).toMatch(/^(late|charge|unpaid|past|due|amount)/i);

    const opener = first.getByRole('button');
    const before = (await opener.boundingBox())!;
    await opener.click();
    const viewer = page.getByRole('region', { name: 'Source viewer' });
    await expect(viewer.locator('img.page-image')).toBeVisible();
    // The result clicked stays where it was: the results list did not jump.
    expect(Math.abs((await opener.boundingBox())!.y - before.y)).toBeLessThan(3);
    // At least its minimum width (the chat and the documents keep theirs beside it), and the cited words in view.
    expect((await viewer.boundingBox())!.width).toBeGreaterThanOrEqual(360);
    await expect(viewer.getByTestId('cite-box').first()).toBeInViewport();
    const citedPage = await shownPage(page);
    const pageBox = viewer.getByRole('textbox', { name: /Page number/ });
    await expect(pageBox).toHaveValue(String(citedPage));
    await expect(viewer.getByText('of 4', { exact: true })).toBeVisible();
    await screenshot(page, '42-viewer');

    // Keys once the viewer has the focus (a click on the page gives it).
    await viewer.locator('.page-frame').click({ position: { x: 4, y: 4 } });
    await page.keyboard.press('End');
    await expect(viewer.getByRole('img', { name: `Page 4 of ${FILE}` })).toBeVisible();
    await expect(pageBox).toHaveValue('4');
    await page.keyboard.press('Home');
    await expect(viewer.getByRole('img', { name: `Page 1 of ${FILE}` })).toBeVisible();
    await page.keyboard.press('PageDown');
    await expect(viewer.getByRole('img', { name: `Page 2 of ${FILE}` })).toBeVisible();
    await page.keyboard.press('PageUp');
    await expect(viewer.getByRole('img', { name: `Page 1 of ${FILE}` })).toBeVisible();
    await page.keyboard.press('+');
    await expect(viewer.getByText('125%')).toBeVisible();
    await page.keyboard.press('-');
    await expect(viewer.getByText('100%')).toBeVisible();

    // The page box: a page typed and Enter goes there; a page that is not there is not followed.
    await pageBox.fill('3');
    await pageBox.press('Enter');
    await expect(viewer.getByRole('img', { name: `Page 3 of ${FILE}` })).toBeVisible();
    await pageBox.fill('9');
    await pageBox.press('Enter');
    await expect(pageBox).toHaveValue('3');
    await expect(viewer.getByRole('img', { name: `Page 3 of ${FILE}` })).toBeVisible();

    // Fit page: the whole page in view; fit width: the page as wide as the pane.
    const body = viewer.locator('.viewer-body');
    const img = viewer.locator('img.page-image');
    await viewer.getByRole('button', { name: 'Fit page' }).click();
    await expect
      .poll(async () => (await img.boundingBox())!.height, { timeout: 15_000 })
      .toBeLessThanOrEqual((await body.boundingBox())!.height);
    await expect(img).toBeInViewport({ ratio: 1 });
    await viewer.getByRole('button', { name: 'Fit width' }).click();
    await expect(viewer.getByText('100%')).toBeVisible();
    await expect
      .poll(async () => (await img.boundingBox())!.width / (await body.evaluate((el) => el.clientWidth - 32)), {
        timeout: 15_000,
      })
      .toBeGreaterThan(0.98);

    // The splitter: dragged left, the viewer grows; the width is kept after a reload.
    const splitter = page.getByRole('separator', { name: 'Resize the source viewer' });
    const wide = (await viewer.boundingBox())!.width;
    const handle = (await splitter.boundingBox())!;
    await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
    await page.mouse.down();
    await page.mouse.move(handle.x - 60, handle.y + handle.height / 2, { steps: 6 });
    await page.mouse.up();
    await expect.poll(async () => (await viewer.boundingBox())!.width).toBeGreaterThan(wide + 50);
    const dragged = (await viewer.boundingBox())!.width;

    // Esc closes the viewer and gives the focus back to what opened it.
    await viewer.locator('.page-frame').click({ position: { x: 4, y: 4 } });
    await page.keyboard.press('Escape');
    await expect(viewer).toBeHidden();
    await expect(opener).toBeFocused();

    await page.reload();
    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Viewer matter/ })
      .click();
    await search(page, 'late charge on the unpaid past-due amount');
    await results.getByRole('listitem').first().getByRole('button').click();
    await expect(viewer.locator('img.page-image')).toBeVisible();
    await expect.poll(async () => Math.abs((await viewer.boundingBox())!.width - dragged)).toBeLessThan(3);
  });

  test('the words on the page can be selected and copied, and the cited words copied with their citation', async ({
    app,
  }) => {
    const { page } = app;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    const caseId = await openCase(app, { [FILE]: CORPUS.steelVault });
    const response = await search(page, 'late charge on the unpaid past-due amount');
    const hit = response.results[0]!;
    await page
      .getByRole('region', { name: 'Search results' })
      .getByRole('listitem')
      .first()
      .getByRole('button')
      .click();
    const viewer = page.getByRole('region', { name: 'Source viewer' });
    const img = viewer.locator('img.page-image');
    await expect(img).toBeVisible();
    const id = await fileId(app, caseId, FILE);
    const pageNo = await shownPage(page);
    const words = await app.op<PageWords>('citations.words', { case_id: caseId, file_id: id, page: pageNo });
    const layer = viewer.getByTestId('text-layer').locator('span');
    await expect(layer).toHaveCount(words.words.length);
    // The transparent words, page box, zoom and quote controls pass axe.
    expect(await viewerViolations(page)).toEqual([]);

    await expectLineSelectable(page, words);

    // "Copy quote with citation": the highlighted words and where they are.
    // The quote as the chat's sources copy one: long quotes shortened in the middle.
    const doc = await app.op<FileContent>('files.read', { case_id: caseId, file_id: id });
    const span = { ...hit.citation, text: doc.text.slice(hit.citation.start, hit.citation.end) };
    const expected = quoteWithCitation({ span, file_name: FILE, pages: hit.citation.pages });
    expect(expected).toMatch(new RegExp(`^“.+” ${FILE.replace('.', '\\.')}, pp?\\. \\d`));
    await viewer.getByRole('button', { name: 'Copy quote with citation' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Copied the quote with its citation.' })).toBeVisible();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(expected);
  });

  test("a search's words are boxed on the page, with next and previous across the document; Ctrl+F finds words", async ({
    app,
  }) => {
    const { page } = app;
    const caseId = await openCase(app, { [FILE]: CORPUS.steelVault });
    await search(page, 'Marketing Affiliate');
    await page
      .getByRole('region', { name: 'Search results' })
      .getByRole('listitem')
      .first()
      .getByRole('button')
      .click();
    const viewer = page.getByRole('region', { name: 'Source viewer' });
    await expect(viewer.locator('img.page-image')).toBeVisible();
    const id = await fileId(app, caseId, FILE);
    const doc = await app.op<FileContent>('files.read', { case_id: caseId, file_id: id });
    const hits = termHits(doc.text, ['marketing', 'affiliate']);
    expect(new Set(hits.map((h) => pageOf(doc, h.start))).size).toBeGreaterThan(1);

    // Every hit on the open page has a box, styled unlike the cited words' boxes; "n of m" counts them all.
    const status = viewer.getByTestId('find-status');
    await expect(status).toHaveText(new RegExp(`^\\d+ of ${hits.length}$`));
    const onPage = async () => {
      const shown = await shownPage(page);
      return hits.filter((h) => pageOf(doc, h.start) === shown).length;
    };
    const boxes = viewer.getByTestId('hit-box');
    await expect.poll(async () => (await boxes.count()) >= (await onPage()) && (await onPage()) > 0).toBe(true);
    const look = (el: Element) => getComputedStyle(el).backgroundColor;
    expect(await boxes.first().evaluate(look)).not.toBe(await viewer.getByTestId('cite-box').first().evaluate(look));
    await screenshot(page, '43-viewer-search-words');

    // Next match until the page changes: the view follows, the current box in view.
    const start = await shownPage(page);
    const next = viewer.getByRole('button', { name: 'Next match' });
    const currentHit = async () => Number(/^(\d+) of/.exec((await status.textContent()) ?? '')![1]);
    let at = await currentHit();
    expect(pageOf(doc, hits[at - 1]!.start)).toBe(start);
    while (pageOf(doc, hits[at - 1]!.start) === start) {
      await next.click();
      const want = (at % hits.length) + 1;
      await expect(status).toHaveText(`${want} of ${hits.length}`);
      at = want;
      await expect.poll(() => shownPage(page)).toBe(pageOf(doc, hits[at - 1]!.start));
    }
    await expect(viewer.locator('[data-testid="hit-box"][data-current="true"]')).toBeInViewport();
    await viewer.getByRole('button', { name: 'Previous match' }).click();
    await expect.poll(() => shownPage(page)).toBe(start);

    // Ctrl+F: the find box, "n of m", Enter goes to the words, boxed where the page has them.
    await viewer.locator('.page-frame').click({ position: { x: 4, y: 4 } });
    await page.keyboard.press('Control+f');
    const find = viewer.getByRole('searchbox', { name: 'Find in document' });
    await expect(find).toBeFocused();
    await find.fill('attorney fees');
    const found = [...doc.text.matchAll(/attorney\s+fees/gi)];
    expect(found.length).toBeGreaterThan(0);
    await expect(status).toHaveText(new RegExp(`^\\d+ of ${found.length}$`));
    await find.press('Enter');
    const target = pageOf(doc, found[0]!.index);
    await expect.poll(() => shownPage(page)).toBe(target);
    const current = viewer.locator('[data-testid="hit-box"][data-current="true"]');
    await expect(current.first()).toBeInViewport();
    const words = await app.op<PageWords>('citations.words', { case_id: caseId, file_id: id, page: target });
    const attorney = words.words.find((w) => w.start <= found[0]!.index && w.end > found[0]!.index)!;
    const img = (await viewer.locator('img.page-image').boundingBox())!;
    const box = (await current.first().boundingBox())!;
    expect(Math.abs((box.x - img.x) / img.width - attorney.x)).toBeLessThan(0.004);
    expect(Math.abs((box.y - img.y) / img.height - attorney.y)).toBeLessThan(0.006);
    await screenshot(page, '44-viewer-find');
    expect(await viewerViolations(page)).toEqual([]);
    await find.press('Shift+Enter');
    await expect(status).toHaveText(new RegExp(`^${found.length} of ${found.length}$`));
    await find.fill('no such words anywhere');
    await expect(status).toHaveText('No matches');
    await expect(boxes).toHaveCount(0);
    // Esc closes the find box; the viewer stays.
    await find.press('Escape');
    await expect(find).toBeHidden();
    await expect(viewer).toBeVisible();

    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, '45-viewer-dark');
    expect(await viewerViolations(page)).toEqual([]);
  });

  test("a Word document and an email: the search's words marked; Ctrl+F finds a phrase, Enter steps to each in view (the text follows it); Esc closes find, then the viewer", async ({
    app,
  }) => {
    test.slow(); // two documents read, one of 48,000 characters
    const { page } = app;
    const caseId = await openCase(app, { 'baa.docx': BAA_DOCX, 'letter.eml': await longLetter() });
    const viewer = page.getByRole('region', { name: 'Source viewer' });
    const status = viewer.getByTestId('find-status');
    const marks = viewer.getByTestId('hit-mark');
    const current = viewer.locator('[data-testid="hit-mark"][data-current="true"]');
    const find = viewer.getByRole('searchbox', { name: 'Find in document' });
    const results = page.getByRole('region', { name: 'Search results' });

    // The Word document, in its own formatting: every searched word marked, unlike the cited words.
    await search(page, 'Subcontractor disclose PHI');
    await results.getByRole('listitem').filter({ hasText: 'baa.docx' }).first().getByRole('button').first().click();
    await expect(viewer.getByTestId('passage')).toHaveAttribute('data-view', 'docx');
    const docx = await app.op<FileContent>('files.read', {
      case_id: caseId,
      file_id: await fileId(app, caseId, 'baa.docx'),
    });
    const terms = termHits(docx.text, ['subcontractor', 'disclose', 'phi']);
    await expect(status).toHaveText(new RegExp(`^\\d+ of ${terms.length}$`));
    expect((await marks.allTextContents()).join('|').toLowerCase()).toBe(
      terms
        .map((h) => docx.text.slice(h.start, h.end))
        .join('|')
        .toLowerCase(),
    );
    const look = async (el: ReturnType<typeof viewer.locator>) =>
      el.evaluate((e) => `${getComputedStyle(e).backgroundColor} ${getComputedStyle(e).outlineColor}`);
    const plainHit = viewer.locator('[data-testid="hit-mark"]:not([data-current])').first();
    expect(await look(plainHit)).not.toBe(await look(viewer.locator('.cite-mark').first()));
    expect(await look(plainHit)).not.toBe(await look(current.first()));

    // Ctrl+F: a phrase, "n of m", Enter to the next, marked current and in view.
    await viewer.getByTestId('passage').click({ position: { x: 4, y: 4 } });
    await page.keyboard.press('Control+f');
    await expect(find).toBeFocused();
    await find.fill('security incident');
    const phrase = [...docx.text.matchAll(/security\s+incident/gi)];
    expect(phrase.length).toBeGreaterThan(1);
    await expect(status).toHaveText(new RegExp(`^\\d+ of ${phrase.length}$`));
    const at = Number(/^(\d+)/.exec((await status.textContent()) ?? '')![1]);
    await find.press('Enter');
    await expect(status).toHaveText(`${(at % phrase.length) + 1} of ${phrase.length}`);
    await expect(current.first()).toBeInViewport();
    expect((await current.allTextContents()).join('').replace(/\s+/g, ' ').toLowerCase()).toBe('security incident');
    await screenshot(page, '48-viewer-docx-find');
    await find.press('Escape');
    await expect(find).toBeHidden();
    await expect(marks).toHaveCount(0);
    await page.keyboard.press('Escape');
    await expect(viewer).toBeHidden();

    // The email, shown as text: a window of it, which moves to each found phrase in turn.
    await search(page, 'indemnity holdback');
    await results.getByRole('listitem').filter({ hasText: 'letter.eml' }).first().getByRole('button').first().click();
    const passage = viewer.getByTestId('passage');
    await expect(passage).toHaveAttribute('data-view', 'text');
    await expect(status).toHaveText(/^\d+ of 6$/); // "indemnity" and "holdback", three times each
    await expect(marks.first()).toBeVisible();
    const words = ['alpha', 'bravo', 'charlie'];
    const shownWords = async () => {
      const text = (await passage.textContent()) ?? '';
      return words.filter((w) => text.includes(`holdback ${w}`));
    };
    // A long text is shown as a window: only one of the three places at first.
    expect(await shownWords()).toHaveLength(1);
    await passage.click({ position: { x: 4, y: 4 } });
    await page.keyboard.press('Control+f');
    await find.fill('the indemnity holdback');
    await expect(status).toHaveText(/^\d of 3$/);
    for (let step = 0; step < 3; step++) {
      const before = Number(/^(\d)/.exec((await status.textContent()) ?? '')![1]);
      await find.press(step === 2 ? 'Shift+Enter' : 'Enter');
      const now = step === 2 ? before - 1 || 3 : (before % 3) + 1;
      await expect(status).toHaveText(`${now} of 3`);
      await expect(current.first()).toBeInViewport();
      expect(await textFromCurrent(page, 32)).toBe(`the indemnity holdback ${words[now - 1]} stays`.slice(0, 32));
      expect(await shownWords()).toContain(words[now - 1]);
    }
    await screenshot(page, '49-viewer-text-find');
    expect(await viewerViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await viewerViolations(page)).toEqual([]);
    await find.press('Escape');
    await expect(find).toBeHidden();
    await expect(viewer).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(viewer).toBeHidden();
  });

  test('page thumbnails: a strip of every page, only those in view drawn; a thumbnail goes to its page', async ({
    app,
  }) => {
    const { page } = app;
    await openCase(app, { 'long-lease.pdf': await multiPagePdf(40, 6, 'gamma') });
    await search(page, 'gamma clause lease termination');
    await page
      .getByRole('region', { name: 'Search results' })
      .getByRole('listitem')
      .first()
      .getByRole('button')
      .click();
    const viewer = page.getByRole('region', { name: 'Source viewer' });
    await expect(viewer.locator('img.page-image')).toBeVisible();
    await viewer.getByRole('button', { name: 'Thumbnails' }).click();
    const strip = viewer.getByRole('navigation', { name: 'Pages' });
    await expect(strip.getByRole('button')).toHaveCount(40);
    const drawn = strip.getByTestId('thumb-image');
    await expect.poll(() => drawn.count(), { timeout: 30_000 }).toBeGreaterThan(0);
    // Only the thumbnails in view (and a little beyond) are drawn, not all forty.
    expect(await drawn.count()).toBeLessThan(20);
    await expect(strip.getByRole('button', { name: 'Go to page 40' }).getByTestId('thumb-image')).toHaveCount(0);
    await strip.getByRole('button', { name: 'Go to page 3', exact: true }).click();
    await expect(viewer.getByRole('img', { name: 'Page 3 of long-lease.pdf' })).toBeVisible();
    await expect(strip.getByRole('button', { name: 'Go to page 3', exact: true })).toHaveAttribute(
      'aria-current',
      'page',
    );
    // Scrolled to the end, the last pages are drawn.
    await strip.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await expect(strip.getByRole('button', { name: 'Go to page 40' }).getByTestId('thumb-image')).toHaveCount(1, {
      timeout: 30_000,
    });
    await screenshot(page, '46-viewer-thumbnails');
    expect(await viewerViolations(page)).toEqual([]);
  });

  test("an OCR'd page has the text layer too: its words, as OCR read them, are selectable where they are on the scan", async ({
    app,
  }) => {
    test.slow(); // a page read by OCR
    const { page } = app;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    // The top 40 % of the page (some 350 of its 880 words, the phrase searched for among them): OCR
    // reads that much, not the whole dense page.
    const caseId = await openCase(app, {
      'scanned-agreement.pdf': await scanOf(path.join(corpusDir, CORPUS.steelVault), 1, 150, { tops: [1] }),
    });
    const id = await fileId(app, caseId, 'scanned-agreement.pdf');
    const words = await app.op<PageWords>('citations.words', { case_id: caseId, file_id: id, page: 1 });
    // OCR found the page's words and their boxes.
    expect(words.words.length).toBeGreaterThan(100);
    await search(page, 'Marketing Affiliate Equidata');
    await page
      .getByRole('region', { name: 'Search results' })
      .getByRole('listitem')
      .first()
      .getByRole('button')
      .click();
    const viewer = page.getByRole('region', { name: 'Source viewer' });
    await expect(viewer.getByRole('img', { name: 'Page 1 of scanned-agreement.pdf' })).toBeVisible({ timeout: 60_000 });
    await expectLineSelectable(page, words);
    await screenshot(page, '47-viewer-ocr-text-layer');
  });
});
