/**
 * DOCX citations in the document's own rendering: mammoth's HTML (kept at ingest) is rebuilt from
 * an allow-list into plain data (never injected as markup), and a cited [start, end) span of the
 * ingest text is mapped onto its text nodes and wrapped in <mark>.
 *
 * Pure TS on purpose (no DOM globals): the caller parses with DOMParser and passes the body; tests
 * pass any DOM-shaped tree. Rendering to React lives in SourceViewer.
 */
import { SAFE_TAGS, type SafeElement, type SafeNode, type SafeTag, type SafeText } from './safe-nodes';
import { markText, type MarkRange } from './viewer-marks';

export type { SafeElement, SafeNode } from './safe-nodes';

/** The part of a DOM node this module reads (a browser Node satisfies it). */
export interface DomLike {
  nodeType: number;
  nodeName: string;
  nodeValue: string | null;
  childNodes: ArrayLike<DomLike>;
  getAttribute?: (name: string) => string | null;
}

const SAFE = new Set<string>(SAFE_TAGS);
/** Elements dropped with everything inside them (code, embedded content, form controls, metadata). */
const DROP = new Set([
  'script',
  'style',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'template',
  'noscript',
  'noembed',
  'noframes',
  'svg',
  'math',
  'head',
  'title',
  'meta',
  'link',
  'base',
  'textarea',
  'select',
  'option',
  'button',
  'input',
  'canvas',
  'audio',
  'video',
  'source',
  'track',
  'picture',
  'portal',
  'xmp',
  'plaintext',
]);
/** Containers whose whitespace-only text children are layout noise (and invalid in a table). */
const STRUCTURAL = new Set(['table', 'thead', 'tbody', 'tr', 'ul', 'ol']);
const MAX_DEPTH = 64;

function attr(node: DomLike, name: string): string | null {
  return typeof node.getAttribute === 'function' ? node.getAttribute(name) : null;
}

function span(value: string | null): number | undefined {
  if (value === null || !/^\s*\d+\s*$/.test(value)) return undefined;
  const n = Number(value);
  return n >= 1 && n <= 1000 ? n : undefined;
}

function textOf(node: DomLike): string {
  if (node.nodeType === 3) return node.nodeValue ?? '';
  if (node.nodeType !== 1 || DROP.has(localName(node))) return '';
  let out = '';
  for (let i = 0; i < node.childNodes.length; i++) out += textOf(node.childNodes[i]!);
  return out;
}

function localName(node: DomLike): string {
  const name = node.nodeName.toLowerCase();
  const colon = name.indexOf(':');
  return colon >= 0 ? name.slice(colon + 1) : name;
}

function sanitizeChildren(node: DomLike, parentTag: string, depth: number): SafeNode[] {
  const out: SafeNode[] = [];
  for (let i = 0; i < node.childNodes.length; i++) out.push(...sanitizeNode(node.childNodes[i]!, parentTag, depth));
  return out;
}

function sanitizeNode(node: DomLike, parentTag: string, depth: number): SafeNode[] {
  if (node.nodeType === 3) {
    const text = node.nodeValue ?? '';
    if (!text || (STRUCTURAL.has(parentTag) && !/\S/.test(text))) return [];
    return [{ kind: 'text', text }];
  }
  if (node.nodeType !== 1) return []; // comments, processing instructions, doctypes
  const name = localName(node);
  if (DROP.has(name)) return [];
  if (name === 'img') {
    const alt = (attr(node, 'alt') ?? '').replace(/\s+/g, ' ').trim().slice(0, 80);
    return [
      {
        kind: 'el',
        tag: 'span',
        note: true,
        placeholder: 'image',
        children: [{ kind: 'text', text: alt ? `[image: ${alt}]` : '[image]' }],
      },
    ];
  }
  if (depth >= MAX_DEPTH) {
    const text = textOf(node);
    return text ? [{ kind: 'text', text }] : [];
  }
  if (!SAFE.has(name)) return sanitizeChildren(node, parentTag, depth + 1); // unknown: keep its content, drop the element
  const el: SafeElement = { kind: 'el', tag: name as SafeTag, children: [] };
  if (name === 'td' || name === 'th') {
    const cs = span(attr(node, 'colspan'));
    const rs = span(attr(node, 'rowspan'));
    if (cs !== undefined) el.colSpan = cs;
    if (rs !== undefined) el.rowSpan = rs;
  }
  // mammoth's footnote/endnote/comment references and the note bodies it appends are not in the
  // raw text that ingest indexed: render them, but keep them out of the alignment.
  if (name === 'a' && /^#(footnote|endnote|comment)-/.test(attr(node, 'href') ?? '')) el.note = true;
  if (name === 'li' && /^(footnote|endnote)-\d+$/.test(attr(node, 'id') ?? '')) el.note = true;
  if (name !== 'br') el.children = sanitizeChildren(node, name, depth + 1);
  return [el];
}

/** Rebuild a parsed document body from the allow-list: no attributes but colspan/rowspan, no scripts, no images. */
export function sanitizeDocxHtml(body: DomLike): SafeNode[] {
  return sanitizeChildren(body, 'body', 0);
}

export interface Highlighted {
  nodes: SafeNode[];
  /** Number of <mark> elements (0 without a span). */
  marks: number;
  /** The text inside the marks, joined. */
  markedText: string;
}

interface Leaf {
  node: SafeText;
}

function collectLeaves(nodes: SafeNode[], out: Leaf[]): void {
  for (const n of nodes) {
    if (n.kind === 'text') out.push({ node: n });
    else if (!n.note) collectLeaves(n.children, out);
  }
}

const WS = /\s/;

/** Non-whitespace characters of `text` and where each came from. */
function squeeze(text: string): { chars: string; pos: number[] } {
  let chars = '';
  const pos: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (WS.test(c)) continue;
    chars += c;
    pos.push(i);
  }
  return { chars, pos };
}

function lowerBound(arr: number[], value: number): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (arr[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function occurrences(haystack: string, needle: string, limit: number): number[] {
  const out: number[] = [];
  if (!needle) return out;
  let i = haystack.indexOf(needle);
  while (i >= 0 && out.length < limit) {
    out.push(i);
    i = haystack.indexOf(needle, i + 1);
  }
  return out;
}

/**
 * The document's ingest text lined up with the rendered tree's text (both without whitespace),
 * made once per document and used for every range marked on it.
 */
export interface DocxAlignment {
  nodes: SafeNode[];
  docText: string;
  leaves: Leaf[];
  /** The rendered text without whitespace; for each of its characters, its leaf and place in it. */
  r: string;
  rLeaf: number[];
  rPos: number[];
  d: { chars: string; pos: number[] };
  /** Shifts found for the paragraphs around a range ("from:to"), null where none is certain. */
  shifts: Map<string, number | null>;
}

export function alignDocx(nodes: SafeNode[], docText: string): DocxAlignment {
  const leaves: Leaf[] = [];
  collectLeaves(nodes, leaves);
  let r = '';
  const rLeaf: number[] = [];
  const rPos: number[] = [];
  leaves.forEach((leaf, li) => {
    const t = leaf.node.text;
    for (let i = 0; i < t.length; i++) {
      if (WS.test(t[i]!)) continue;
      r += t[i];
      rLeaf.push(li);
      rPos.push(i);
    }
  });
  return { nodes, docText, leaves, r, rLeaf, rPos, d: squeeze(docText), shifts: new Map() };
}

/**
 * Where [sa, sb) of the squeezed document text lies in the squeezed rendered text, as a shift, or
 * null when that cannot be told for sure. Identical texts map one to one; otherwise the paragraphs
 * around the span (widened until unique) must occur exactly once in each. Ranges in the same
 * paragraphs share one answer (many found words in a long document).
 */
function locate(al: DocxAlignment, start: number, end: number, sa: number, sb: number): number | null {
  const { docText, d, r } = al;
  if (d.chars === r) return 0;
  let from = start;
  let to = end;
  let key = '';
  let shift: number | null = null;
  for (let widen = 0; widen < 6; widen++) {
    const p = docText.lastIndexOf('\n\n', Math.max(0, from - 1));
    from = p < 0 ? 0 : p + 2;
    const q = docText.indexOf('\n\n', to);
    to = q < 0 ? docText.length : q;
    if (widen === 0) {
      key = `${from}:${to}`;
      const known = al.shifts.get(key);
      if (known !== undefined) return known;
    }
    const pa = lowerBound(d.pos, from);
    const pb = lowerBound(d.pos, to);
    const anchor = d.chars.slice(Math.min(pa, sa), Math.max(pb, sb));
    const inRendered = occurrences(r, anchor, 2);
    if (inRendered.length === 0) break;
    if (inRendered.length === 1 && occurrences(d.chars, anchor, 2).length === 1) {
      shift = inRendered[0]! - Math.min(pa, sa);
      break;
    }
    if (from === 0 && to === docText.length) break;
    // Ambiguous (a repeated paragraph): take one more paragraph on each side.
    from = Math.max(0, from - 2);
    to = Math.min(docText.length, to + 2);
  }
  al.shifts.set(key, shift);
  return shift;
}

/** Where each leaf's part of [start, end) of the document text lies, or null when it cannot be placed with certainty. */
function placeRange(al: DocxAlignment, start: number, end: number): Map<number, [number, number]> | null {
  const { d, r, rLeaf, rPos, leaves } = al;
  const sa = lowerBound(d.pos, start);
  const sb = lowerBound(d.pos, end);
  if (sa >= sb) return null; // a span of blank space only
  const shift = locate(al, start, end, sa, sb);
  if (shift === null) return null;
  const ra = sa + shift;
  const rb = sb + shift;
  if (ra < 0 || rb > r.length || r.slice(ra, rb) !== d.chars.slice(sa, sb)) return null;
  // Every text node from the first character to the last: the ends trimmed to the range, whole
  // nodes in between (their non-blank characters are all inside it), so the mark has no gaps.
  const parts = new Map<number, [number, number]>();
  const firstLeaf = rLeaf[ra]!;
  const lastLeaf = rLeaf[rb - 1]!;
  for (let li = firstLeaf; li <= lastLeaf; li++) {
    const a = li === firstLeaf ? rPos[ra]! : 0;
    const b = li === lastLeaf ? rPos[rb - 1]! + 1 : leaves[li]!.node.text.length;
    if (b > a) parts.set(li, [a, b]);
  }
  return parts;
}

export interface MarkedDocx {
  nodes: SafeNode[];
  /** For each range, the text marked for it, joined; null for a range that could not be placed. */
  marked: (string | null)[];
}

/**
 * Mark each document-text range in the rendered tree (the cited span, found words). A range that
 * cannot be placed with certainty is left unmarked and reported as null.
 */
export function markDocx(al: DocxAlignment, ranges: MarkRange[]): MarkedDocx {
  const perLeaf = new Map<SafeText, (MarkRange & { i: number })[]>();
  const placed = ranges.map((range, i) => {
    const parts = placeRange(al, range.start, range.end);
    for (const [li, [a, b]] of parts ?? []) {
      const leaf = al.leaves[li]!.node;
      perLeaf.set(leaf, [...(perLeaf.get(leaf) ?? []), { start: a, end: b, mark: range.mark, i }]);
    }
    return parts !== null;
  });
  const marked = ranges.map((_, i) => (placed[i] ? '' : null));
  const rebuild = (list: SafeNode[]): SafeNode[] =>
    list.flatMap((n): SafeNode[] => {
      if (n.kind === 'el') return [{ ...n, children: rebuild(n.children) }];
      const inLeaf = perLeaf.get(n);
      if (!inLeaf) return [n];
      for (const p of inLeaf) marked[p.i] += n.text.slice(p.start, p.end);
      return markText(n.text, inLeaf);
    });
  return { nodes: rebuild(al.nodes), marked };
}

/**
 * Mark the document-text span [start, end) in the sanitised tree. Returns null when the span
 * cannot be placed with certainty (the caller then shows the plain-text passage instead).
 */
export function highlightDocxSpan(nodes: SafeNode[], docText: string, start: number, end: number): Highlighted | null {
  if (end <= start) return { nodes, marks: 0, markedText: '' };
  const al = alignDocx(nodes, docText);
  const { nodes: out, marked } = markDocx(al, [{ start, end, mark: 'cite' }]);
  const markedText = marked[0];
  if (markedText == null) return null;
  const d = al.d;
  if (squeeze(markedText).chars !== d.chars.slice(lowerBound(d.pos, start), lowerBound(d.pos, end))) return null;
  return { nodes: out, marks: countMarks(out), markedText };
}

function countMarks(nodes: SafeNode[]): number {
  return nodes.reduce((n, c) => n + (c.kind === 'el' ? (c.tag === 'mark' ? 1 : 0) + countMarks(c.children) : 0), 0);
}
