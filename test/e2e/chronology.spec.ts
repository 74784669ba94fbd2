import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Locator } from '@playwright/test';
import { unzipSync } from 'fflate';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { expect, screenshot, test } from './fixtures';

/** A two-page medical record of dated visits, one sentence a line. */
async function medicalRecord(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setCreationDate(new Date('2024-03-01T00:00:00Z'));
  doc.setModificationDate(new Date('2024-03-01T00:00:00Z'));
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const pages = [
    [
      'Clinic record of John Roe.',
      'On March 10, 2021 Dr. Maria Alvarez examined the left knee.',
      'The patient reported pain while climbing stairs.',
    ],
    [
      'On Aug. 2, 2021 Dr. Maria Alvarez ordered an MRI of the knee.',
      'The MRI on September 14, 2021 showed a torn meniscus.',
    ],
  ];
  for (const lines of pages) {
    const page = doc.addPage([612, 792]);
    lines.forEach((l, i) => page.drawText(l, { x: 72, y: 700 - i * 24, size: 12, font }));
  }
  return doc.save();
}

/** The agent's turn, scripted: the inventory, the timeline of the knee, an answer citing the last visit. */
const scripts = mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-timeline-'));
const timelineScript = path.join(scripts, 'timeline.json');
writeFileSync(
  timelineScript,
  JSON.stringify({
    steps: [
      { thought: 'Inventory.', action: 'findFiles', action_input: {} },
      { thought: 'The dated events about the knee.', action: 'timeline', action_input: { query: 'knee' } },
      {
        final:
          'He last saw Dr. Maria Alvarez about the knee on Aug. 2, 2021, when she ordered an MRI [cite:{{cite:2}}].',
      },
    ],
  }),
);

test.describe('chronology', () => {
  test.use({ engineEnv: { CASEFILE_SCRIPTED_MODEL: timelineScript } });

  test('the Chronology lists dated events in order, filters them, opens one on its page with boxes, keeps a mark and exports Word and CSV', async ({
    app,
  }) => {
    test.slow(); // a folder is read, then the chronology is built and exported twice
    const { page } = app;
    await app.op('cases.create', { name: 'Roe injury' });
    const work = mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-chronology-'));
    const dir = path.join(work, 'Roe injury');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'clinic record.pdf'), await medicalRecord());
    writeFileSync(
      path.join(dir, 'incident notes.txt'),
      'On March 3, 2021 John Roe slipped on the wet stairs at 12 Elm Street.\n\nThe landlord repaired the stairs in June 2021.\n',
    );

    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Roe injury/ })
      .click();
    const docs = page.getByRole('region', { name: 'Documents' });
    await docs.getByLabel('Choose a folder to add').setInputFiles(dir);
    await expect(docs.locator('[data-file="clinic record.pdf"] [data-status]').first()).toHaveAttribute(
      'data-status',
      'indexed',
      { timeout: 120_000 },
    );
    await expect(docs.locator('[data-file="incident notes.txt"] [data-status]').first()).toHaveAttribute(
      'data-status',
      'indexed',
      { timeout: 120_000 },
    );

    await page.getByRole('button', { name: 'Chronology', exact: true }).click();
    const pane = page.getByRole('region', { name: 'Chronology' });
    const table = pane.getByRole('table');
    await expect(table.getByRole('rowheader')).toHaveText(
      ['2021-03-03', '2021-03-10', '2021-06', '2021-08-02', '2021-09-14'],
      { timeout: 60_000 },
    );
    await expect(pane.getByRole('status')).toContainText('5 dated events · 2 documents read, 2 with dated events');
    await expect(pane.getByRole('img', { name: '5 events from 2021-03-03 to 2021-09-14' })).toBeVisible();
    await screenshot(page, '40-chronology');

    // Words filter the list.
    await pane.getByLabel('Words in the event').fill('knee');
    await pane.getByRole('button', { name: 'Filter' }).click();
    await expect(table.getByRole('rowheader')).toHaveText(['2021-03-10', '2021-08-02']);

    // So do the document and its type.
    await pane.getByLabel('Only the document').selectOption('incident notes.txt');
    await expect(table.getByRole('rowheader')).toHaveCount(0);
    await expect(pane.getByRole('status')).toContainText('0 dated events');
    await pane.getByLabel('Only the document').selectOption('');
    await expect(table.getByRole('rowheader')).toHaveText(['2021-03-10', '2021-08-02']);

    // A row opens its sentence on the page, with boxes on the words.
    const aug = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: '2021-08-02' }) });
    await aug.getByRole('button', { name: /ordered an MRI of the knee/ }).click();
    const viewer = page.getByRole('region', { name: 'Source viewer' });
    await expect(viewer.getByRole('img', { name: 'Page 2 of clinic record.pdf' })).toBeVisible({ timeout: 60_000 });
    await expect(viewer.getByTestId('cite-box').first()).toBeVisible();
    await screenshot(page, '41-chronology-event');

    // Beside the viewer, and in a small window with the viewer open, the table fits its pane: the
    // people, document and mark go under the event; nothing runs out of the pane or scrolls sideways.
    await expect.poll(() => sideways(pane)).toEqual([]);
    await page.setViewportSize({ width: 900, height: 700 });
    await expect(viewer).toBeVisible();
    await expect.poll(() => sideways(pane)).toEqual([]);
    await aug.getByLabel('Mark the event of 2021-08-02').scrollIntoViewIfNeeded();
    await expect(aug.getByLabel('Mark the event of 2021-08-02')).toBeInViewport();
    await screenshot(page, '41b-chronology-narrow');
    await page.setViewportSize({ width: 1400, height: 900 });

    // A mark and a note are kept (the list is read again from the engine), even when the note is
    // still being saved as a filter changes: here the save is held a second on its way, and the
    // list read for the filter is held longer, so a list read before the save would come last.
    await aug.getByLabel('Mark the event of 2021-08-02').selectOption('key');
    await expect(aug).toHaveClass(/mark-key/);
    await page.route('**/op/tools.timelineMark', async (route) => {
      await new Promise((r) => setTimeout(r, 1000));
      await route.continue();
    });
    await page.route('**/op/tools.timeline', async (route) => {
      const response = await route.fetch();
      await new Promise((r) => setTimeout(r, 2000));
      await route.fulfill({ response });
    });
    await aug.getByLabel('Note on the event of 2021-08-02').fill('Causation: MRI ordered');
    await aug.getByLabel('Note on the event of 2021-08-02').press('Enter');
    await pane.getByLabel('Only events marked').selectOption('key');
    await expect(table.getByRole('rowheader')).toHaveText(['2021-08-02']);
    await expect(table.getByLabel('Note on the event of 2021-08-02')).toHaveValue('Causation: MRI ordered');
    await page.unrouteAll({ behavior: 'wait' });
    await expect(table.getByLabel('Note on the event of 2021-08-02')).toHaveValue('Causation: MRI ordered');

    // Word: a table with the event, its document and pin cite, and the mark and note.
    const wordDownload = page.waitForEvent('download');
    await pane.getByRole('button', { name: 'Export Word' }).click();
    const word = await wordDownload;
    expect(word.suggestedFilename()).toBe('Chronology - Roe injury.docx');
    const xml = new TextDecoder().decode(unzipSync(readFileSync(await word.path()))['word/document.xml']!);
    const cells = [...xml.matchAll(/<w:tc>[\s\S]*?<\/w:tc>/g)].map((m) =>
      [...m[0].matchAll(/<w:t[^>]*>([^<]*)<\/w:t>/g)].map((t) => t[1]).join(''),
    );
    expect(cells).toEqual([
      'Date',
      'Event',
      'People',
      'Document',
      'Cite',
      'Mark / note',
      '2021-08-02',
      // The event's short line, and under it the whole sentence.
      'Dr. Maria Alvarez ordered an MRI of the knee.On Aug. 2, 2021 Dr. Maria Alvarez ordered an MRI of the knee.',
      'Dr. Maria Alvarez',
      'clinic record.pdf',
      'p. 2',
      'key: Causation: MRI ordered',
    ]);

    // CSV of the same list.
    const csvDownload = page.waitForEvent('download');
    await pane.getByRole('button', { name: 'Export CSV' }).click();
    const csv = await csvDownload;
    expect(csv.suggestedFilename()).toBe('Chronology - Roe injury.csv');
    expect(
      readFileSync(await csv.path(), 'utf8')
        .trim()
        .split('\r\n'),
    ).toEqual([
      'Date,Precision,Event,People,Document,Cite,Date as written,Mark,Note,Sentence',
      '2021-08-02,day,Dr. Maria Alvarez ordered an MRI of the knee.,Dr. Maria Alvarez,clinic record.pdf,p. 2,"Aug. 2, 2021",key,Causation: MRI ordered,"On Aug. 2, 2021 Dr. Maria Alvarez ordered an MRI of the knee."',
    ]);

    // The assistant answers "when did … last …" from the timeline, its citation green, its step said in words.
    await pane.getByRole('button', { name: 'Back to chat' }).click();
    const chat = page.getByRole('region', { name: 'Chat' });
    await chat
      .getByRole('textbox', { name: 'Question' })
      .fill('When did the claimant last see a doctor about his knee?');
    await chat.getByRole('textbox', { name: 'Question' }).press('Enter');
    const answer = chat.getByRole('article', { name: 'Answer', exact: true }).last();
    await expect(answer).toContainText('Aug. 2, 2021', { timeout: 60_000 });
    await expect(answer.locator('.chip[data-status="verified"]')).toHaveCount(1);
    await expect(answer.locator('.step-text').nth(1)).toHaveText(
      "Listed the case's dated events about ‘knee’ — 2 events",
    );

    // A file's Bates prefix can be set by hand (its row's "More actions"); one found on no page is refused in plain words.
    const record = docs.locator('[data-file="clinic record.pdf"]');
    const more = record.getByRole('button', { name: 'More actions for clinic record.pdf' });
    await more.click();
    await record.getByRole('menuitem', { name: 'Set Bates prefix…' }).click();
    await record.getByLabel('Bates prefix of clinic record.pdf').fill('XYZ');
    await record.getByRole('button', { name: 'Save' }).click();
    await expect(record.getByRole('alert')).toHaveText(
      'No page of clinic record.pdf has a Bates number starting XYZ in its header or footer.',
    );
    await record.getByRole('button', { name: 'Not Bates-stamped' }).click();
    await expect(record.getByLabel('Bates prefix of clinic record.pdf')).toBeHidden();
    await more.click();
    await expect(record.getByRole('menuitem', { name: 'Set Bates prefix…' })).toBeVisible();
  });
});

/** What in a pane runs out of it at the side, or scrolls sideways: each named by its tag and class. */
function sideways(pane: Locator): Promise<string[]> {
  return pane.evaluate((root) => {
    const edge = root.getBoundingClientRect();
    const out: string[] = [];
    for (const el of Array.from(root.querySelectorAll<HTMLElement>('*'))) {
      const r = el.getBoundingClientRect();
      if (!r.width || !r.height) continue;
      const name = `${el.tagName.toLowerCase()}.${String(el.className).split(' ').join('.')}`;
      if (r.right > edge.right + 1 || r.left < edge.left - 1) out.push(`${name} runs out of the pane`);
      const ox = getComputedStyle(el).overflowX;
      if ((ox === 'auto' || ox === 'scroll') && el.scrollWidth > el.clientWidth + 1)
        out.push(`${name} scrolls sideways`);
    }
    return out;
  });
}
