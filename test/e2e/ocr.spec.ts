import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import type { FileContent, FileInfo } from '../../src/shared/contract/ingest';
import type { PageImage } from '../../src/shared/contract/viewer';
import { popplerWords } from '../helpers/poppler';
import { corpusDir, expect, screenshot, test } from './fixtures';

/** A 5-page A4 contract; its scan is made from it, and poppler's words of it are the oracle. */
const ORIGINAL = path.join(corpusDir, 'cuad/full_contract_pdf/Part_I/Affiliate_Agreements/LinkPlusCorp_20050802_8-K_EX-10_3240252_EX-10_Affiliate Agreement.pdf');
const LOCKED = path.join(corpusDir, 'derived-odd-pdfs/ADIANUTRITION-RESELLER_user-password_lawyer123_aes256.pdf');

/** Pages 1–5 of the original drawn at 150 dpi by poppler, as an image-only PDF of the same page size. */
async function scannedCopy(dir: string): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  for (let n = 1; n <= 5; n++) {
    const prefix = path.join(dir, `page-${n}`);
    execFileSync('pdftoppm', ['-r', '150', '-f', String(n), '-l', String(n), '-singlefile', '-png', ORIGINAL, prefix]);
    const png = await pdf.embedPng(readFileSync(`${prefix}.png`));
    pdf.addPage([595, 842]).drawImage(png, { x: 0, y: 0, width: 595, height: 842 });
  }
  return pdf.save();
}

test.describe('scans and locked PDFs', () => {
  test('a scanned contract is read by OCR with page progress, found on page 4 with boxes on the words; a locked PDF opens with its password', async ({ app }) => {
    test.slow(); // five pages of OCR, then a search and a password: the time depends on the machine
    const { page } = app;
    const created = await app.op<{ id: string }>('cases.create', { name: 'Scanned matter' });
    const work = mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-ocr-'));
    const dir = path.join(work, 'Scanned matter');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'signed agreement (scan).pdf'), await scannedCopy(work));
    copyFileSync(LOCKED, path.join(dir, 'reseller agreement.pdf'));

    await page.getByRole('navigation', { name: 'Cases' }).getByRole('button', { name: /Scanned matter/ }).click();
    const docs = page.getByRole('region', { name: 'Documents' });
    await docs.getByLabel('Choose a folder to add').setInputFiles(dir);

    // Progress by page while OCR reads the scan.
    await expect(docs.getByRole('status', { name: 'Ingest progress' })).toContainText(/OCR page [1-5] of 5/, { timeout: 120_000 });
    const scan = docs.locator('[data-file="signed agreement (scan).pdf"]');
    await expect(scan.locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed', { timeout: 300_000 });
    await expect(scan.locator('[data-ocr]')).toBeVisible();
    await expect(scan.locator('.file-meta')).toContainText('5 pages');
    await screenshot(page, '20-ocr-indexed');

    // A phrase of page 4 (words OCR read as poppler reads the original) is found, on page 4.
    const files = (await app.op<{ files: FileInfo[] }>('files.list', { caseId: created.id })).files;
    const scanned = files.find((f) => f.name === 'signed agreement (scan).pdf')!;
    const content = await app.op<FileContent>('files.read', { caseId: created.id, fileId: scanned.id });
    const page4 = content.pages.find((p) => p.page === 4)!;
    const ocrText = content.text.slice(page4.start, page4.end);
    const truth = popplerWords(ORIGINAL, 4);
    let at = -1;
    let found: RegExpExecArray | null = null;
    for (let i = 0; i + 4 <= truth.length && !found; i++) {
      const run = truth.slice(i, i + 4).map((w) => w.word);
      if (!run.every((w) => /^[a-z]{4,}$/.test(w))) continue;
      found = new RegExp(`(?<![a-z])${run.join('\\s+')}(?![a-z])`).exec(ocrText);
      at = i;
    }
    expect(found, ocrText.slice(0, 300)).not.toBeNull();
    const phrase = truth.slice(at, at + 4).map((w) => w.word).join(' ');
    await page.getByRole('searchbox', { name: 'Search this case' }).fill(phrase);
    await page.getByRole('searchbox', { name: 'Search this case' }).press('Enter');
    const results = page.getByRole('region', { name: 'Search results' });
    const hit = results.getByRole('listitem').filter({ hasText: 'signed agreement (scan).pdf' }).first();
    await expect(hit).toContainText(/p\. 4|pp\. [34]/);
    await hit.getByRole('button').first().click();
    const viewer = page.getByRole('region', { name: 'Source viewer' });
    await expect(viewer.getByRole('img', { name: /Page 4 of signed agreement \(scan\)\.pdf/ })).toBeVisible();
    await expect(viewer.getByTestId('cite-box').first()).toBeVisible();
    await screenshot(page, '21-ocr-citation');
    // The boxes of the phrase sit on the words where poppler finds them in the original page.
    const start = page4.start + found!.index;
    const img = await app.op<PageImage>('citations.page', { caseId: created.id, fileId: scanned.id, page: 4, scale: 1, start, end: start + found![0].length });
    for (const t of truth.slice(at, at + 4)) {
      const [cx, cy] = [(t.x0 + t.x1) / 2, (t.y0 + t.y1) / 2];
      expect(img.rects.some((r) => cx >= r.x && cx <= r.x + r.width && cy >= r.y && cy <= r.y + r.height), t.word).toBe(true);
    }

    // The locked PDF asks for its password; a wrong one is refused; lawyer123 opens it.
    const locked = docs.locator('[data-file="reseller agreement.pdf"]');
    await expect(locked.locator('[data-status]').first()).toHaveAttribute('data-status', 'failed');
    await locked.getByRole('button', { name: 'Enter password…' }).click();
    const field = locked.getByLabel('Password for reseller agreement.pdf');
    await field.fill('lawyer124');
    await locked.getByRole('button', { name: 'Open' }).click();
    await expect(locked.getByRole('alert')).toHaveText('That password does not open reseller agreement.pdf.');
    await field.fill('lawyer123');
    await locked.getByRole('button', { name: 'Open' }).click();
    await expect(locked.locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed', { timeout: 120_000 });
    await locked.getByRole('button', { name: 'reseller agreement.pdf', exact: true }).click();
    await expect(viewer.getByRole('img', { name: /Page 1 of reseller agreement\.pdf/ })).toBeVisible();
    await screenshot(page, '22-unlocked');

    // The case's OCR setting, in Settings: on by default, turned off by the user.
    await page.getByRole('button', { name: 'Settings' }).click();
    const ocr = page.getByRole('region', { name: 'Scanned pages (OCR) in “Scanned matter”' });
    const box = ocr.getByRole('checkbox', { name: 'Read scanned pages and images (OCR)' });
    await expect(box).toBeChecked();
    await box.click(); // saved, then shown from the case as saved
    await expect(box).not.toBeChecked();
    await expect.poll(async () => (await app.op<{ ocr: { enabled: boolean } }>('cases.get', { caseId: created.id })).ocr.enabled).toBe(false);
  });
});
