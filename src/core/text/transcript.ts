/**
 * Deposition and hearing transcripts: pages of lines numbered 1–N (N from 25 to 28) in the margin,
 * each with its printed page number, cited "page:line". Pure: text and page index in, each page's
 * number and its lines' character ranges out, or null when the document is not a transcript.
 * It is one when half its text pages are numbered-line pages, half of those carry a page number, and
 * they read as speech taken down (Q./A., speaker labels, a reporter's mark), which pleading paper lacks.
 */
import {
  ITEM_STRIDE,
  type PageGeometry,
  type PageIndex,
  type TranscriptLayout,
  type TranscriptLine,
  type TranscriptPage,
} from '../domain/index';

export type { TranscriptLayout };

/** A transcript page being read: its printed number may be unknown yet. */
interface Found {
  page: number;
  printed: number | null;
  lines: TranscriptLine[];
}

const MIN_LINES = 25;
const MAX_LINES = 28;
/** A page number on a line of its own. */
const PAGE_NUMBER = /^\s*(?:page\s+)?-?\s*(\d{1,5})\s*-?(?:\s+of\s+\d{1,5})?\s*$/i;
const LINE_NUMBER = /^\s*(\d{1,2})\s*$/;

/** The document's transcript layout, or null when its pages are not numbered line by line. */
export function detectTranscript(text: string, index: PageIndex): TranscriptLayout | null {
  const textPages = index.pages.filter((p) => /\S/.test(text.slice(p.start, p.end)));
  if (textPages.length === 0) return null;
  let found: Found[] = [];
  if (index.kind === 'pdf') found = index.pages.map((p) => geometryPage(text, p)).filter((f): f is Found => f !== null);
  if (found.length === 0) found = textPagesOf(text, index);
  if (found.length === 0 || found.length < 0.5 * textPages.length) return null;
  if (found.filter((f) => f.printed !== null).length < 0.5 * found.length) return null;
  if (!spoken(text, index, found)) return null;
  const pages = numberPages(found);
  const opening = pages[0]!.lines;
  const head = text.slice(0, Math.max(opening[opening.length - 1]!.end, 4000));
  return { deponent: deponentOf(head), pages };
}

/** A reporter's credentials or a transcript's caption. */
const REPORTER =
  /\b(?:CSR|RPR|RMR|CRR|CCR|RDR)\b|\b(?:court|shorthand|official)\s+reporter\b|\breporter['’]?s\s+transcript\b|\btranscript\s+of\s+(?:the\s+)?proceedings\b/i;
const SPEAKER =
  /^(?:THE (?:COURT|WITNESS|CLERK|REPORTER|DEPONENT|INTERPRETER|VIDEOGRAPHER)|(?:MR|MS|MRS|DR)\.\s+[A-Z][A-Za-z'’-]+)\s*:/;

/**
 * Whether the numbered pages read as spoken words taken down: questions and answers ("Q." and
 * "A."), two speakers' labels ("THE COURT:", "MR. JONES:"), or a court reporter's mark. Pleading
 * paper (a complaint on 28 numbered lines) has none of them.
 */
function spoken(text: string, index: PageIndex, found: Found[]): boolean {
  const numbered = new Set(found.map((f) => f.page));
  if (index.pages.some((p) => numbered.has(p.page) && REPORTER.test(text.slice(p.start, p.end)))) return true;
  let q = 0;
  let a = 0;
  let speakers = 0;
  for (const f of found) {
    for (const l of f.lines) {
      const line = text.slice(l.start, l.end).trimStart();
      if (/^Q[.:]?\s/.test(line)) q++;
      else if (/^A[.:]?\s/.test(line)) a++;
      else if (SPEAKER.test(line)) speakers++;
    }
  }
  return (q > 0 && a > 0) || speakers >= 2;
}

/** Each page's printed number, filled in from its neighbours where it was not found. */
function numberPages(found: Found[]): TranscriptPage[] {
  const firstKnown = found.findIndex((f) => f.printed !== null);
  const out: TranscriptPage[] = [];
  found.forEach((f, i) => {
    const prev = out[i - 1];
    const guess = prev ? prev.transcriptPage + 1 : found[firstKnown]!.printed! - (firstKnown - i);
    out.push({ page: f.page, transcriptPage: f.printed ?? guess, lines: f.lines });
  });
  return out;
}

/** One text item of a page, read. */
interface Item {
  start: number;
  end: number;
  x: number;
  y: number;
  size: number;
  str: string;
}

function itemsOf(text: string, page: PageGeometry): Item[] {
  const out: Item[] = [];
  for (let k = 0; k < page.items.length; k += ITEM_STRIDE) {
    const [start, length, a, b, , , e, f] = page.items.slice(k, k + 8) as number[] as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const str = text.slice(start, start + length);
    if (!/\S/.test(str)) continue;
    out.push({ start, end: start + length, x: e, y: f, size: Math.max(Math.hypot(a, b), page.items[k + 9]!, 1), str });
  }
  return out;
}

/** A PDF page's numbered lines from its text items, or null when it has no column 1 … N. */
function geometryPage(text: string, page: PageGeometry): Found | null {
  if (page.items.length === 0) return null;
  const items = itemsOf(text, page);
  const column = numberColumn(items);
  if (!column) return null;
  const inColumn = new Set(column);
  const lines: TranscriptLine[] = column.map((num, i) => {
    const on = items.filter(
      (it) => !inColumn.has(it) && it.x > num.x && Math.abs(it.y - num.y) <= 0.5 * Math.max(num.size, it.size),
    );
    const run = lineRun(text, on);
    return run ? { line: i + 1, ...run } : { line: i + 1, start: num.end, end: num.end };
  });
  const top = column[0]!.y;
  const bottom = column[column.length - 1]!.y;
  const slack = column[0]!.size * 0.5;
  // Above line 1 first (top right), then below line N.
  const outside = items
    .filter((it) => !inColumn.has(it) && (it.y > top + slack || it.y < bottom - slack))
    .sort((p, q) => Number(q.y > top) - Number(p.y > top) || q.y - p.y || q.x - p.x);
  const numbered = outside.find((it) => PAGE_NUMBER.test(it.str));
  return { page: page.page, printed: numbered ? Number(PAGE_NUMBER.exec(numbered.str)![1]) : null, lines };
}

/**
 * The text range of one line's items: those next to each other in the text (only blank space
 * between) make a run, and the line is its longest run — a stamp drawn on the same baseline at
 * another point of the page's text ("Privilege", a redaction label) is not part of it.
 */
function lineRun(text: string, on: Item[]): { start: number; end: number } | null {
  if (on.length === 0) return null;
  const sorted = [...on].sort((p, q) => p.start - q.start);
  let best = { start: sorted[0]!.start, end: sorted[0]!.end, chars: 0 };
  let cur = { ...best };
  for (const it of sorted) {
    if (it.start > cur.end && /\S/.test(text.slice(cur.end, it.start)))
      cur = { start: it.start, end: it.end, chars: 0 };
    cur.end = Math.max(cur.end, it.end);
    cur.chars += it.end - it.start;
    if (cur.chars > best.chars) best = { ...cur };
  }
  return { start: best.start, end: best.end };
}

/** The items that number a page's lines: one column reading 1 … N from the top, N from 25 to 28. */
function numberColumn(items: Item[]): Item[] | null {
  const numbers = items.filter((it) => LINE_NUMBER.test(it.str) && Number(it.str) >= 1 && Number(it.str) <= MAX_LINES);
  if (numbers.length < MIN_LINES) return null;
  // Columns: numbers whose x lies within 0.8 em of the column's first (right-aligned numbers such
  // as "9" and "10" start a digit's width apart).
  const columns: Item[][] = [];
  for (const it of [...numbers].sort((p, q) => p.x - q.x)) {
    const col = columns.find((c) => Math.abs(c[0]!.x - it.x) <= 0.8 * Math.max(c[0]!.size, it.size));
    if (col) col.push(it);
    else columns.push([it]);
  }
  for (const col of columns) {
    if (col.length < MIN_LINES || col.length > MAX_LINES) continue;
    col.sort((p, q) => q.y - p.y);
    if (col.every((it, i) => Number(it.str) === i + 1)) return col;
  }
  return null;
}

/** One line of the text: its range and, when it opens with a line number, that number and the rest. */
interface TextLine {
  start: number;
  end: number;
  num: number | null;
  restStart: number;
}

function textLines(text: string): TextLine[] {
  const out: TextLine[] = [];
  let at = 0;
  while (at <= text.length) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl;
    const raw = text.slice(at, end);
    const m = /^(\s*)(\d{1,2})(?=\s|$)\s*/.exec(raw);
    const trimmedEnd = at + raw.trimEnd().length;
    if (/\S/.test(raw))
      out.push({
        start: at,
        end: trimmedEnd,
        num: m ? Number(m[2]) : null,
        restStart: m ? Math.min(at + m[0].length, trimmedEnd) : at,
      });
    at = end + 1;
  }
  return out;
}

/** Transcript pages found in the text alone: runs of lines numbered 1 … N. */
function textPagesOf(text: string, index: PageIndex): Found[] {
  const lines = textLines(text);
  const out: Found[] = [];
  let i = 0;
  while (i < lines.length) {
    if (lines[i]!.num !== 1) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < lines.length && lines[j + 1]!.num === lines[j]!.num! + 1 && lines[j + 1]!.num! <= MAX_LINES) j++;
    const count = j - i + 1;
    // A column of bare numbers (a PDF's margin read apart from its text) numbers no lines.
    if (count < MIN_LINES || lines.slice(i, j + 1).filter((l) => l.restStart < l.end).length < count / 4) {
      i = j + 1;
      continue;
    }
    const numbered = lines
      .slice(i, j + 1)
      .map((l) => ({ line: l.num!, start: l.restStart, end: Math.max(l.restStart, l.end) }));
    const near = [...lines.slice(Math.max(0, i - 4), i).reverse(), ...lines.slice(j + 1, j + 4)].filter(
      (l) => l.num === null || l.restStart === l.end,
    );
    const numberLine = near.find((l) => PAGE_NUMBER.test(text.slice(l.start, l.end)));
    const printed = numberLine ? Number(PAGE_NUMBER.exec(text.slice(numberLine.start, numberLine.end))![1]) : null;
    out.push({ page: pageOf(index, lines[i]!.start), printed, lines: numbered });
    i = j + 1;
  }
  return out;
}

/** The 1-based page of the index that holds `offset`. */
function pageOf(index: PageIndex, offset: number): number {
  let page = index.pages[0]?.page ?? 1;
  for (const p of index.pages) if (p.start <= offset) page = p.page;
  return page;
}

const HONORIFICS = new Set(['MR', 'MRS', 'MS', 'MISS', 'DR', 'PROF', 'HON', 'JUDGE', 'OFFICER', 'DET', 'SGT']);
const SUFFIXES = new Set([
  'JR',
  'SR',
  'II',
  'III',
  'IV',
  'V',
  'ESQ',
  'MD',
  'PHD',
  'DO',
  'RN',
  'CPA',
  'PE',
  'DDS',
  'JD',
]);

/** The deponent's last name from the caption ("DEPOSITION OF JOHN SMITH" → "Smith"), or null. */
export function deponentOf(caption: string): string | null {
  const m = /\bDEPOSITION\s+OF\s*(?:\n\s*(?:\d{1,2}\s+)?)?([A-Za-z][A-Za-z.'’ -]{1,80})/i.exec(caption);
  if (!m) return null;
  // The name ends at a comma, a line end, or the words that follow it in a caption.
  const name = m[1]!.split(/,|\s(?:taken|on|held|volume|vol\.|pages?|in|at|for|was|and|the)\b/i)[0]!;
  const words = name
    .split(/\s+/)
    .map((w) => w.replace(/^[.'’-]+|[.]+$/g, ''))
    .filter(
      (w) =>
        w && !HONORIFICS.has(w.replace(/\./g, '').toUpperCase()) && !SUFFIXES.has(w.replace(/\./g, '').toUpperCase()),
    );
  const last = words[words.length - 1];
  if (!last || !/[A-Za-z]{2}/.test(last)) return null;
  return last === last.toUpperCase()
    ? last.toLowerCase().replace(/(^|['’-])([a-z])/g, (_, sep: string, ch: string) => sep + ch.toUpperCase())
    : last;
}

/**
 * The page:line cite of a character range of the text: "42:10" (one line), "42:10–17" (one page),
 * "42:10–43:3" (across pages); null when the range touches no numbered line's text.
 */
export function pinCite(layout: TranscriptLayout, start: number, end: number): string | null {
  let first: { page: number; line: number } | null = null;
  let last: { page: number; line: number } | null = null;
  const to = Math.max(end, start + 1);
  for (const page of layout.pages) {
    for (const line of page.lines) {
      if (line.end <= start || line.start >= to || line.start === line.end) continue;
      const at = { page: page.transcriptPage, line: line.line };
      if (!first) first = at;
      last = at;
    }
  }
  if (!first || !last) return null;
  if (first.page !== last.page) return `${first.page}:${first.line}–${last.page}:${last.line}`;
  return first.line === last.line ? `${first.page}:${first.line}` : `${first.page}:${first.line}–${last.line}`;
}
