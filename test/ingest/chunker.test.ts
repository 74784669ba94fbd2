import { describe, expect, it } from 'vitest';
import { pageAt, splitText } from '../../src/core/text/chunker';
import { chunkDocument } from '../../src/core/text/structure';
import { loadText } from '../../src/core/reader/loaders';

const para = (n: number, words = 60) =>
  Array.from({ length: words }, (_, i) => `word${n}_${i}`).join(' ') + '. Another sentence follows here.';

describe('splitText', () => {
  it('chunks – every chunk equals the text at its offsets and respects the size', () => {
    const text = Array.from({ length: 30 }, (_, i) => para(i)).join('\n\n');
    const spans = splitText(text, { size: 1000, overlap: 150 });
    expect(spans.length).toBeGreaterThan(10);
    for (const s of spans) {
      expect(s.end - s.start).toBeLessThanOrEqual(1000);
      expect(text.slice(s.start, s.end).trim()).toBe(text.slice(s.start, s.end));
    }
    // Ordered, and together they cover all non-space text.
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.start).toBeGreaterThan(spans[i - 1]!.start);
    const covered = new Uint8Array(text.length);
    for (const s of spans) covered.fill(1, s.start, s.end);
    for (let i = 0; i < text.length; i++) if (/\S/.test(text[i]!)) expect(covered[i]).toBe(1);
  });

  it('chunks – consecutive chunks inside one long paragraph overlap by at most the overlap', () => {
    const text = Array.from({ length: 400 }, (_, i) => `w${i}`).join(' ');
    const spans = splitText(text, { size: 200, overlap: 50 });
    for (let i = 1; i < spans.length; i++) {
      const overlap = spans[i - 1]!.end - spans[i]!.start;
      expect(overlap).toBeGreaterThan(0);
      expect(overlap).toBeLessThanOrEqual(50);
    }
  });

  it('chunks – prefers paragraph breaks over line and sentence breaks', () => {
    const a = 'A'.repeat(300) + '. ' + 'B'.repeat(300);
    const text = `${a}\n\n${'C'.repeat(500)}`;
    const spans = splitText(text, { size: 700, overlap: 0 });
    expect(spans.map((s) => text.slice(s.start, s.end))).toEqual([a, 'C'.repeat(500)]);
  });

  it('chunks – text without any separator falls back to fixed windows', () => {
    const text = 'x'.repeat(2500);
    const spans = splitText(text, { size: 1000, overlap: 100 });
    expect(spans.map((s) => [s.start, s.end])).toEqual([
      [0, 1000],
      [900, 1900],
      [1800, 2500],
    ]);
  });

  it('options – refuses an overlap not smaller than the size', () => {
    expect(() => splitText('abc', { size: 10, overlap: 10 })).toThrow(/overlap/);
  });
});

describe('chunkDocument', () => {
  it('records – ids, indexes, pages and hashes', () => {
    const lines = Array.from(
      { length: 230 },
      (_, i) => `Line ${i + 1} of the witness statement, with some words to fill it.`,
    );
    const doc = loadText(new TextEncoder().encode(lines.join('\n')));
    expect(doc.index.pages).toHaveLength(5);
    const chunks = chunkDocument(doc, {
      fileId: 'f1',
      name: 'dir/a.txt',
      version: 2,
      isLatest: true,
      docType: 'other',
      docDate: '',
    });
    expect(chunks[0]!.chunk_id).toBe('dir/a.txt@v2#0');
    const starts = doc.index.pages.map((p) => p.start);
    for (const c of chunks) {
      expect(c.text).toBe(doc.text.slice(c.start, c.end));
      expect(c.page_start).toBe(pageAt(starts, c.start));
      expect(c.page_end).toBe(pageAt(starts, c.end - 1));
      expect(c.hash).toMatch(/^[0-9a-f]{64}$/);
      // The line numbers inside the chunk lie on its pages (50 lines per page).
      const nums = [...c.text.matchAll(/Line (\d+) /g)].map((m) => Number(m[1]));
      expect(Math.ceil(nums[0]! / 50)).toBe(c.page_start);
      expect(Math.ceil(nums[nums.length - 1]! / 50)).toBe(c.page_end);
    }
    expect(chunks.map((c) => c.chunk_index)).toEqual(chunks.map((_, i) => i));
  });
});
