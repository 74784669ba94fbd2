import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { META_CONTENT_SECURITY_POLICY } from '../../src/main/security';
import { expect, test } from './fixtures';

test.describe('what a file name and the page itself may do', () => {
  test('a right-to-left override in a file name is shown escaped in the documents list, not acted on', async ({
    app,
  }) => {
    test.slow(); // a real ingest runs
    const { page } = app;
    const created = await app.op<{ id: string }>('cases.create', { name: 'Bidi Names' });
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-names-')), 'drop');
    mkdirSync(dir, { recursive: true });
    // Acted on, the override shows this name as "invoiceexe.pdf".
    const name = 'invoice\u202Efdp.exe';
    writeFileSync(path.join(dir, name), 'Invoice 12: the sum of 300 is due on 3 May 2024.\n');
    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Bidi Names/ })
      .click();
    const docs = page.getByRole('region', { name: 'Documents' });
    await app.op('ingest.start', { case_id: created.id, paths: [dir], wait: false });
    const row = docs.locator(`[data-file="${name}"]`);
    await expect(row.locator('[data-status]').first()).toHaveAttribute('data-status', 'indexed', { timeout: 90_000 });
    const shown = row.locator('.file-name');
    await expect(shown).toHaveText('invoice\\u202efdp.exe');
    await expect(shown).toHaveAttribute('title', 'invoice\\u202efdp.exe');
    // No bidi control reaches anything the row shows.
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the user sees.
    expect(await row.innerText()).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200e\u200f]/);
  });

  test('the page carries its Content-Security-Policy itself, without inline styles (a file:// page gets no headers)', async ({
    app,
  }) => {
    const { page } = app;
    await expect(page.getByRole('navigation', { name: 'Cases' })).toBeVisible();
    await expect(page.locator('meta[http-equiv="Content-Security-Policy"]')).toHaveAttribute(
      'content',
      META_CONTENT_SECURITY_POLICY,
    );
    // The page is styled under it (its stylesheet applied), and logs no violation (the fixture fails a test on any console error).
    expect(await page.evaluate(() => document.styleSheets.length)).toBeGreaterThan(0);
  });
});
