import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AppInfo } from '../../src/shared/contract/index';
import type { FileContent, FileInfo, UnlockResult } from '../../src/shared/contract/ingest';
import type { PageImage } from '../../src/shared/contract/viewer';
import type { Locator, Page } from '@playwright/test';
import { popplerWords, type PopplerWord } from '../helpers/poppler';
import { corpusDir, expect, screenshot, serveOp, startServe, stopServe, test, type ServeProcess } from './fixtures';
import { pageSize, scanOf } from './scans';

/**
 * A 7-page A4 contract of dense typed text; its scan (pages 1–5) is made from it, and poppler's words
 * of it are the oracle. Page 4, where the search lands, is scanned whole; the others only their top
 * 40 % (a hundred-odd words each): every page is still read by OCR, with a third of the words to read.
 */
const ORIGINAL = path.join(
  corpusDir,
  'cuad/full_contract_pdf/Part_I/Affiliate_Agreements/LinkPlusCorp_20050802_8-K_EX-10_3240252_EX-10_Affiliate Agreement.pdf',
);
const LOCKED = path.join(corpusDir, 'derived-odd-pdfs/ADIANUTRITION-RESELLER_user-password_lawyer123_aes256.pdf');
const SCAN = 'signed agreement (scan).pdf';
const PROTECTED = 'reseller agreement.pdf';

/** `words` as a pattern over text: case aside, any white space between them, whole words. */
function wordsPattern(words: string[]): RegExp {
  return new RegExp(`(?<![a-z])${words.join('\\s+')}(?![a-z])`, 'i');
}

/**
 * A run of 5 (else 4) ordinary words of page 4 of the original (pdftotext's), that OCR read the
 * same on the scan's page 4, chosen for the most words that no other page of the contract has: a
 * phrase that finds page 4 and nothing else.
 */
function distinctivePhrase(
  truth: PopplerWord[],
  ocrText: string,
): { words: PopplerWord[]; match: RegExpExecArray } | null {
  const elsewhere = execFileSync('pdftotext', [ORIGINAL, '-'], { encoding: 'utf8' })
    .split('\f')
    .filter((_, i) => i !== 3)
    .join(' ')
    .toLowerCase();
  const otherWords = new Set(elsewhere.match(/[a-z]+/g));
  let best: { words: PopplerWord[]; match: RegExpExecArray; rare: number } | null = null;
  for (const n of [5, 4]) {
    for (let i = 0; i + n <= truth.length; i++) {
      const words = truth.slice(i, i + n);
      if (!words.every((w) => /^[a-z]{3,}$/.test(w.word))) continue;
      const match = wordsPattern(words.map((w) => w.word)).exec(ocrText);
      if (!match) continue;
      const rare = words.filter((w) => !otherWords.has(w.word)).length;
      if (!best || rare > best.rare) best = { words, match, rare };
    }
    if (best && best.rare >= 2) break;
  }
  return best;
}

/** Whether the centre of poppler's box of `w` (points, y down) lies in one of `boxes` (fractions of the page). */
function centreIn(
  w: PopplerWord,
  boxes: { x: number; y: number; width: number; height: number }[],
  [pw, ph]: [number, number],
): boolean {
  const [cx, cy] = [(w.x0 + w.x1) / 2 / pw, (w.y0 + w.y1) / 2 / ph];
  return boxes.some((b) => cx >= b.x && cx <= b.x + b.width && cy >= b.y && cy <= b.y + b.height);
}

/** An element's computed background colour. */
function backgroundOf(el: Locator): Promise<string> {
  return el.evaluate((e) => getComputedStyle(e).backgroundColor);
}

/** What a CSS colour (a theme variable) computes to on this page, for comparing with {@link backgroundOf}. */
function colourOf(page: Page, css: string): Promise<string> {
  return page.evaluate((value) => {
    const probe = document.createElement('span');
    probe.style.backgroundColor = value;
    document.body.append(probe);
    const colour = getComputedStyle(probe).backgroundColor;
    probe.remove();
    return colour;
  }, css);
}

test.describe('scans and locked PDFs', () => {
  test('a scanned contract is read by OCR with page progress, found on page 4 with boxes on the words; a locked PDF opens with its password', async ({
    app,
  }) => {
    test.slow(); // five pages of OCR, then a search and a password: the time depends on the machine and its load
    const { page } = app;
    const created = await app.op<{ id: string }>('cases.create', { name: 'Scanned matter' });
    const work = mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-ocr-'));
    const dir = path.join(work, 'Scanned matter');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, SCAN), await scanOf(ORIGINAL, 5, 150, { tops: [1, 2, 3, 5] }));
    copyFileSync(LOCKED, path.join(dir, PROTECTED));

    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Scanned matter/ })
      .click();
    const docs = page.getByRole('region', { name: 'Documents' });
    await docs.getByLabel('Choose a folder to add').setInputFiles(dir);

    // Progress by page while OCR reads the scan.
    await expect(docs.getByRole('status', { name: 'Ingest progress' })).toContainText(/OCR page [1-5] of 5/, {
      timeout: 120_000,
    });
    const scan = docs.locator(`[data-file="${SCAN}"]`);
    await expect(scan.locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed', { timeout: 300_000 });
    await expect(scan.locator('.col-pages')).toHaveText('5');

    // Its OCR badge: named with the OCR part of its reason; amber ("check the original") exactly when a page is under 80%.
    const files = (await app.op<{ files: FileInfo[] }>('files.list', { case_id: created.id })).files;
    const scanned = files.find((f) => f.name === SCAN)!;
    const ocrPages = scanned.versions.at(-1)!.ocr_pages ?? [];
    expect(ocrPages.map((p) => p.page)).toEqual([1, 2, 3, 4, 5]);
    const low = ocrPages.some((p) => p.confidence < 80);
    const badge = scan.getByRole('img', { name: /^OCR/ });
    await expect(badge).toBeVisible();
    await expect(badge).toHaveAttribute('data-ocr', low ? 'low' : 'ok');
    await expect(badge).toHaveAttribute('title', /^read by OCR: pages 1[-–]5 \(mean confidence \d+%\)/);
    if (low) await expect(badge).toHaveAccessibleName(/^OCR, check the original: .*check the original/);
    else await expect(badge).toHaveText('OCR');
    // Good news is no alarm: the pill is done (amber only when a page needs checking) and the OCR note, under
    // "Why?", sits in no error box.
    const pill = scan.locator('[data-status]').first();
    await expect(pill).toHaveAttribute('data-tone', low ? 'needs-you' : 'done');
    await expect(pill).toHaveText(low ? 'Check the scan' : 'Indexed');
    await scan.getByRole('button', { name: 'Why?' }).click();
    const note = scan.getByRole('note');
    await expect(note).toContainText(/^read by OCR: pages 1[-–]5 \(mean confidence \d+%\)/);
    expect(await backgroundOf(note)).not.toBe(await colourOf(page, 'var(--danger-soft)'));
    expect(await backgroundOf(note)).toBe(await colourOf(page, low ? 'var(--warn-soft)' : 'var(--surface-2)'));
    await scan.getByRole('button', { name: 'Why?' }).click();
    await screenshot(page, '20-ocr-indexed');

    // A distinctive phrase of page 4 (words OCR read as pdftotext reads the original) is found, on page 4.
    const content = await app.op<FileContent>('files.read', { case_id: created.id, file_id: scanned.id });
    const page4 = content.pages.find((p) => p.page === 4)!;
    const ocrText = content.text.slice(page4.start, page4.end);
    const truth = popplerWords(ORIGINAL, 4);
    const phrase = distinctivePhrase(truth, ocrText);
    expect(
      phrase,
      `no run of ordinary words of page 4 read alike by OCR; OCR read: ${ocrText.slice(0, 300)}`,
    ).not.toBeNull();
    const { words, match } = phrase!;
    const search = page.getByRole('searchbox', { name: 'Search this case' });
    await search.fill(words.map((w) => w.word).join(' '));
    await search.press('Enter');
    const results = page.getByRole('region', { name: 'Search results' });
    const hit = results.getByRole('listitem').filter({ hasText: SCAN }).first();
    await expect(hit).toContainText(/\bp\. 4\b|pp\. 3–4|pp\. 4–5/, { timeout: 60_000 });
    await hit.getByRole('button').first().click();
    const viewer = page.getByRole('region', { name: 'Source viewer' });
    await expect(viewer.getByRole('img', { name: `Page 4 of ${SCAN}` })).toBeVisible({ timeout: 60_000 });
    await expect(viewer.getByTestId('cite-box').first()).toBeVisible();
    await screenshot(page, '21-ocr-citation');

    // The boxes drawn over the page (fractions of its size) cover the phrase's words where poppler finds them in the original.
    const size = pageSize(ORIGINAL, 4);
    const drawn = await viewer.getByTestId('cite-box').evaluateAll((els) =>
      els.map((el) => {
        const s = (el as HTMLElement).style;
        return {
          x: parseFloat(s.left) / 100,
          y: parseFloat(s.top) / 100,
          width: parseFloat(s.width) / 100,
          height: parseFloat(s.height) / 100,
        };
      }),
    );
    for (const w of words) expect(centreIn(w, drawn, size), `${w.word} under a drawn box`).toBe(true);
    // And the engine's boxes of exactly the phrase sit on those words.
    const start = page4.start + match.index;
    const img = await app.op<PageImage>('citations.page', {
      case_id: created.id,
      file_id: scanned.id,
      page: 4,
      scale: 1,
      start,
      end: start + match[0].length,
    });
    const rects = img.rects.map((r) => ({
      x: r.x / img.width,
      y: r.y / img.height,
      width: r.width / img.width,
      height: r.height / img.height,
    }));
    for (const w of words) expect(centreIn(w, rects, size), `${w.word} in the phrase's boxes`).toBe(true);

    // The locked PDF asks for its password; a wrong one is refused and the field stays; lawyer123 opens it.
    const locked = docs.locator(`[data-file="${PROTECTED}"]`);
    await expect(locked.locator('[data-status]').first()).toHaveAttribute('data-status', 'failed', { timeout: 60_000 });
    await expect(locked.locator('[data-status]').first()).toHaveAttribute('title', /password protected/);
    // It needs the user (amber), it has not failed (red).
    await expect(locked.locator('[data-status]').first()).toHaveAttribute('data-tone', 'needs-you');
    await expect(locked.locator('[data-status]').first()).toHaveText('Password needed');
    expect(await backgroundOf(locked.locator('[data-status]').first())).toBe(await colourOf(page, 'var(--warn-soft)'));
    // A screen reader hears the row as the pill reads, not "Failed".
    await expect(locked).toHaveAttribute('aria-label', /, Password needed$/);
    await locked.getByRole('button', { name: 'Enter password…' }).click();
    const field = locked.getByLabel(`Password for ${PROTECTED}`);
    await expect(field).toBeFocused();
    await expect(field).toHaveAttribute('type', 'password');
    // Cancel closes the form and gives the focus back to the button.
    await locked.getByRole('button', { name: 'Cancel' }).click();
    await expect(locked.getByRole('button', { name: 'Enter password…' })).toBeFocused();
    await locked.getByRole('button', { name: 'Enter password…' }).click();
    await field.fill('lawyer124');
    await locked.getByRole('button', { name: 'Open' }).click();
    await expect(locked.getByRole('alert')).toHaveText(`That password does not open ${PROTECTED}.`, {
      timeout: 30_000,
    });
    await expect(field).toBeVisible();
    await expect(field).toHaveAttribute('aria-invalid', 'true');
    await screenshot(page, '22-wrong-password');
    await expect(locked.locator('[data-status]').first()).toHaveAttribute('data-status', 'failed');
    await field.fill('lawyer123');
    await locked.getByRole('button', { name: 'Open' }).click();
    await expect(field).toBeHidden({ timeout: 30_000 });
    await expect(locked.locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed', {
      timeout: 120_000,
    });
    await expect(locked.getByRole('button', { name: 'Enter password…' })).toHaveCount(0);
    await locked.getByRole('button', { name: PROTECTED, exact: true }).click();
    await expect(viewer.getByRole('img', { name: `Page 1 of ${PROTECTED}` })).toBeVisible({ timeout: 60_000 });
    await screenshot(page, '23-unlocked');

    // The case's OCR setting, in Settings: on by default, in an installed language, turned off by the user.
    const info = await app.op<AppInfo>('app.info', {});
    await page.getByRole('button', { name: 'Settings' }).click();
    const ocr = page.getByRole('region', { name: 'Scanned pages (OCR) in “Scanned matter”' });
    const box = ocr.getByRole('checkbox', { name: 'Read scanned pages and images (OCR)' });
    await expect(box).toBeChecked();
    await expect(box).toHaveAccessibleDescription(/about 5 seconds a page.*Retry/);
    const language = ocr.getByLabel('Language of the scans');
    await expect(language).toHaveValue('eng');
    if (info.ocr.languages.length < 2) await expect(language).toBeDisabled();
    await box.click(); // saved, then shown from the case as saved
    await expect(box).not.toBeChecked();
    await expect
      .poll(async () => (await app.op<{ ocr: { enabled: boolean } }>('cases.get', { case_id: created.id })).ocr.enabled)
      .toBe(false);
    await screenshot(page, '24-ocr-setting');
    rmSync(work, { recursive: true, force: true });
  });

  test('a PDF opened with its password earlier asks for it again in the source viewer once the server has restarted', async ({
    shell,
    playwright,
    launchOptions,
  }) => {
    test.skip(shell !== 'serve', 'restarts casefile serve on the same data home: serve mode only');
    test.slow(); // two server starts and a PDF read: the time depends on the machine and its load
    const home = mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-'));
    const dir = mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-locked-'));
    copyFileSync(LOCKED, path.join(dir, PROTECTED));
    const op = serveOp;
    let server: ServeProcess | null = null;
    const browser = await playwright.chromium.launch({ ...launchOptions, headless: true });
    try {
      // Opened with its password once: read and indexed; the password was kept in that server's memory only.
      server = await startServe(home);
      const { id: caseId } = await op<{ id: string }>(server, 'cases.create', { name: 'Reseller matter' });
      await op(server, 'ingest.start', { case_id: caseId, paths: [dir], wait: true });
      const { files } = await op<{ files: FileInfo[] }>(server, 'files.list', { case_id: caseId });
      const file = files.find((f) => f.name === PROTECTED)!;
      expect(file.locked).toBe('needs_password');
      await op<UnlockResult>(server, 'files.unlock', {
        case_id: caseId,
        file_id: file.id,
        password: 'lawyer123',
        wait: true,
      });
      await stopServe(server);

      // A new server: the file is still searchable, but its pages need the password again.
      server = await startServe(home);
      const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      await page.goto(server.loginUrl);
      await page
        .getByRole('navigation', { name: 'Cases' })
        .getByRole('button', { name: /Reseller matter/ })
        .click();
      const row = page.getByRole('region', { name: 'Documents' }).locator(`[data-file="${PROTECTED}"]`);
      await expect(row.locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed');
      await row.locator('.file-open').click();
      const viewer = page.getByRole('region', { name: 'Source viewer' });
      await expect(viewer.getByTestId('viewer-locked')).toContainText(
        'This PDF is password protected. Enter its password to show its pages.',
        { timeout: 60_000 },
      );
      // It needs the user: amber, as the row's "Password needed", not an error's red.
      expect(await backgroundOf(viewer.getByTestId('viewer-locked').getByRole('status'))).toBe(
        await colourOf(page, 'var(--warn-soft)'),
      );
      const field = viewer.getByLabel(`Password for ${PROTECTED}`);
      await expect(field).toBeFocused();
      await screenshot(page, '25-viewer-password');
      await field.fill('not it');
      await viewer.getByRole('button', { name: 'Open' }).click();
      await expect(viewer.getByRole('alert')).toHaveText(`That password does not open ${PROTECTED}.`, {
        timeout: 30_000,
      });
      await field.fill('lawyer123');
      await viewer.getByRole('button', { name: 'Open' }).click();
      await expect(viewer.getByRole('img', { name: `Page 1 of ${PROTECTED}` })).toBeVisible({ timeout: 60_000 });
      await expect(viewer.getByTestId('viewer-locked')).toHaveCount(0);
      expect(errors, 'page errors').toEqual([]);
    } finally {
      await browser.close();
      if (server) await stopServe(server);
      rmSync(home, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
