/**
 * A document's outline from its text: the headings a lawyer navigates by — the title, numbered
 * articles and sections ("ARTICLE IV", "7.", "7.2 Cap on Damages"), all-caps titles
 * ("LIMITATION OF LIABILITY"), exhibits and schedules, recitals, the signature block, and an
 * opinion's parts ("I. BACKGROUND", "A. Standard of Review", "CONCLUSION"). Pure: text and page
 * starts in, headings with exact character ranges out; running headers and footers (a line that
 * recurs on several pages) are left out. Measured against hand labels by bench/eval-outline.ts.
 */
import { pageAt } from './chunker';

export type HeadingKind =
  | 'title'
  | 'article'
  | 'section'
  | 'subsection'
  | 'exhibit'
  | 'recitals'
  | 'signature'
  | 'caption'
  | 'other';

export interface Heading {
  /** 1 = title, article, exhibit, an opinion's part; 2 = section; 3 = subsection; 4 = deeper. */
  level: number;
  /** As printed: "7.2", "IV", "(a)", or ''. */
  number: string;
  /** The title words, without the number; '' when the heading is a bare number. */
  title: string;
  kind: HeadingKind;
  /** The heading line's range in the document text, and its page. */
  start: number;
  end: number;
  page: number;
}

export interface Line {
  text: string;
  start: number;
  end: number;
  page: number;
}

const WORD_LIMIT = 12;
/** Single-word lines in capitals that are stamps or dispositions, not headings. */
const NOT_HEADINGS = new Set([
  'FILED',
  'AFFIRMED',
  'REVERSED',
  'REMANDED',
  'VACATED',
  'DISMISSED',
  'PUBLISH',
  'UNPUBLISHED',
  'BETWEEN',
  'AND',
]);
const ROMAN = /^(?=[IVXLC])M*(C[MD]|D?C{0,3})(X[CL]|L?X{0,3})(I[XV]|V?I{0,3})$/;

/** Characters of a line the classifier reads. */
const LINE_HEAD = 600;

export function linesOf(text: string, pageStarts: readonly number[]): Line[] {
  const out: Line[] = [];
  let at = 0;
  for (const raw of text.split('\n')) {
    const lead = raw.length - raw.trimStart().length;
    // Only a line's opening words can make it a heading (a run-in title ends at its first period):
    // a long line is classified by them, so a 10 MB line costs no more than a paragraph.
    const t = (raw.length > LINE_HEAD ? raw.slice(0, LINE_HEAD) : raw).trim().replace(/\s+/g, ' ');
    if (t) out.push({ text: t, start: at + lead, end: at + raw.trimEnd().length, page: pageAt(pageStarts, at) });
    at += raw.length + 1;
  }
  return out;
}

/** Lines that recur on three or more pages (digits ignored): running headers and footers. */
export function runningLines(lines: Line[]): Set<string> {
  const pages = new Map<string, Set<number>>();
  for (const l of lines) {
    if (l.text.length > 120) continue;
    const key = l.text.replace(/\d+/g, '#').toLowerCase();
    let set = pages.get(key);
    if (!set) pages.set(key, (set = new Set()));
    set.add(l.page);
  }
  return new Set([...pages].filter(([, p]) => p.size >= 3).map(([k]) => k));
}

const words = (s: string) => s.split(/\s+/).filter(Boolean);
const letters = (s: string) => s.replace(/[^A-Za-z]/g, '');
const isCaps = (s: string) => letters(s).length >= 4 && letters(s) === letters(s).toUpperCase();
/** Words of a sentence, not of a title. */
const MODAL = /\b(shall|may|will|must|agrees?|is|are|has|have|was|were|not)\b/;

/** A title: short, not a sentence that runs on (a run-in heading ends at its first period). */
function titleOf(rest: string): string | null {
  const runIn = /^([A-Z][^.;:]{1,80}?)[.:](\s|$)/.exec(rest);
  const title = runIn ? runIn[1]! : rest.replace(/[.:]$/, '');
  if (!title || words(title).length > (runIn ? 10 : WORD_LIMIT) || !/^[A-Z“"']/.test(title)) return null;
  if (!runIn && rest.length > 100) return null;
  if (letters(title).length < 3 || /§/.test(title) || (/,/.test(title) && !isCaps(title))) return null;
  // A short sentence is not a title ("The Customer may renew it once.").
  if (MODAL.test(title)) return null;
  return title.trim();
}

/** A defined term that opens a numbered definition: 1.4 "Improvements" means … */
const DEFINITION = /^["“]([^"”]{2,80})["”][^.;]{0,60}?\b(shall\s+mean|means|shall\s+have|has\s+the\s+meaning)\b/;

/** A numbered clause that opens a sentence of its own ("6.1 The Manufacturer shall…", "(ii) The Parties…", "b. Further, …"). */
const CLAUSE = /^(\d{1,2}(?:\.\d{1,2}){1,3}(?:\s*\([a-z]\))?|[a-h]\.|\([a-z]{1,2}\)|\([ivx]{1,5}\))\s+[A-Z“"]/;

/** One line as a heading, or null. `prev`: the line before it ('' at the start). */
function classify(text: string, prev: string): Omit<Heading, 'start' | 'end' | 'page'> | null {
  // An item of a list introduced by a colon continues its sentence: not a heading.
  if (/([:;]|\b(or|and))$/.test(prev) && /^(\d{1,2}\.|\(?[a-z]{1,2}[.)]|\(?[ivx]{1,5}[.)])\s/.test(text)) return null;
  // A list of people ("1. Dr Lily Tomas") is not an outline.
  if (/^\d{1,2}\.\s+(Dr|Mr|Mrs|Ms|Prof)\.?\s/.test(text)) return null;
  const h = classifyLine(text);
  if (h) return h;
  const clause = CLAUSE.exec(text);
  if (clause && !/[,]$/.test(prev)) {
    const number = clause[1]!.replace(/\.$/, '').replace(/\s+/g, '');
    const depth = /^\d/.test(number) ? Math.min(4, number.split(/[.(]/).length) : 3;
    return { level: depth, number, title: '', kind: 'subsection' };
  }
  return null;
}

function classifyLine(text: string): Omit<Heading, 'start' | 'end' | 'page'> | null {
  let m: RegExpExecArray | null;
  if ((m = /^(ARTICLE|Article)\s+([IVXLC]+|\d+)\b[.:\s-–—]*(.*)$/.exec(text))) {
    return { level: 1, number: m[2]!, title: titleOf(m[3]!) ?? '', kind: 'article' };
  }
  if ((m = /^(SECTION|Section)\s+(\d+(?:\.\d+)*)\b[.:\s-–—]*(.*)$/.exec(text))) {
    const title = titleOf(m[3]!);
    if (title === null && m[3]) return null;
    return { level: Math.min(4, m[2]!.split('.').length + 1), number: m[2]!, title: title ?? '', kind: 'section' };
  }
  if (
    (m =
      /^(EXHIBIT|Exhibit|SCHEDULE|Schedule|ANNEX|Annex|APPENDIX|Appendix|ATTACHMENT|Attachment)\s+(["“]?[A-Z0-9][A-Z0-9.-]*["”]?)\s*[.:\-–—]?\s*(.*)$/.exec(
        text,
      ))
  ) {
    // Not an SEC filing's own exhibit number ("EXHIBIT 10.5"), nor a sentence that mentions one ("Schedule A of this Agreement").
    if (
      words(text).length <= WORD_LIMIT &&
      !/\b(attached|hereto|hereby)\b/i.test(m[3]!) &&
      !/^\d+\.\d+$/.test(m[2]!) &&
      !/^[a-z]/.test(m[3]!)
    )
      return { level: 1, number: m[2]!, title: m[3]!.trim(), kind: 'exhibit' };
  }
  if (/^IN WITNESS WHEREOF\b/i.test(text))
    return { level: 1, number: '', title: 'IN WITNESS WHEREOF', kind: 'signature' };
  if ((m = /^(\d{1,2}(?:\.\d{1,2}){0,3})(\.?)\s+(.+)$/.exec(text))) {
    // "7." or "7.2": a bare "7 Text" is a footnote or a list line, not a heading.
    if (!m[2] && !m[1]!.includes('.')) return null;
    const depth = m[1]!.split('.').length;
    const kind = depth === 1 ? 'article' : depth === 2 ? 'section' : 'subsection';
    const defined = DEFINITION.exec(m[3]!);
    if (defined) return { level: Math.min(4, depth), number: m[1]!, title: defined[1]!, kind };
    const title = titleOf(m[3]!);
    if (title === null) return null;
    return { level: Math.min(4, depth), number: m[1]!, title, kind };
  }
  if (
    /^Before\b.*\bJudges?\b/.test(text) ||
    /^[A-Z][A-Z'. -]+, (Chief |Senior )?(Circuit|District) Judges?[:.]?$/.test(text)
  ) {
    return { level: 2, number: '', title: text, kind: 'caption' };
  }
  if ((m = /^([IVXLC]+)\.?$/.exec(text)) && ROMAN.test(m[1]!))
    return { level: 2, number: m[1]!, title: '', kind: 'section' };
  if ((m = /^([IVXLC]+)\.\s*(.*)$/.exec(text)) && ROMAN.test(m[1]!)) {
    const title = m[2] ? titleOf(m[2]) : '';
    if (title === null) return null;
    return { level: 2, number: m[1]!, title, kind: 'section' };
  }
  if ((m = /^([A-H])\.\s+(.+)$/.exec(text))) {
    const title = titleOf(m[2]!);
    if (title === null || words(title).length > 10) return null;
    return { level: 3, number: m[1]!, title, kind: 'subsection' };
  }
  if ((m = /^\(([a-z]{1,2}|[ivx]{1,5})\)\s+([A-Z][A-Za-z ,'’-]{1,60})\.\s/.exec(text))) {
    return { level: 3, number: `(${m[1]})`, title: m[2]!.trim(), kind: 'subsection' };
  }
  return classifyStyledLine(text);
}

/** A heading marked by its style: Markdown hashes, letter-spaced or plain capitals. */
function classifyStyledLine(text: string): Omit<Heading, 'start' | 'end' | 'page'> | null {
  let m: RegExpExecArray | null;
  if ((m = /^(#{1,6})\s+(\S.{0,150})$/.exec(text))) {
    // A Markdown heading ("## Background").
    const level = Math.min(4, m[1]!.length);
    return {
      level,
      number: '',
      title: m[2]!.replace(/\s*#+\s*$/, '').trim(),
      kind: level === 1 ? 'article' : level === 2 ? 'section' : 'subsection',
    };
  }
  if ((m = /^(?:[A-Z] ){3,}[A-Z]$/.exec(text))) {
    // Letter-spaced capitals: "R E C I T A L S".
    const title = text.replace(/ /g, '');
    return { level: 1, number: '', title, kind: /^(RECITALS|WITNESSETH)$/.test(title) ? 'recitals' : 'other' };
  }
  if (
    isCaps(text) &&
    words(text).length <= 10 &&
    !/[,;\u037e]/.test(text) &&
    !/^\W/.test(text) &&
    !NOT_HEADINGS.has(text.replace(/\W+$/, ''))
  ) {
    // A party's name over its signature is not a heading.
    if (/\b(COMPANY|CORPORATION|INC|LLC|LTD|LIMITED|L\.?P|CORP)\.?$/.test(text)) return null;
    const kind: HeadingKind = /^(RECITALS|WITNESSETH|BACKGROUND)\b/.test(text) ? 'recitals' : 'other';
    return { level: 1, number: '', title: text.replace(/[.:]$/, ''), kind };
  }
  return null;
}

/**
 * The headings of a document, in order. `pageStarts`: where each page begins in `text` ([0] for one
 * page); `html`: a DOCX's HTML rendering, whose heading styles and bold run-in titles count too.
 */
export function detectOutline(text: string, pageStarts: readonly number[] = [0], html?: string): Heading[] {
  const lines = linesOf(text, pageStarts);
  const running = runningLines(lines);
  const out: Heading[] = [];
  let prev = '';
  for (const line of lines) {
    if (running.has(line.text.replace(/\d+/g, '#').toLowerCase())) continue;
    if (/^(page\s+)?\d+(\s+of\s+\d+)?$/i.test(line.text)) continue;
    const h = classify(line.text, prev);
    prev = line.text;
    if (!h) continue;
    // The first heading of a document set in capitals is its title.
    const kind = out.length === 0 && h.kind === 'other' && h.number === '' ? 'title' : h.kind;
    out.push({ ...h, kind, start: line.start, end: line.end, page: line.page });
  }
  if (!html) return out;
  const styled = docxHeadings(html, text, pageStarts);
  const taken = new Set(styled.map((h) => h.start));
  return [...styled, ...out.filter((h) => !taken.has(h.start))].sort((a, b) => a.start - b.start);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
const plainOf = (html: string) =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&(#\d+|#x[0-9a-f]+|\w+);/gi, (m, e: string) =>
      e[0] === '#'
        ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)))
        : (ENTITIES[e] ?? m),
    )
    .replace(/\s+/g, ' ')
    .trim();

/**
 * DOCX headings from mammoth's HTML: paragraphs in a heading style (<h1>–<h6>), and paragraphs that
 * open with a short bold run ending in a period ("Safeguards. Provider will…"), located in the
 * document text (mammoth's raw text, which holds the same paragraphs in order). Tables (cover-page
 * forms) are left out. Word's list numbers are not in the text, so `number` stays ''.
 */
function docxHeadings(html: string, text: string, pageStarts: readonly number[]): Heading[] {
  const out: Heading[] = [];
  let cursor = 0;
  let tables = 0;
  let scanned = 0;
  // Each block's own content runs to the next block boundary (a list item may hold a nested list).
  for (const m of html.matchAll(/<(h[1-6]|p|li)\b[^>]*>([\s\S]*?)(?=<\/?(?:h[1-6]|p|li|ol|ul|table|tr|td|th)\b|$)/g)) {
    const before = html.slice(scanned, m.index);
    tables += (before.match(/<table\b/g) ?? []).length - (before.match(/<\/table>/g) ?? []).length;
    scanned = m.index;
    if (tables > 0) continue;
    const [, tag, inner] = m as unknown as [string, string, string];
    const plain = plainOf(inner);
    if (!plain) continue;
    const bold = /^<strong>([^<]{1,80})<\/strong>/.exec(inner.trim());
    const boldRunIn =
      bold && /\.\s*$/.test(bold[1]!) && words(bold[1]!).length <= 8 ? plainOf(bold[1]!).replace(/\.$/, '') : null;
    // A heading-styled paragraph that runs on: its title ends at the first period ("Using AI Services.  The AI Services are…").
    // So does a list item that opens with a short title ("Safeguards.  Provider will…"), set by the list's style.
    const styledRunIn = tag.startsWith('h') || tag === 'li' ? /^([A-Z][^.]{1,80}?)\.\s+\S/.exec(plain) : null;
    const styledTitle =
      styledRunIn && words(styledRunIn[1]!).length <= (tag === 'li' ? 6 : 8) && !MODAL.test(styledRunIn[1]!)
        ? styledRunIn[1]!
        : null;
    const runIn = boldRunIn ?? styledTitle;
    const defined = DEFINITION.exec(plain);
    let h: Omit<Heading, 'start' | 'end' | 'page'> | null = null;
    if (tag.startsWith('h')) {
      const level = Math.min(4, Number(tag[1]));
      const title = runIn ?? defined?.[1] ?? (words(plain).length <= WORD_LIMIT ? plain.replace(/[.:]$/, '') : null);
      if (title !== null)
        h = { level, number: '', title, kind: level === 1 ? 'article' : level === 2 ? 'section' : 'subsection' };
    } else if (runIn) h = { level: 2, number: '', title: runIn, kind: 'section' };
    if (!h) continue;
    // Find the paragraph by its first words (mammoth's raw text keeps tabs and double spaces the HTML collapses).
    const probe = new RegExp(
      words(plain)
        .slice(0, 6)
        .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('\\s+'),
      'g',
    );
    probe.lastIndex = cursor;
    const found = probe.exec(text);
    if (!found) continue;
    const at = found.index;
    cursor = at + found[0].length;
    const eol = text.indexOf('\n', at);
    out.push({ ...h, start: at, end: eol < 0 ? text.length : eol, page: pageAt(pageStarts, at) });
  }
  return out;
}

// ------------------------------------------------------------------ sections

export interface Section extends Heading {
  id: string;
  /** Where the heading line ends (the section itself ends at `end`). */
  headingEnd: number;
}

/** Each heading's section: it runs to the next heading of the same or a higher level (or the end of the text). */
export function sectionsOf(text: string, pageStarts: readonly number[] = [0], html?: string): Section[] {
  const headings = detectOutline(text, pageStarts, html);
  const sections: Section[] = headings.map((h, i) => ({ ...h, id: `s${i + 1}`, headingEnd: h.end, end: text.length }));
  // One pass with the open sections on a stack: a heading closes every open one of its level or deeper.
  const open: Section[] = [];
  for (const s of sections) {
    while (open.length && open[open.length - 1]!.level >= s.level) open.pop()!.end = s.start;
    open.push(s);
  }
  return sections;
}

/** The sections that hold `offset`, outermost first (the section path of a passage). */
export function sectionPath(sections: Section[], offset: number): Section[] {
  return sections
    .filter((s) => s.start <= offset && offset < s.end)
    .sort((a, b) => a.level - b.level || a.start - b.start);
}

/** A section by id ("s4"), number ("7.2", "IV", "(a)") or words of its title; null when none. */
export function findSection(sections: Section[], ref: string): Section | null {
  const r = ref.trim();
  const byId = sections.find((s) => s.id === r.toLowerCase());
  if (byId) return byId;
  const num = r.replace(/^(section|article|§)\s*/i, '').replace(/\.$/, '');
  const byNumber = sections.find(
    (s) => s.number !== '' && s.number.replace(/\.$/, '').toLowerCase() === num.toLowerCase(),
  );
  if (byNumber) return byNumber;
  const words = r.toLowerCase().split(/\s+/).filter(Boolean);
  return sections.find((s) => s.title && words.every((w) => s.title.toLowerCase().includes(w))) ?? null;
}
