/**
 * Marks on documents shown as text (DOCX, plain text, emails, spreadsheet cells): the cited span
 * and the found words as ranges of the document text, a piece of text split into marked parts,
 * and the window of a long text that follows the current found word. Pure functions.
 */
import type { SafeNode } from '../docx-html';

/** What a mark is: the cited words, a found word, or the found word that is current. */
export type MarkKind = 'cite' | 'hit' | 'current';

/** A marked range [start, end) of some text. */
export interface MarkRange {
  start: number;
  end: number;
  mark: MarkKind;
}

/** The cited words outside, found words inside, where they overlap. */
const ORDER: Record<MarkKind, number> = { cite: 0, hit: 1, current: 1 };

/**
 * `text` as plain text and <mark> elements for the parts of `ranges` (in the text's own offsets,
 * clipped to it); where a cited span and a found word overlap, the found word's mark sits inside.
 */
export function markText(text: string, ranges: MarkRange[]): SafeNode[] {
  const inside = ranges
    .map((r) => ({ ...r, start: Math.max(0, r.start), end: Math.min(text.length, r.end) }))
    .filter((r) => r.end > r.start);
  if (!inside.length) return text ? [{ kind: 'text', text }] : [];
  const cuts = [...new Set([0, text.length, ...inside.flatMap((r) => [r.start, r.end])])].sort((a, b) => a - b);
  const out: SafeNode[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const a = cuts[i]!;
    const b = cuts[i + 1]!;
    const over = inside.filter((r) => r.start <= a && r.end >= b).sort((x, y) => ORDER[x.mark] - ORDER[y.mark]);
    let node: SafeNode = { kind: 'text', text: text.slice(a, b) };
    for (const r of over.reverse()) node = { kind: 'el', tag: 'mark', mark: r.mark, children: [node] };
    out.push(node);
  }
  return out;
}

/** The marks of a view of the document: the cited span (if any) and every found word, the current one told apart. */
export function viewMarks(cite: { start: number; end: number } | null, hits: { start: number; end: number }[], current: number): MarkRange[] {
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
export function followWindow(text: string, prev: TextWindow, at: { start: number; end: number } | null, context: number): TextWindow {
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
  return marks.filter((m) => m.end > win.start && m.start < win.end).map((m) => ({ ...m, start: m.start - win.start, end: m.end - win.start }));
}
