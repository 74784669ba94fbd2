import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PageImage, Passage, PixelRect } from '../../src/shared/contract/viewer';
import { Engine } from '../../src/core/engine';
import { createPageRenderer, defaultRenderWorkerPath } from '../../src/core/citations/render';
import { parseFile, DEFAULT_MAX_BYTES } from '../../src/core/reader/parse';
import { chunkDocument, structureOf } from '../../src/core/text/structure';
import { CaseStore, compactChunks } from '../../src/core/documents/case-store';
import type { FileRecord } from '../../src/core/domain/types';
import { multiPagePdf, rotatedPdf } from '../fixtures/pdfs';
import { tempHome } from '../helpers/home';
import { hasPoppler, popplerWords } from '../helpers/poppler';

/** Store one file in a case the way ingest does (blob, artifacts, manifest), without the index. */
async function addFile(
  engine: Engine,
  caseId: string,
  name: string,
  bytes: Uint8Array,
): Promise<{ id: string; text: string }> {
  const store = new CaseStore(engine.cases.caseDir(caseId));
  const tmp = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-viewer-')), path.basename(name));
  writeFileSync(tmp, bytes);
  const { sha256, size } = await store.importBlob(tmp, DEFAULT_MAX_BYTES);
  const outcome = await parseFile({ bytes, name, maxBytes: DEFAULT_MAX_BYTES });
  const doc = outcome.doc!;
  const id = `f${sha256.slice(0, 10)}`;
  const structure = structureOf(doc.text, doc.index, name, doc.html);
  const chunks = chunkDocument(
    doc,
    { fileId: id, name, version: 1, isLatest: true, docType: outcome.docType, docDate: outcome.docDate },
    undefined,
    structure,
  );
  await store.writeArtifacts(id, 1, {
    text: doc.text,
    index: doc.index,
    html: doc.html,
    structure,
    chunks: compactChunks(chunks),
  });
  await store.update((m) => {
    const record: FileRecord = {
      id,
      name,
      doc_type_override: null,
      versions: [
        {
          version: 1,
          sha256,
          size,
          kind: outcome.kind,
          pages: outcome.pages,
          status: 'indexed',
          reason: '',
          doc_type: outcome.docType,
          doc_date: outcome.docDate,
          ingested_at: new Date().toISOString(),
          empty_pages: [],
          chunks: chunks.length,
        },
      ],
    };
    m.files.push(record);
  });
  return { id, text: doc.text };
}

function overlapX(a: PixelRect, b: { x0: number; x1: number }): number {
  return Math.max(0, Math.min(a.x + a.width, b.x1) - Math.max(a.x, b.x0));
}

describe('source viewer ops', () => {
  const home = tempHome('casefile-viewer-');

  it('citations.page – renders the page and boxes the cited line where poppler sees its words', async () => {
    const engine = await Engine.open({ home });
    try {
      const { id: caseId } = await engine.router.call('cases.create', { name: 'Viewer' });
      const bytes = await multiPagePdf(3, 12, 'alpha');
      const { id, text } = await addFile(engine, caseId, 'lease.pdf', bytes);
      const line = 'Page 2 line 3: the alpha clause of the lease runs until termination.';
      const start = text.indexOf(line);
      expect(start).toBeGreaterThan(0);
      const scale = 2;
      const img: PageImage = await engine.router.call('citations.page', {
        case_id: caseId,
        file_id: id,
        page: 2,
        scale,
        start,
        end: start + line.length,
      });
      expect(img.page_count).toBe(3);
      expect(img.span_pages).toEqual([2]);
      expect(img.width).toBe(Math.ceil(612 * scale));
      expect(img.height).toBe(Math.ceil(792 * scale));
      expect(Buffer.from(img.png, 'base64').subarray(1, 4).toString()).toBe('PNG');
      expect(img.rects).toHaveLength(1);
      const r = img.rects[0]!;
      // Baseline of line 3 is y = 720 - 48 = 672 pt from the bottom: 120 pt from the top.
      expect(r.y).toBeLessThan(120 * scale);
      expect(r.y + r.height).toBeGreaterThan(120 * scale);
      expect(r.x).toBeCloseTo(72 * scale, -1);

      if (hasPoppler) {
        const file = path.join(engine.cases.caseDir(caseId), 'files');
        const pdf = path.join(
          file,
          (await new CaseStore(engine.cases.caseDir(caseId)).readManifest()).files[0]!.versions[0]!.sha256,
        );
        const words = popplerWords(pdf, 2).map((w) => ({
          ...w,
          x0: w.x0 * scale,
          x1: w.x1 * scale,
          y0: w.y0 * scale,
          y1: w.y1 * scale,
        }));
        const lineWords = words.filter((w) => Math.abs((w.y0 + w.y1) / 2 - (r.y + r.height / 2)) < r.height / 2);
        expect(lineWords.map((w) => w.word).join(' ')).toBe(line);
        // Every word of the line lies inside the box horizontally; no word of another line is covered.
        for (const w of lineWords) expect(overlapX(r, w) / (w.x1 - w.x0)).toBeGreaterThan(0.9);
        const others = words.filter((w) => !lineWords.includes(w));
        for (const w of others) {
          const vOverlap = Math.max(0, Math.min(r.y + r.height, w.y1) - Math.max(r.y, w.y0));
          expect(vOverlap / (w.y1 - w.y0)).toBeLessThan(0.5);
        }
      }

      // Another page of the same document: the image, but no boxes (the span is on page 2).
      const p3 = await engine.router.call('citations.page', {
        case_id: caseId,
        file_id: id,
        page: 3,
        scale: 1,
        start,
        end: start + line.length,
      });
      expect(p3.rects).toEqual([]);
      expect(p3.span_pages).toEqual([2]);

      await expect(
        engine.router.call('citations.page', { case_id: caseId, file_id: id, page: 9 }),
      ).rejects.toMatchObject({ code: 'not_found' });
      await expect(
        engine.router.call('citations.page', { case_id: caseId, file_id: id, page: 1, start: 5 }),
      ).rejects.toMatchObject({
        code: 'invalid_input',
        fields: [{ field: 'end', message: 'give both start and end, or neither' }],
      });
      await expect(
        engine.router.call('citations.page', { case_id: caseId, file_id: 'nope', page: 1 }),
      ).rejects.toMatchObject({ code: 'not_found' });
    } finally {
      await engine.close();
    }
  });

  it('citations.page – a rotated page is drawn upright with its boxes rotated too', async () => {
    const engine = await Engine.open({ home });
    try {
      const { id: caseId } = await engine.router.call('cases.create', { name: 'Rotated' });
      const { id, text } = await addFile(engine, caseId, 'rotated.pdf', await rotatedPdf());
      const word = text.match(/\S{4,}/)!;
      const img = await engine.router.call('citations.page', {
        case_id: caseId,
        file_id: id,
        page: 1,
        scale: 1,
        start: word.index!,
        end: word.index! + word[0].length,
      });
      expect(img.rects.length).toBeGreaterThan(0);
      for (const r of img.rects) {
        expect(r.x).toBeGreaterThanOrEqual(0);
        expect(r.y).toBeGreaterThanOrEqual(0);
        expect(r.x + r.width).toBeLessThanOrEqual(img.width + 1);
        expect(r.y + r.height).toBeLessThanOrEqual(img.height + 1);
      }
    } finally {
      await engine.close();
    }
  });

  it('page renderer – runs in a worker thread, drawing exactly what the in-thread fallback draws', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'casefile-render-'));
    const file = path.join(dir, 'three.pdf');
    writeFileSync(file, await multiPagePdf(3, 12, 'gamma'));
    // The source's worker, or the build's where the tests name it (CASEFILE_WORKER_DIR): a thread either way.
    expect(defaultRenderWorkerPath()).toMatch(/render-worker\.(ts|js)$/);
    const worker = createPageRenderer();
    const inThread = createPageRenderer(null);
    try {
      const a = await worker.render({ file, name: 'three.pdf', page: 2, scale: 1 });
      const b = await inThread.render({ file, name: 'three.pdf', page: 2, scale: 1 });
      expect([a.width, a.height, a.pageCount]).toEqual([612, 792, 3]);
      expect(a.transform).toEqual(b.transform);
      expect(Buffer.from(a.png).equals(Buffer.from(b.png))).toBe(true);
      await expect(worker.render({ file, name: 'three.pdf', page: 7, scale: 1 })).rejects.toMatchObject({
        code: 'not_found',
      });
    } finally {
      await worker.close();
      await inThread.close();
    }
  });

  it('citations.passage – returns the text around a span of a text document', async () => {
    const engine = await Engine.open({ home });
    try {
      const { id: caseId } = await engine.router.call('cases.create', { name: 'Text' });
      const body = Array.from({ length: 200 }, (_, i) => `Paragraph ${i}: the tenant shall pay rent on day ${i}.`).join(
        '\n\n',
      );
      const { id, text } = await addFile(engine, caseId, 'notes/letter.txt', new TextEncoder().encode(body));
      const start = text.indexOf('Paragraph 150:');
      const end = start + 'Paragraph 150: the tenant shall pay rent on day 150.'.length;
      const p: Passage = await engine.router.call('citations.passage', {
        case_id: caseId,
        file_id: id,
        start,
        end,
        context: 200,
      });
      expect(p.kind).toBe('text');
      expect(p.file_name).toBe('notes/letter.txt');
      expect(p.text.slice(p.start - p.offset, p.end - p.offset)).toBe(
        'Paragraph 150: the tenant shall pay rent on day 150.',
      );
      expect(p.offset).toBeGreaterThan(0);
      expect(p.text.length).toBeLessThan(1000);
      expect(p.pages.length).toBeGreaterThan(0);
      await expect(
        engine.router.call('citations.page', { case_id: caseId, file_id: id, page: 1 }),
      ).rejects.toMatchObject({ code: 'invalid_input' });
    } finally {
      await engine.close();
    }
  });
});
