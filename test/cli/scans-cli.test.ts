import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCasefile } from '../helpers/cli';
import { corpusDir, tempHome } from '../helpers/home';

describe('scans and locked PDFs in the CLI (child process)', () => {
  it('reads a protected PDF with the password from --password-file; a wrong one is refused; none given is a usage error', {
    timeout: 240_000,
  }, async () => {
    const home = tempHome();
    const drop = path.join(home, 'drop');
    mkdirSync(drop);
    copyFileSync(
      path.join(corpusDir, 'derived-odd-pdfs/ADIANUTRITION-RESELLER_user-password_lawyer123_aes256.pdf'),
      path.join(drop, 'locked.pdf'),
    );
    expect((await runCasefile(home, ['cases', 'create', 'Locked'])).code).toBe(0);
    const ingested = await runCasefile(home, ['ingest', 'Locked', drop, '--json']);
    expect(JSON.parse(ingested.stdout).results[0]).toMatchObject({
      name: 'locked.pdf',
      status: 'failed',
      reason: expect.stringMatching(/casefile unlock/),
    });

    const wrong = path.join(home, 'wrong.txt');
    writeFileSync(wrong, 'lawyer321\n');
    const refused = await runCasefile(home, ['unlock', 'Locked', 'locked.pdf', '--password-file', wrong]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('That password does not open locked.pdf.');

    const none = await runCasefile(home, ['unlock', 'Locked', 'locked.pdf']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no password given');

    const right = path.join(home, 'right.txt');
    writeFileSync(right, 'lawyer123\n');
    const opened = await runCasefile(home, ['unlock', 'Locked', 'locked.pdf', '--password-file', right, '--json']);
    expect(opened.code).toBe(0);
    expect(JSON.parse(opened.stdout)).toMatchObject({
      name: 'locked.pdf',
      reread: true,
      results: [{ name: 'locked.pdf', status: 'indexed' }],
    });
    const search = await runCasefile(home, ['search', 'Locked', 'reseller', '--mode', 'keyword', '--json']);
    expect(JSON.parse(search.stdout).results[0]).toMatchObject({ file_name: 'locked.pdf' });
  });

  it('files says which documents were read by OCR, and how many pages', { timeout: 240_000 }, async () => {
    const home = tempHome();
    expect((await runCasefile(home, ['cases', 'create', 'Scans'])).code).toBe(0);
    const scan = path.join(corpusDir, 'freelaw-courtlistener/cl/assets/media/test/search/opinion_pdf_image_based.pdf');
    expect((await runCasefile(home, ['ingest', 'Scans', scan])).code).toBe(0);
    expect((await runCasefile(home, ['files', 'Scans'])).stdout).toMatch(
      /opinion_pdf_image_based\.pdf .* indexed \(OCR, 1 page\) — read by OCR: page 1 \(mean confidence \d+%\)/,
    );
    const json = JSON.parse((await runCasefile(home, ['files', 'Scans', '--json'])).stdout) as {
      files: { kind: string; ocr_pages: { page: number }[] }[];
    };
    expect(json.files[0]).toMatchObject({ kind: 'pdf', ocr_pages: [{ page: 1, confidence: expect.any(Number) }] });
  });
});
