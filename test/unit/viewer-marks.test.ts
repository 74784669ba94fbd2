import { describe, expect, it } from 'vitest';
import type { SafeNode } from '../../src/renderer/src/lib/docx-html';
import { followWindow, markText, marksIn, viewMarks } from '../../src/renderer/src/lib/viewer-marks';

/** The marks as "kind:text" (nested marks as "outer>inner:text"), and the whole text back. */
function marksOf(nodes: SafeNode[], outer = ''): string[] {
  return nodes.flatMap((n) => {
    if (n.kind === 'text') return outer ? [`${outer}:${n.text}`] : [];
    return marksOf(n.children, outer ? `${outer}>${n.mark}` : (n.mark ?? n.tag));
  });
}
const textOf = (nodes: SafeNode[]): string =>
  nodes.map((n) => (n.kind === 'text' ? n.text : textOf(n.children))).join('');

describe('viewer marks: the cited words and found words on documents shown as text', () => {
  const text = 'The tenant shall pay the rent. The tenant may terminate.';
  const at = (word: string, nth = 0) => {
    let i = -1;
    for (let k = 0; k <= nth; k++) i = text.indexOf(word, i + 1);
    return { start: i, end: i + word.length };
  };

  it('markText – every found word marked, the current one told apart, the text unchanged', () => {
    const marks = viewMarks(null, [at('tenant'), at('tenant', 1)], 1);
    const nodes = markText(text, marks);
    expect(marksOf(nodes)).toEqual(['hit:tenant', 'current:tenant']);
    expect(textOf(nodes)).toBe(text);
  });

  it('markText – a found word inside the cited span is marked inside the cite mark; the cite mark has no gap', () => {
    const cite = { start: at('shall').start, end: at('rent').end };
    const nodes = markText(text, viewMarks(cite, [at('pay'), at('tenant', 1)], 0));
    expect(marksOf(nodes)).toEqual(['cite:shall ', 'cite>current:pay', 'cite: the rent', 'hit:tenant']);
    expect(nodes.filter((n) => n.kind === 'el' && n.mark === 'cite')).toHaveLength(1);
    expect(textOf(nodes)).toBe(text);
    // A found word across the cited span's end: marked on both sides, the cite mark still one.
    const across = markText(text, viewMarks({ start: 0, end: at('tenant').start + 3 }, [at('tenant')], 0));
    expect(marksOf(across)).toEqual(['cite:The ', 'cite>current:ten', 'current:ant']);
  });

  it('markText – ranges past the text are clipped, empty ones ignored; no marks gives the text as it is', () => {
    expect(
      marksOf(
        markText('abc', [
          { start: -5, end: 2, mark: 'hit' },
          { start: 1, end: 1, mark: 'cite' },
        ]),
      ),
    ).toEqual(['hit:ab']);
    expect(markText('abc', [{ start: 5, end: 9, mark: 'hit' }])).toEqual([{ kind: 'text', text: 'abc' }]);
    expect(markText('', [])).toEqual([]);
  });

  it('marksIn – the marks touching a window, in its own offsets', () => {
    const marks = viewMarks(
      { start: 5, end: 15 },
      [
        { start: 2, end: 4 },
        { start: 12, end: 20 },
        { start: 30, end: 33 },
      ],
      2,
    );
    expect(marksIn(marks, { start: 10, end: 25 })).toEqual([
      { start: -5, end: 5, mark: 'cite' },
      { start: 2, end: 10, mark: 'hit' },
    ]);
  });

  it('followWindow – stays while it holds the word; else moves to it, its edges on line breaks', () => {
    const long = Array.from({ length: 400 }, (_, i) => `line ${i} of the letter`).join('\n');
    const prev = { start: 0, end: 500 };
    expect(followWindow(long, prev, { start: 100, end: 110 }, 200)).toBe(prev);
    expect(followWindow(long, prev, null, 200)).toBe(prev);
    const hit = { start: long.indexOf('line 300 '), end: long.indexOf('line 300 ') + 8 };
    const moved = followWindow(long, prev, hit, 200);
    expect(moved.start).toBeLessThanOrEqual(hit.start - 200);
    expect(moved.end).toBeGreaterThanOrEqual(hit.end + 200);
    expect(long[moved.start - 1]).toBe('\n');
    expect(long[moved.end]).toBe('\n');
    // One long line (no break near): the window is cut at its size rather than growing to the line.
    const flat = 'x'.repeat(50_000);
    expect(followWindow(flat, prev, { start: 30_000, end: 30_010 }, 4000)).toEqual({ start: 26_000, end: 34_010 });
  });
});
