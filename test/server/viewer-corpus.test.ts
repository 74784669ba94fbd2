import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import type { PixelRect } from '../../src/shared/contract/viewer';
import { corpusDir, tempHome } from '../helpers/home';
import { hasPoppler, popplerWords } from '../helpers/poppler';

const PDF = path.join(
  corpusDir,
  'cuad/full_contract_pdf/Part_I/Affiliate_Agreements/SteelVaultCorp_20081224_10-K_EX-10.16_3074935_EX-10.16_Affiliate Agreement.pdf',
);

interface Word {
  w: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** Offset of the word in the document text (matched in reading order), or -1. */
  at: number;
}

function popplerWordsAt(file: string, page: number): Word[] {
  return popplerWords(file, page).map(({ word, ...box }) => ({ ...box, w: word, at: -1 }));
}

/** Fraction of the word's box covered by the union of the rectangles (they do not overlap each other). */
function covered(word: Word, rects: PixelRect[]): number {
  const area = (word.x1 - word.x0) * (word.y1 - word.y0);
  let inter = 0;
  for (const r of rects) {
    const ix = Math.max(0, Math.min(r.x + r.width, word.x1) - Math.max(r.x, word.x0));
    const iy = Math.max(0, Math.min(r.y + r.height, word.y1) - Math.max(r.y, word.y0));
    inter += ix * iy;
  }
  return area > 0 ? inter / area : 0;
}

describe.skipIf(!hasPoppler)('source viewer on a real contract (poppler as the oracle)', () => {
  const home = tempHome('casefile-viewer-corpus-');

  it('citations.page – boxes of a cited passage cover its words and no word outside it', async () => {
    const engine = await Engine.open({ home });
    try {
      const { id: caseId } = await engine.router.call('cases.create', { name: 'Steel Vault' });
      const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-viewer-src-')), 'docs');
      mkdirSync(dir);
      copyFileSync(PDF, path.join(dir, 'affiliate.pdf'));
      await engine.router.call('ingest.start', { case_id: caseId, paths: [dir], wait: true });
      const { files } = await engine.router.call('files.list', { case_id: caseId });
      const file = files[0]!;
      const content = await engine.router.call('files.read', { case_id: caseId, file_id: file.id });
      const page = 2;
      const range = content.pages.find((p) => p.page === page)!;

      // Place poppler's words in the document text, in reading order.
      const words = popplerWordsAt(PDF, page);
      let cursor = range.start;
      for (const w of words) {
        const at = content.text.indexOf(w.w, cursor);
        if (at >= 0 && at < range.end && at - cursor < 200) {
          w.at = at;
          cursor = at + w.w.length;
        }
      }
      const placed = words.filter((w) => w.at >= 0);
      expect(placed.length / words.length).toBeGreaterThan(0.9);

      // Cite a run of 40 words from the middle of the page.
      const first = placed[Math.floor(placed.length / 3)]!;
      const last = placed[placed.indexOf(first) + 39]!;
      const start = first.at;
      const end = last.at + last.w.length;
      const img = await engine.router.call('citations.page', {
        case_id: caseId,
        file_id: file.id,
        page,
        scale: 1,
        start,
        end,
      });
      expect(img.rects.length).toBeGreaterThan(0);

      const inside = placed.filter((w) => w.at >= start && w.at + w.w.length <= end);
      const outside = placed.filter((w) => w.at + w.w.length <= start || w.at >= end);
      expect(inside.length).toBe(40);
      for (const w of inside) expect(covered(w, img.rects), `cited word "${w.w}"`).toBeGreaterThan(0.8);
      for (const w of outside) expect(covered(w, img.rects), `word "${w.w}" outside the span`).toBeLessThan(0.2);
    } finally {
      await engine.close();
    }
  });
});
