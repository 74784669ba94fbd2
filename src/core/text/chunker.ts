import { DEFAULT_CHUNKING, type ChunkingOptions } from '../domain/index';

/** Chunking settings of a case: `settings.chunking` in case.json over the defaults. */
export function chunkingOf(settings: Record<string, unknown>): ChunkingOptions {
  const raw = (settings.chunking ?? {}) as Partial<ChunkingOptions>;
  const size = typeof raw.size === 'number' && raw.size > 0 ? raw.size : DEFAULT_CHUNKING.size;
  const overlap =
    typeof raw.overlap === 'number' && raw.overlap >= 0 && raw.overlap < size
      ? raw.overlap
      : Math.min(DEFAULT_CHUNKING.overlap, size - 1);
  const separators =
    Array.isArray(raw.separators) && raw.separators.every((s) => typeof s === 'string')
      ? raw.separators
      : DEFAULT_CHUNKING.separators;
  return { size, overlap, separators };
}

/** A chunk as a character range [start, end) of the document text. */
export interface Span {
  start: number;
  end: number;
}

/**
 * Recursive character splitter over ranges of `text` (never copies or rewrites the text, so
 * every chunk is exactly `text.slice(start, end)`). Pieces are split on the first separator
 * that occurs (kept at the end of the piece before it), pieces longer than `size` are split
 * again with the next separators, and neighbours are merged up to `size` characters with up to
 * `overlap` characters repeated between consecutive chunks. Chunks are trimmed of surrounding
 * whitespace; whitespace-only chunks are dropped.
 */
export function splitText(text: string, options: Partial<ChunkingOptions> = {}): Span[] {
  const opts = { ...DEFAULT_CHUNKING, ...options };
  if (!(opts.size > 0)) throw new RangeError(`chunk size must be positive (got ${opts.size})`);
  if (opts.overlap < 0 || opts.overlap >= opts.size) {
    throw new RangeError(`chunk overlap must be between 0 and size-1 (got ${opts.overlap} for size ${opts.size})`);
  }
  const out: Span[] = [];
  splitRange(text, 0, text.length, opts.separators, opts, out);
  const trimmed: Span[] = [];
  for (const span of out) {
    let { start, end } = span;
    while (start < end && isSpace(text.charCodeAt(start))) start++;
    while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
    if (end <= start) continue;
    const prev = trimmed[trimmed.length - 1];
    if (prev && prev.start === start && prev.end === end) continue;
    trimmed.push({ start, end });
  }
  return trimmed;
}

/** Sections below this many characters join a neighbour instead of being a chunk of their own. */
export const TINY_SECTION = 200;
/** A piece this short (a heading line left alone by the splitter) joins the chunk after it. */
const TINY_CHUNK = 120;

/** Where a chunk may not straddle: the start of a heading of level 1 (article, exhibit…) or 2 (section). */
export interface Boundary {
  offset: number;
  level: number;
}

/**
 * Chunks that follow the document's structure: the text is cut at every boundary, each region is
 * split as by `splitText`, and no chunk straddles two regions — except that a region shorter than
 * `TINY_SECTION` joins a neighbour within the same article (the one before it, else the one after:
 * "ARTICLE 5" alone joins 5.1, a short 5.3 joins 5.2), or the next region when it has none there.
 * A heading line the splitter left alone joins the chunk after it. Offsets stay exact.
 */
export function splitStructured(
  text: string,
  boundaries: readonly Boundary[],
  options: Partial<ChunkingOptions> = {},
): Span[] {
  const cuts = [
    ...new Map(boundaries.filter((b) => b.offset > 0 && b.offset < text.length).map((b) => [b.offset, b])).values(),
  ].sort((a, b) => a.offset - b.offset);
  let top = 0;
  const regions = [{ start: 0, end: text.length, top }];
  for (const cut of cuts) {
    if (cut.level <= 1) top = cut.offset;
    regions[regions.length - 1]!.end = cut.offset;
    regions.push({ start: cut.offset, end: text.length, top });
  }
  for (let i = 0; i < regions.length && regions.length > 1; ) {
    const r = regions[i]!;
    if (r.end - r.start >= TINY_SECTION) {
      i++;
      continue;
    }
    const prev = regions[i - 1];
    const next = regions[i + 1];
    if (prev && (prev.top === r.top || !next)) {
      prev.end = r.end;
      regions.splice(i, 1);
    } else {
      next!.start = r.start;
      next!.top = r.top === next!.top ? r.top : next!.top;
      regions.splice(i, 1);
    }
  }
  const out: Span[] = [];
  for (const r of regions) {
    const spans = splitText(text.slice(r.start, r.end), options).map((s) => ({
      start: s.start + r.start,
      end: s.end + r.start,
    }));
    for (let k = 0; k < spans.length; k++) {
      const s = spans[k]!;
      const after = spans[k + 1];
      if (after && s.end - s.start < TINY_CHUNK && after.start <= s.end + 2) after.start = s.start;
      else out.push(s);
    }
  }
  return out;
}

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9 || code === 12 || code === 11 || code === 0xa0;
}

function splitRange(
  text: string,
  start: number,
  end: number,
  separators: string[],
  opts: ChunkingOptions,
  out: Span[],
): void {
  if (end - start <= opts.size) {
    if (end > start) out.push({ start, end });
    return;
  }
  let sepIndex = separators.findIndex((s) => s === '' || indexIn(text, s, start, end) >= 0);
  if (sepIndex < 0) sepIndex = separators.length; // none occurs and no '' fallback: hard windows
  const sep = separators[sepIndex];
  const rest = separators.slice(sepIndex + 1);
  if (sep === undefined || sep === '') {
    windows(start, end, opts, out);
    return;
  }
  const pieces = piecesOf(text, start, end, sep);
  let good: Span[] = [];
  for (const piece of pieces) {
    if (piece.end - piece.start <= opts.size) {
      good.push(piece);
    } else {
      if (good.length) {
        merge(good, opts, out);
        good = [];
      }
      splitRange(text, piece.start, piece.end, rest, opts, out);
    }
  }
  if (good.length) merge(good, opts, out);
}

function indexIn(text: string, sep: string, start: number, end: number): number {
  const i = text.indexOf(sep, start);
  return i >= 0 && i + sep.length <= end ? i : -1;
}

/** Split [start, end) after each occurrence of `sep` (the separator stays with the piece before it). */
function piecesOf(text: string, start: number, end: number, sep: string): Span[] {
  const pieces: Span[] = [];
  let from = start;
  for (;;) {
    const i = indexIn(text, sep, from, end);
    if (i < 0) break;
    const cut = i + sep.length;
    if (cut > from) pieces.push({ start: from, end: cut });
    from = cut;
  }
  if (from < end) pieces.push({ start: from, end });
  return pieces;
}

/** Fixed windows of `size` with `overlap` (the '' separator: split anywhere). */
function windows(start: number, end: number, opts: ChunkingOptions, out: Span[]): void {
  const step = opts.size - opts.overlap;
  for (let s = start; s < end; s += step) {
    const e = Math.min(end, s + opts.size);
    out.push({ start: s, end: e });
    if (e === end) break;
  }
}

/** Merge contiguous pieces into chunks of at most `size`, carrying up to `overlap` characters over. */
function merge(pieces: Span[], opts: ChunkingOptions, out: Span[]): void {
  const current: Span[] = [];
  const length = () => (current.length ? current[current.length - 1]!.end - current[0]!.start : 0);
  for (const piece of pieces) {
    const len = piece.end - piece.start;
    if (current.length && length() + len > opts.size) {
      out.push({ start: current[0]!.start, end: current[current.length - 1]!.end });
      while (current.length && (length() > opts.overlap || length() + len > opts.size)) current.shift();
    }
    current.push(piece);
  }
  if (current.length) out.push({ start: current[0]!.start, end: current[current.length - 1]!.end });
}

/** 1-based page of a character offset, given each page's start offset in ascending order. */
export function pageAt(pageStarts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = pageStarts.length - 1;
  if (hi < 0) return 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (pageStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** Pages covering [start, end). */
export function pagesOf(pageStarts: readonly number[], start: number, end: number): number[] {
  const first = pageAt(pageStarts, start);
  const last = pageAt(pageStarts, Math.max(start, end - 1));
  const out: number[] = [];
  for (let p = first; p <= last; p++) out.push(p);
  return out;
}
