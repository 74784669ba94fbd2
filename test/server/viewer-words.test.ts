import { describe, expect, it } from 'vitest';
import type { PageImage, PageWords } from '../../src/shared/contract/viewer';
import { pageViewport } from '../../src/core/citations/words';
import { multiPagePdf, rotatedPdf } from '../fixtures/pdfs';
import { ingestedCase } from '../helpers/case';

/** A case with `files` ingested, and the id of each file by name. */
async function caseWith(files: Record<string, Uint8Array | string>) {
  const c = await ingestedCase('Words', files);
  const listed = (await c.call('files.list', { case_id: c.caseId })).files;
  const idOf = (name: string) => listed.find((f) => f.name.endsWith(name))!.id;
  return { ...c, idOf };
}

/** Each word's box must sit where `citations.page` draws the box of that word's characters. */
async function expectWordsOnTheirBoxes(
  call: Awaited<ReturnType<typeof caseWith>>['call'],
  caseId: string,
  fileId: string,
  page: number,
  words: PageWords['words'],
) {
  for (const w of words.filter((_, i) => i % 7 === 0)) {
    const img: PageImage = await call('citations.page', {
      case_id: caseId,
      file_id: fileId,
      page,
      scale: 1,
      start: w.start,
      end: w.end,
    });
    expect(img.rects).toHaveLength(1);
    const r = img.rects[0]!;
    expect(Math.abs(w.x - r.x / img.width)).toBeLessThan(0.003);
    expect(Math.abs(w.y - r.y / img.height)).toBeLessThan(0.003);
    expect(Math.abs(w.width - r.width / img.width)).toBeLessThan(0.003);
    expect(Math.abs(w.height - r.height / img.height)).toBeLessThan(0.003);
  }
}

describe('citations.words – the words of a page and their boxes, for the text layer and find boxes', () => {
  it('gives every word of the page in reading order, each on the box citations.page draws for it', async () => {
    const { call, caseId, idOf } = await caseWith({ 'lease.pdf': await multiPagePdf(3, 12, 'alpha') });
    const fileId = idOf('lease.pdf');
    const read = await call('files.read', { case_id: caseId, file_id: fileId });
    const res = await call('citations.words', { case_id: caseId, file_id: fileId, page: 2 });
    expect(res.page).toBe(2);
    expect(res.page_count).toBe(3);
    const p2 = read.pages.find((p) => p.page === 2)!;
    // The words are the page's text, word by word, with their offsets in the document text.
    expect(res.words.map((w) => w.text).join(' ')).toBe(
      read.text.slice(p2.start, p2.end).trim().split(/\s+/).join(' '),
    );
    for (const w of res.words) expect(read.text.slice(w.start, w.end)).toBe(w.text);
    const line = res.words.findIndex((w) => w.text === 'alpha');
    expect(line).toBeGreaterThan(0);
    // Inside the page, left to right along a line.
    for (const w of res.words) {
      expect(w.x).toBeGreaterThanOrEqual(0);
      expect(w.x + w.width).toBeLessThanOrEqual(1.001);
      expect(w.y + w.height).toBeLessThanOrEqual(1.001);
    }
    expect(res.words[line]!.x).toBeGreaterThan(res.words[line - 1]!.x);
    await expectWordsOnTheirBoxes(call, caseId, fileId, 2, res.words);
  });

  it('places words on a rotated page where the page image has them', async () => {
    const { call, caseId, idOf } = await caseWith({ 'rotated.pdf': await rotatedPdf() });
    const fileId = idOf('rotated.pdf');
    const res = await call('citations.words', { case_id: caseId, file_id: fileId, page: 1 });
    expect(res.words.length).toBeGreaterThan(0);
    await expectWordsOnTheirBoxes(call, caseId, fileId, 1, res.words);
  });

  it('refuses a page that is not there, a bad page number and a document without pages, in words', async () => {
    const { call, caseId, idOf } = await caseWith({
      'lease.pdf': await multiPagePdf(2, 4, 'beta'),
      'note.txt': 'A plain note about the beta clause.',
    });
    await expect(
      call('citations.words', { case_id: caseId, file_id: idOf('lease.pdf'), page: 3 }),
    ).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'lease.pdf has 2 pages; there is no page 3.',
    });
    await expect(
      call('citations.words', { case_id: caseId, file_id: idOf('lease.pdf'), page: 0 }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(
      call('citations.words', { case_id: caseId, file_id: idOf('lease.pdf'), page: 1.5 }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(
      call('citations.words', { case_id: caseId, file_id: idOf('lease.pdf'), page: 1, extra: true }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(
      call('citations.words', { case_id: caseId, file_id: idOf('note.txt'), page: 1 }),
    ).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'note.txt is not a PDF; it has no pages to draw words on.',
    });
  });

  it('the viewport matches pdf.js for every /Rotate', () => {
    const view: [number, number, number, number] = [10, 20, 622, 812];
    expect(pageViewport(view, 0)).toEqual({ transform: [1, 0, 0, -1, -10, 812], width: 612, height: 792 });
    expect(pageViewport(view, 90)).toEqual({ transform: [0, 1, 1, 0, -20, -10], width: 792, height: 612 });
    expect(pageViewport(view, 180)).toEqual({ transform: [-1, 0, 0, 1, 622, -20], width: 612, height: 792 });
    expect(pageViewport(view, 270)).toEqual({ transform: [0, -1, -1, 0, 812, 622], width: 792, height: 612 });
  });
});
