/**
 * Marks on documents shown as text (DOCX, plain text, emails, spreadsheet cells): the cited span
 * and the found words as ranges of the document text, a piece of text split into marked parts,
 * and the window of a long text that follows the current found word. Pure functions.
 */
import type { MarkKind, SafeNode } from './safe-nodes';

export type { MarkKind } from './safe-nodes';

/** A marked range [start, end) of some text. */
export interface MarkRange {
  start: number;
  end: number;
  mark: MarkKind;
}

const mark = (kind: MarkKind, children: SafeNode[]): SafeNode => ({ kind: 'el', tag: 'mark', mark: kind, children });

/**
 * `text` cut at the ranges (clipped to it, later ones starting where an earlier one ends): each part
 * from `part(text, offset in text, its range or null)`.
 */
function cut(
  text: string,
  at: number,
  ranges: MarkRange[],
  part: (piece: string, from: number, range: MarkRange | null) => SafeNode[],
): SafeNode[] {
  const out: SafeNode[] = [];
  let pos = 0;
  for (const r of [...ranges].sort((x, y) => x.start - y.start)) {
    const a = Math.max(pos, r.start - at);
    const b = Math.min(text.length, r.end - at);
    if (b <= a) continue;
    if (a > pos) out.push(...part(text.slice(pos, a), at + pos, null));
    out.push(...part(text.slice(a, b), at + a, r));
    pos = b;
  }
  if (pos < text.length) out.push(...part(text.slice(pos), at + pos, null));
  return out;
}

/**
 * `text` as plain text and <mark> elements for the parts of `ranges` (in the text's own offsets,
 * clipped to it): one mark for the cited words, the found words' marks inside it where they fall in it.
 */
export function markText(text: string, ranges: MarkRange[]): SafeNode[] {
  const found = ranges.filter((r) => r.mark !== 'cite');
  const words = (piece: string, from: number) =>
    cut(piece, from, found, (p, _, r) =>
      r ? [mark(r.mark, [{ kind: 'text', text: p }])] : [{ kind: 'text', text: p }],
    );
  return cut(
    text,
    0,
    ranges.filter((r) => r.mark === 'cite'),
    (piece, from, cite) => (cite ? [mark('cite', words(piece, from))] : words(piece, from)),
  );
}

/** The marks of a view of the document: the cited span (if any) and every found word, the current one told apart. */
export function viewMarks(
  cite: { start: number; end: number } | null,
  hits: { start: number; end: number }[],
  current: number,
): MarkRange[] {
  const out: MarkRange[] = cite && cite.end > cite.start ? [{ start: cite.start, end: cite.end, mark: 'cite' }] : [];
  hits.forEach((h, i) => out.push({ start: h.start, end: h.end, mark: i === current ? 'current' : 'hit' }));
  return out;
}

/** A stretch [start, end) of a document's text. */
export interface TextWindow {
  start: number;
  end: number;
}

/** How far a window's edge may move to start or end on a line break. */
const SNAP = 1000;

/**
 * The window of `text` to show: `prev` while it holds [at.start, at.end), else one of about
 * `context` characters either side of it, its edges moved to line breaks where one is near.
 */
export function followWindow(
  text: string,
  prev: TextWindow,
  at: { start: number; end: number } | null,
  context: number,
): TextWindow {
  if (!at || (at.start >= prev.start && at.end <= prev.end)) return prev;
  let start = Math.max(0, at.start - context);
  let end = Math.min(text.length, at.end + context);
  const br = start > 0 ? text.lastIndexOf('\n', start) : -1;
  if (br >= 0 && start - br <= SNAP) start = br + 1;
  const eol = end < text.length ? text.indexOf('\n', end) : -1;
  if (eol >= 0 && eol - end <= SNAP) end = eol;
  return { start, end };
}

/** The marks that touch `win`, in offsets of the window's own text. */
export function marksIn(marks: MarkRange[], win: TextWindow): MarkRange[] {
  return marks
    .filter((m) => m.end > win.start && m.start < win.end)
    .map((m) => ({ ...m, start: m.start - win.start, end: m.end - win.start }));
}
