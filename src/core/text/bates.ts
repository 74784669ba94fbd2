/**
 * Bates numbers: the production stamps ("ACME0001234") a party prints in the header or footer of
 * every page it produces. Pure: text and page index in, each stamped page's number and exact
 * character range out, or null when the document is not confidently stamped. A stamp is a capital
 * prefix and 5–8 digits in the header/footer zone; the document counts only when one prefix's numbers
 * rise with the pages across most of them, so page, form, case and docket numbers are not taken.
 */
import { ITEM_STRIDE, type BatesRange, type PageGeometry, type PageIndex } from '../domain/index';

export interface BatesPage {
  /** 1-based page of the document. */
  page: number;
  /** The stamp as printed, prefix and digits ("ACME0001234", "SMITH-0000245"). */
  number: string;
  /** The digits as a number (1234). */
  value: number;
  /** The stamp's character range [start, end) in the document text. */
  start: number;
  end: number;
}

export interface BatesResult {
  /** Everything printed before the digits, separator included ("ACME", "SMITH-", "DEF "). */
  prefix: string;
  /** The stamped pages, in page order. */
  pages: BatesPage[];
}

/** A stamp-shaped token on one page. */
interface Candidate extends BatesPage {
  prefix: string;
  width: number;
  footer: boolean;
}

/** A piece of a page's header or footer: a character range of the text. */
interface Zone {
  start: number;
  end: number;
  footer: boolean;
}

/** Share of the page height, at its top and at its bottom, that counts as header and footer. */
const ZONE_SHARE = 0.12;
/** Lines at the top and bottom of a page without geometry that count as header and footer. */
const ZONE_LINES = 3;

/** prefix, optional space, 5–8 digits that end the token. */
const STAMP = /(?<![\w\-./:#&])([A-Za-z](?:[\w-]*?[A-Za-z_-])?)( ?)(\d{5,8})(?!\w|[./:,-]\d)/g;

/** Prefixes (without separators) that belong to other stamps and references. */
const NOT_PREFIXES = new Set(
  'PAGE PAGES PG PP PAGEID FORM CASE NO NOS NUMBER NUM DOC DOCS DOCUMENT DKT DOCKET ECF EX EXH EXHIBIT FILED FILE ENTRY ID TEL TELE PHONE FAX CELL MOBILE WL LEXIS REV OMB SF DATE CONFIDENTIAL HIGHLY RESTRICTED SUITE STE BOX POB PO ISO ZIP ACCOUNT ACCT INVOICE INV ORDER REF CLAIM POLICY SERIAL SN USC CFR REG MDL APPEAL CIV CR CV BK AP ADV ROOM RM APT UNIT BLDG FLOOR FL SECTION SEC ART ARTICLE ITEM VOL VOLUME TAX EIN SSN TIN ISBN ISSN CUSIP ORDINANCE RES BILL HB SB AB PUB LAW'.split(
    ' ',
  ),
);

/** Words right before a number that make it another kind of reference. */
const NOT_AFTER =
  /\b(no|nos|number|case|form|document|doc|page|pageid|docket|dkt|ecf|exhibit|ex|id|entry|invoice|account|acct|tel|tele|fax|phone|order|claim|policy|serial|ref|file|filed|section|rev|cusip|isbn)\.?\s*[:#]?\s*$/i;

/**
 * The document's Bates stamps, one per stamped page, or null when it is not confidently stamped.
 * `prefix`: the prefix the user says the document is stamped with ("ACME", "SMITH-"): every header
 * or footer stamp of that prefix counts, one per page, without the rules that guard a guess.
 */
export function detectBates(text: string, index: PageIndex, options: { prefix?: string } = {}): BatesResult | null {
  const pages = index.pages;
  if (pages.length === 0) return null;
  const candidates: Candidate[] = [];
  for (const page of pages) {
    for (const zone of zonesOf(text, page)) candidates.push(...stampsIn(text, zone, page.page));
  }
  if (options.prefix !== undefined) return withPrefix(candidates, options.prefix);
  if (candidates.length === 0) return null;
  if (pages.length === 1) return singlePage(candidates);
  const run = longestRun(candidates);
  if (run.length < 2) return null;
  const stampedPages = new Set(candidates.map((c) => c.page)).size;
  const textPages = pages.filter((p) => /\S/.test(text.slice(p.start, p.end))).length;
  if (run.length < 0.6 * stampedPages || run.length < 0.5 * textPages) return null;
  return { prefix: run[0]!.prefix, pages: run.map(toPage) };
}

/** The stamps of the prefix the user gave (case and a trailing separator or space aside), the first of each page. */
function withPrefix(candidates: Candidate[], prefix: string): BatesResult | null {
  const key = (p: string) =>
    p
      .trim()
      .replace(/[-_ ]+$/, '')
      .toUpperCase();
  const mine = candidates.filter((c) => key(c.prefix) === key(prefix));
  const byPage = new Map<number, Candidate>();
  for (const c of mine) if (!byPage.has(c.page)) byPage.set(c.page, c);
  const found = [...byPage.values()].sort((a, b) => a.page - b.page);
  return found.length ? { prefix: found[0]!.prefix, pages: found.map(toPage) } : null;
}

const toPage = (c: Candidate): BatesPage => ({
  page: c.page,
  number: c.number,
  value: c.value,
  start: c.start,
  end: c.end,
});

/** A one-page document: a strong stamp in its footer (prefix and 6+ digits with a leading zero). */
function singlePage(candidates: Candidate[]): BatesResult | null {
  const strong = candidates.find((c) => c.footer && c.width >= 6 && c.number[c.prefix.length] === '0');
  return strong ? { prefix: strong.prefix, pages: [toPage(strong)] } : null;
}

/** The header and footer zones of one page (ranges of the text). */
function zonesOf(text: string, page: PageGeometry): Zone[] {
  const [x0, y0, x1, y1] = page.view;
  const turn = ((page.rotate % 360) + 360) % 360;
  const sideways = turn % 180 === 90;
  const lo = sideways ? x0 : y0;
  const hi = sideways ? x1 : y1;
  const height = hi - lo;
  if (page.items.length === 0 || !(height > 0)) return lineZones(text, page.start, page.end);
  const zones: Zone[] = [];
  for (let k = 0; k < page.items.length; k += ITEM_STRIDE) {
    const start = page.items[k]!;
    const end = start + page.items[k + 1]!;
    const at = sideways ? page.items[k + 6]! : page.items[k + 7]!;
    const top = at >= hi - ZONE_SHARE * height;
    const bottom = at <= lo + ZONE_SHARE * height;
    if (!top && !bottom) continue;
    // The shown page's foot: low y unturned, high x at /Rotate 90, high y at 180, low x at 270.
    const footer = turn === 90 || turn === 180 ? top : bottom;
    const last = zones[zones.length - 1];
    // Items next to each other in the text (only blank space between) read as one piece.
    if (
      last &&
      last.footer === footer &&
      start >= last.end &&
      !/\S/.test(text.slice(last.end, start)) &&
      start - last.end <= 2
    )
      last.end = Math.max(last.end, end);
    else zones.push({ start, end, footer });
  }
  return zones;
}

/** A page without geometry: its first and last ZONE_LINES non-blank lines. */
function lineZones(text: string, from: number, to: number): Zone[] {
  const lines: Zone[] = [];
  let at = from;
  while (at <= to) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 || nl > to ? to : nl;
    if (/\S/.test(text.slice(at, end))) lines.push({ start: at, end, footer: false });
    at = end + 1;
  }
  const head = lines.slice(0, ZONE_LINES);
  const foot = lines.slice(Math.max(ZONE_LINES, lines.length - ZONE_LINES)).map((l) => ({ ...l, footer: true }));
  // A page of few lines: its lines are both header and footer (a footer stamp counts as one).
  if (lines.length <= ZONE_LINES) return head.map((l) => ({ ...l, footer: true }));
  return [...head, ...foot];
}

/** The stamp-shaped tokens in one zone. */
function stampsIn(text: string, zone: Zone, page: number): Candidate[] {
  const piece = text.slice(zone.start, zone.end);
  const out: Candidate[] = [];
  for (const m of piece.matchAll(STAMP)) {
    const [whole, prefixWord, space, digits] = m as unknown as [string, string, string, string];
    if (!stampPrefix(prefixWord, space)) continue;
    if (NOT_AFTER.test(piece.slice(Math.max(0, m.index - 16), m.index))) continue;
    const start = zone.start + m.index;
    out.push({
      page,
      prefix: prefixWord + space,
      number: whole,
      value: Number(digits),
      width: digits.length,
      start,
      end: start + whole.length,
      footer: zone.footer,
    });
  }
  return out;
}

/** Whether a prefix can be a Bates prefix. */
function stampPrefix(prefix: string, space: string): boolean {
  if (/[a-z]/.test(prefix) || (prefix.match(/[A-Z]/g) ?? []).length < 2) return false;
  if (space && (prefix.length < 3 || !/[A-Z]$/.test(prefix))) return false;
  const word = prefix.replace(/[-_]+$/, '');
  if (NOT_PREFIXES.has(word)) return false;
  // A prefix that is a reference word plus a separator ("NO-", "EX-") or a year-like tail is not one.
  return !/^(?:[A-Z]+[-_])?(?:NO|EX|ID|PG)$/.test(word);
}

/** Pages a run may skip (pages without a stamp) and still go on. */
const MAX_GAP = 2;

/**
 * The longest run of candidates of one prefix and digit width whose numbers rise with the pages:
 * from one stamped page to the next (1 ≤ Δpage ≤ MAX_GAP + 1), the number rises by Δpage or Δpage + 1.
 */
function longestRun(candidates: Candidate[]): Candidate[] {
  const groups = new Map<string, Candidate[]>();
  for (const c of candidates) {
    const key = `${c.prefix}\u0000${c.width}`;
    const group = groups.get(key);
    if (group) group.push(c);
    else groups.set(key, [c]);
  }
  let best: Candidate[] = [];
  for (const group of groups.values()) {
    group.sort((a, b) => a.page - b.page || a.start - b.start);
    // Runs grow together: a candidate extends every open run it continues, or opens a new one; a
    // run more than MAX_GAP + 1 pages behind can no longer grow and is closed.
    let open: Candidate[][] = [];
    for (const c of group) {
      const still: Candidate[][] = [];
      for (const run of open) {
        if (c.page - run[run.length - 1]!.page <= MAX_GAP + 1) still.push(run);
        else if (run.length > best.length) best = run;
      }
      open = still;
      let extended = false;
      for (const run of open) {
        const last = run[run.length - 1]!;
        const dp = c.page - last.page;
        const dv = c.value - last.value;
        if (dp >= 1 && dv >= dp && dv <= dp + 1) {
          run.push(c);
          extended = true;
        }
      }
      if (!extended) open.push([c]);
    }
    for (const run of open) if (run.length > best.length) best = run;
  }
  return best;
}

/**
 * Mark a document's Bates-stamped pages (any marks before are cleared): as detected, or with the
 * prefix the user gave (`null`: the user says it is not stamped). Returns its range, or null.
 */
export function markBates(doc: { text: string; index: PageIndex }, prefix?: string | null): BatesRange | null {
  for (const p of doc.index.pages) delete p.bates;
  if (prefix === null) return null;
  const bates = detectBates(doc.text, doc.index, prefix !== undefined ? { prefix } : {});
  if (!bates) return null;
  for (const b of bates.pages) doc.index.pages[b.page - 1]!.bates = b.number;
  return { first: bates.pages[0]!.number, last: bates.pages[bates.pages.length - 1]!.number };
}

/**
 * The exhibit a document is, where its file name says "Exhibit 14" / "Ex. 14" / "Exh. 14" or its first
 * line is "EXHIBIT 14" alone (an exhibit slip sheet or stamp): "Exhibit 14". A number with a dot
 * ("EX-10.13", an SEC filing's exhibit index) is not an exhibit label.
 */
export function exhibitLabel(fileName: string, text: string): string | null {
  const base = fileName.split('/').pop() ?? fileName;
  const named =
    /(?:^|[\s_(-])(?:exhibit|exh\.?|ex\.)[\s_-]*([0-9]{1,3}[A-Z]?|[A-Z]{1,2})(?=$|[\s_).,-](?![0-9]))/i.exec(
      base.replace(/\.[a-z0-9]{2,4}$/i, ''),
    );
  const first =
    text
      .slice(0, 400)
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? '';
  const stamped = /^EXHIBIT\s+([0-9]{1,3}[A-Z]?|[A-Z]{1,2})$/i.exec(first);
  const id = (named ?? stamped)?.[1];
  return id ? `Exhibit ${id.toUpperCase()}` : null;
}

/**
 * A search for a Bates range ("ACME0001234-ACME0001240", "ACME0001234–40") as the numbers in it
 * (at most 200), for a keyword search of the stamps; null when the query is not one.
 */
export function batesRangeQuery(query: string): string | null {
  const m =
    /^\s*([A-Z][A-Z0-9_-]*?[A-Z_ -]?)(\d{5,8})\s*(?:-|–|—|to|through)\s*(?:([A-Z][A-Z0-9_-]*?[A-Z_ -]?)(\d{5,8})|(\d{1,8}))\s*$/i.exec(
      query,
    );
  if (!m) return null;
  const [, prefix, fromDigits, prefix2, toDigits, tail] = m as unknown as [
    string,
    string,
    string,
    string | undefined,
    string | undefined,
    string | undefined,
  ];
  if (prefix2 !== undefined && prefix2.trim().toUpperCase() !== prefix.trim().toUpperCase()) return null;
  const from = Number(fromDigits);
  // "ACME0001234–40": the last digits replace the end of the first number.
  const to =
    toDigits !== undefined ? Number(toDigits) : Number(fromDigits.slice(0, fromDigits.length - tail!.length) + tail);
  if (!(to >= from) || to - from >= 200) return null;
  const numbers: string[] = [];
  for (let n = from; n <= to; n++) numbers.push(`${prefix}${String(n).padStart(fromDigits.length, '0')}`);
  return numbers.join(' ');
}
