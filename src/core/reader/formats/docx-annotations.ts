/**
 * A redlined Word file's tracked changes and comments, read from the package itself
 * (word/document.xml, word/comments.xml), because mammoth reads every change as accepted and drops
 * comments. Ingest adds them as a final, searchable section without touching the body text. Best
 * effort and never fatal: a bad part gives fewer annotations, never an error.
 */
import { DOMParser } from '@xmldom/xmldom';
import { unzipSync } from 'fflate';
import { DEFAULT_LIMITS } from '../../domain/index';

export interface DocxAnnotation {
  type: 'insertion' | 'deletion' | 'comment';
  author: string;
  /** ISO date (YYYY-MM-DD), or '' when the file gives none. */
  date: string;
  /** The inserted or deleted words, or the comment's text. */
  text: string;
  /**
   * A comment: the words it is anchored to (its commentRangeStart..End). A change: the sentence
   * around it as the document reads now (deletions gone, insertions in), shortened to about
   * ANCHOR_CHARS characters ("…" where cut). '' when there is nothing to show.
   */
  anchor: string;
}

/** The heading of the section the annotations are appended as. */
export const ANNOTATIONS_HEADING = 'Tracked changes and comments';
/** About how long an anchor may be. */
export const ANCHOR_CHARS = 200;

const DOCUMENT_PART = 'word/document.xml';
const COMMENTS_PART = 'word/comments.xml';
/** WordprocessingML, transitional and strict. */
const W_NS = new Set([
  'http://schemas.openxmlformats.org/wordprocessingml/2006/main',
  'http://purl.oclc.org/ooxml/wordprocessingml/main',
]);
/** Anything in the document that could carry an annotation (else the DOM parse is skipped). */
const MARKERS = /<(?:[\w.-]+:)?(?:ins|del|moveFrom|moveTo|commentRangeStart|commentReference)[\s/>]/;

/** The part of an xmldom node read here. */
interface XNode {
  nodeType: number;
  localName?: string | null;
  namespaceURI?: string | null;
  nodeValue?: string | null;
  value?: string;
  firstChild: XNode | null;
  nextSibling: XNode | null;
  parentNode: XNode | null;
  attributes?: { length: number; item(i: number): XNode | null };
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The tracked changes and comments of a DOCX, in document order ([] when none, or when they cannot be read). */
export async function readDocxAnnotations(bytes: Uint8Array): Promise<DocxAnnotation[]> {
  try {
    const parts = unzipParts(bytes);
    const documentXml = parts.get(DOCUMENT_PART);
    if (documentXml === undefined) return [];
    const commentsXml = parts.get(COMMENTS_PART);
    if (commentsXml === undefined && !MARKERS.test(documentXml)) return [];
    const comments = commentsXml === undefined ? new Map<string, CommentInfo>() : readComments(commentsXml);
    const root = parseXml(documentXml);
    const reader = new AnnotationReader(comments);
    if (root) walk(root, reader);
    return reader.finish();
  } catch {
    return [];
  }
}

/** document.xml and comments.xml as text, keyed by lower-case name; nothing else is inflated. */
function unzipParts(bytes: Uint8Array): Map<string, string> {
  const wanted = new Set([DOCUMENT_PART, COMMENTS_PART]);
  const files = unzipSync(bytes, {
    filter: (f) =>
      wanted.has(f.name.toLowerCase()) &&
      (f.compression === 0 || f.compression === 8) &&
      f.originalSize <= DEFAULT_LIMITS.maxZipBytes,
  });
  const out = new Map<string, string>();
  const decoder = new TextDecoder('utf-8');
  for (const [name, data] of Object.entries(files)) out.set(name.toLowerCase(), decoder.decode(data));
  return out;
}

/** The root element of an XML part, or null when there is none. Errors in the XML are tolerated (a partial tree). */
function parseXml(xml: string): XNode | null {
  const quiet = () => undefined;
  const doc = new DOMParser({ errorHandler: { warning: quiet, error: quiet, fatalError: quiet } }).parseFromString(
    xml,
    'text/xml',
  ) as unknown as XNode | null;
  let node = doc?.firstChild ?? null;
  while (node && node.nodeType !== 1) node = node.nextSibling;
  return node;
}

/** A WordprocessingML element's local name ('' for text, comments, and elements of other vocabularies). */
function wName(node: XNode): string {
  return node.nodeType === 1 && W_NS.has(node.namespaceURI ?? '') ? (node.localName ?? '') : '';
}

/** A w: attribute's value ('' when absent). */
function wAttr(node: XNode, name: string): string {
  const attrs = node.attributes;
  if (!attrs) return '';
  for (let i = 0; i < attrs.length; i++) {
    const a = attrs.item(i);
    if (a && a.localName === name && (!a.namespaceURI || W_NS.has(a.namespaceURI))) return a.value ?? a.nodeValue ?? '';
  }
  return '';
}

/** The text inside an element (w:t, w:delText): its text and CDATA children. */
function textIn(node: XNode): string {
  let s = '';
  for (let c = node.firstChild; c; c = c.nextSibling) if (c.nodeType === 3 || c.nodeType === 4) s += c.nodeValue ?? '';
  return s;
}

const isoDate = (value: string) => /^\d{4}-\d{2}-\d{2}/.exec(value)?.[0] ?? '';

interface Visitor {
  /** Whether to go inside the element. */
  enter(el: XNode): boolean;
  /** After an element entered (and its children). */
  leave(el: XNode): void;
}

/** Every element under `root` in document order, without recursion (a deeply nested file cannot overflow the stack). */
function walk(root: XNode, visitor: Visitor): void {
  let node: XNode | null = root.firstChild;
  while (node) {
    const inside = node.nodeType === 1 && visitor.enter(node);
    if (inside && node.firstChild) {
      node = node.firstChild;
      continue;
    }
    if (inside) visitor.leave(node);
    while (node && !node.nextSibling) {
      node = node.parentNode;
      if (!node || node === root) return;
      visitor.leave(node);
    }
    node = node ? node.nextSibling : null;
  }
}

/** What goes into a text for one element that stands for characters (a tab, a line break). */
function charOf(name: string): string | null {
  if (name === 'tab' || name === 'br' || name === 'cr' || name === 'ptab') return ' ';
  if (name === 'noBreakHyphen') return '-';
  return null;
}

/** Property elements (and their change records) hold no text of the document: skipped whole. */
const isProperties = (name: string) => /Pr$|PrChange$|^instrText$|^delInstrText$/.test(name);

// ---------------------------------------------------------------- comments.xml

interface CommentInfo {
  author: string;
  date: string;
  text: string;
}

/** comments.xml's comments by id, in the file's order (those without text left out). */
function readComments(xml: string): Map<string, CommentInfo> {
  const out = new Map<string, CommentInfo>();
  const root = parseXml(xml);
  if (!root) return out;
  let current: { id: string; info: CommentInfo } | null = null;
  walk(root, {
    enter: (el) => {
      const name = wName(el);
      if (!name) return el.localName !== 'Choice';
      if (isProperties(name) || name === 'delText') return false;
      if (name === 'comment') {
        current = {
          id: wAttr(el, 'id'),
          info: { author: squash(wAttr(el, 'author')), date: isoDate(wAttr(el, 'date')), text: '' },
        };
        return true;
      }
      if (!current) return true;
      if (name === 't') {
        current.info.text += textIn(el);
        return false;
      }
      current.info.text += name === 'p' ? ' ' : (charOf(name) ?? '');
      return true;
    },
    leave: (el) => {
      if (wName(el) !== 'comment' || !current) return;
      const text = squash(current.info.text);
      if (text && !out.has(current.id)) out.set(current.id, { ...current.info, text });
      current = null;
    },
  });
  return out;
}

// ---------------------------------------------------------------- document.xml

/** One change inside a paragraph: where it is in the paragraph's current text. */
interface ChangeSpot {
  ann: DocxAnnotation;
  from: number;
  to: number;
}

interface Paragraph {
  /** The text as it reads now (insertions in, deletions out). */
  text: string;
  spots: ChangeSpot[];
}

/** An open w:ins / w:del / w:moveTo / w:moveFrom element; its annotation once it has text. */
interface OpenChange {
  type: 'insertion' | 'deletion';
  author: string;
  date: string;
  spot?: ChangeSpot;
  para?: Paragraph;
}

/** An open comment range: the words read inside it so far (now, and with deleted words too). */
interface OpenRange {
  ann: DocxAnnotation;
  now: string;
  all: string;
}

/** Characters of a comment range kept while reading (enough for its anchor). */
const RANGE_KEEP = ANCHOR_CHARS * 4;

/** Walks document.xml and collects the annotations in document order. */
class AnnotationReader implements Visitor {
  private readonly out: DocxAnnotation[] = [];
  private readonly paras: Paragraph[] = [];
  /** Text outside any paragraph (not valid WordprocessingML, but read all the same). */
  private readonly loose: Paragraph = { text: '', spots: [] };
  private readonly changes: OpenChange[] = [];
  private readonly ranges = new Map<string, OpenRange>();
  private readonly placed = new Set<string>();
  /** The last change recorded, for joining the next one of the same author and kind right after it. */
  private last: { spot: ChangeSpot; para: Paragraph; change: OpenChange } | null = null;

  constructor(private readonly comments: Map<string, CommentInfo>) {}

  enter(el: XNode): boolean {
    const name = wName(el);
    if (!name) return !(el.localName === 'Choice'); // mc:AlternateContent: read the fallback only, as mammoth does
    if (isProperties(name)) return false;
    switch (name) {
      case 'p':
        this.paras.push({ text: '', spots: [] });
        return true;
      case 'ins':
      case 'moveTo':
      case 'del':
      case 'moveFrom':
        this.changes.push({
          type: name === 'ins' || name === 'moveTo' ? 'insertion' : 'deletion',
          author: squash(wAttr(el, 'author')),
          date: isoDate(wAttr(el, 'date')),
        });
        return true;
      case 't':
      case 'delText':
        this.emit(textIn(el), name === 'delText');
        return false;
      case 'commentRangeStart':
        this.openRange(wAttr(el, 'id'));
        return false;
      case 'commentRangeEnd':
        this.closeRange(wAttr(el, 'id'));
        return false;
      case 'commentReference':
        this.place(wAttr(el, 'id'));
        return false;
    }
    const ch = charOf(name);
    if (ch !== null) this.emit(ch, false);
    return ch === null;
  }

  leave(el: XNode): void {
    const name = wName(el);
    if (name === 'p') this.finishParagraph(this.paras.pop());
    else if (name === 'ins' || name === 'moveTo' || name === 'del' || name === 'moveFrom') this.changes.pop();
  }

  /** Characters of the document: kept in the current paragraph's text unless deleted, and added to the change they belong to. */
  private emit(s: string, deletedText: boolean): void {
    if (!s) return;
    const deleted = deletedText || this.changes.some((c) => c.type === 'deletion');
    const para = this.paras[this.paras.length - 1] ?? this.loose;
    const at = para.text.length;
    if (!deleted) para.text += s;
    for (const r of this.ranges.values()) {
      if (!deleted && r.now.length < RANGE_KEEP) r.now += s;
      if (r.all.length < RANGE_KEEP) r.all += s;
    }
    const kind = deleted ? 'deletion' : 'insertion';
    const change = this.changes.findLast((c) => c.type === kind);
    if (change) this.record(change, s, para, at);
  }

  /** Add `s` to the change's annotation: a new one, or the one right before it by the same author, of the same kind and date. */
  private record(change: OpenChange, s: string, para: Paragraph, at: number): void {
    if (!change.spot) {
      const prev = this.last;
      const joins =
        prev &&
        prev.para === para &&
        prev.spot.to === at &&
        this.out[this.out.length - 1] === prev.spot.ann &&
        prev.change.type === change.type &&
        prev.change.author === change.author &&
        prev.change.date === change.date;
      if (joins) change.spot = prev.spot;
      else {
        const ann: DocxAnnotation = {
          type: change.type,
          author: change.author,
          date: change.date,
          text: '',
          anchor: '',
        };
        change.spot = { ann, from: at, to: at };
        para.spots.push(change.spot);
        this.out.push(ann);
      }
      change.para = para;
    }
    change.spot.ann.text += s;
    if (change.para === para) change.spot.to = para.text.length;
    this.last = { spot: change.spot, para: change.para ?? para, change };
  }

  private finishParagraph(para: Paragraph | undefined): void {
    if (!para) return;
    for (const spot of para.spots) spot.ann.anchor = sentenceAround(para.text, spot.from, spot.to);
    for (const r of this.ranges.values()) {
      r.now += ' ';
      r.all += ' ';
    }
  }

  /** Put comment `id` here in the order (once). */
  private place(id: string): DocxAnnotation | null {
    const c = this.comments.get(id);
    if (!c || this.placed.has(id)) return null;
    this.placed.add(id);
    const ann: DocxAnnotation = { type: 'comment', author: c.author, date: c.date, text: c.text, anchor: '' };
    this.out.push(ann);
    return ann;
  }

  private openRange(id: string): void {
    const ann = this.place(id);
    if (ann) this.ranges.set(id, { ann, now: '', all: '' });
  }

  private closeRange(id: string): void {
    const r = this.ranges.get(id);
    if (!r) return;
    r.ann.anchor = shorten(squash(r.now) || squash(r.all));
    this.ranges.delete(id);
  }

  /** The annotations, ranges left open closed, comments never referenced at the end; changes of blank space only left out. */
  finish(): DocxAnnotation[] {
    this.finishParagraph(this.loose);
    for (const id of [...this.ranges.keys()]) this.closeRange(id);
    for (const id of this.comments.keys()) this.place(id);
    const out: DocxAnnotation[] = [];
    for (const a of this.out) {
      a.text = squash(a.text);
      if (a.text) out.push(a);
    }
    return out;
  }
}

/** A one-line text of at most about ANCHOR_CHARS characters, cut between words. */
function shorten(s: string): string {
  if (s.length <= ANCHOR_CHARS) return s;
  const cut = s.lastIndexOf(' ', ANCHOR_CHARS);
  return `${s.slice(0, cut > ANCHOR_CHARS / 2 ? cut : ANCHOR_CHARS)} …`;
}

/** How far to look for a sentence's ends around a change. */
const SENTENCE_REACH = 600;

/** The sentence of `text` around [from, to), as one line; a window of about ANCHOR_CHARS around the change when the sentence is longer. */
function sentenceAround(text: string, from: number, to: number): string {
  const lo = Math.max(0, from - SENTENCE_REACH);
  let start = lo;
  for (const m of text.slice(lo, from).matchAll(/[.!?]["”’')\]]*\s+/g)) start = lo + m.index + m[0].length;
  const ahead = Math.max(from, to - 1);
  const endMatch = /[.!?]["”’')\]]*(?=\s|$)/.exec(text.slice(ahead, ahead + SENTENCE_REACH));
  const end = endMatch ? ahead + endMatch.index + endMatch[0].length : Math.min(text.length, ahead + SENTENCE_REACH);
  if (end - start <= ANCHOR_CHARS) return squash(text.slice(start, end));
  // A window of ANCHOR_CHARS inside the sentence, centred on the change (from its start when it is longer).
  const pad = Math.max(0, Math.floor((ANCHOR_CHARS - (to - from)) / 2));
  let a = Math.max(start, Math.min(from - pad, end - ANCHOR_CHARS));
  let b = Math.min(end, a + ANCHOR_CHARS);
  // Cut between words.
  while (a > start && a < from && /\S/.test(text[a - 1]!)) a++;
  while (b < end && b > Math.max(to, a + ANCHOR_CHARS / 2) && /\S/.test(text[b]!)) b--;
  return `${a > start ? '… ' : ''}${squash(text.slice(a, b))}${b < end ? ' …' : ''}`;
}

// ---------------------------------------------------------------- as words

/** Counts by kind. */
export function annotationsCount(a: DocxAnnotation[]): { insertions: number; deletions: number; comments: number } {
  const n = (type: DocxAnnotation['type']) => a.filter((x) => x.type === type).length;
  return { insertions: n('insertion'), deletions: n('deletion'), comments: n('comment') };
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** "12 tracked changes by Opposing Counsel, 3 comments"; "5 tracked changes by Opposing Counsel and 2 by J. Smith, 1 comment"; '' when none. */
export function annotationsSummary(a: DocxAnnotation[]): string {
  const byAuthor = new Map<string, number>();
  for (const x of a) if (x.type !== 'comment') byAuthor.set(x.author, (byAuthor.get(x.author) ?? 0) + 1);
  // Most changes first; Map keeps first appearance for ties (sort is stable).
  const groups = [...byAuthor].sort((x, y) => y[1] - x[1]);
  const parts: string[] = [];
  if (groups.length) {
    const named = (author: string) => author || (groups.length > 1 ? 'an unnamed author' : '');
    const [first, ...rest] = groups.map(([author, n], i) => {
      const who = named(author);
      return `${i === 0 ? plural(n, 'tracked change', 'tracked changes') : n.toLocaleString('en-US')}${who ? ` by ${who}` : ''}`;
    });
    parts.push(rest.length ? `${[first, ...rest.slice(0, -1)].join(', ')} and ${rest[rest.length - 1]}` : first!);
  }
  const comments = a.length - groups.reduce((s, [, n]) => s + n, 0);
  if (comments) parts.push(plural(comments, 'comment', 'comments'));
  return parts.join(', ');
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** One annotation as a paragraph: its text, and the same words as HTML (the changed words in <del>/<ins>). */
function annotationParagraph(a: DocxAnnotation): { text: string; html: string } {
  const by = `${a.author ? ` by ${a.author}` : ''}${a.date ? ` on ${a.date}` : ''}`;
  if (a.type === 'comment') {
    const text = `Comment${by}${a.anchor ? ` on "${a.anchor}"` : ''}: "${a.text}"`;
    return { text, html: escapeHtml(text) };
  }
  const tag = a.type === 'deletion' ? 'del' : 'ins';
  const head = `${a.type === 'deletion' ? 'Deleted' : 'Inserted'}${by}: "`;
  const tail = `"${a.anchor ? ` — in: "${a.anchor}"` : ''}`;
  return {
    text: `${head}${a.text}${tail}`,
    html: `${escapeHtml(head)}<${tag}>${escapeHtml(a.text)}</${tag}>${escapeHtml(tail)}`,
  };
}

/**
 * The annotations as a final section of the document: `text` is the heading line, then one
 * paragraph per annotation, separated by blank lines (no line breaks inside a paragraph); `html`
 * holds the same paragraphs in order (<h1> then <p>s), so its text content, paragraph by paragraph,
 * equals `text`'s. null when there are none.
 */
export function annotationsAppendix(a: DocxAnnotation[]): { text: string; html: string } | null {
  if (!a.length) return null;
  const paras = a.map((x) =>
    annotationParagraph({ ...x, author: squash(x.author), text: squash(x.text), anchor: squash(x.anchor) }),
  );
  return {
    text: [ANNOTATIONS_HEADING, ...paras.map((p) => p.text)].join('\n\n'),
    html: `<h1>${escapeHtml(ANNOTATIONS_HEADING)}</h1>${paras.map((p) => `<p>${p.html}</p>`).join('')}`,
  };
}
