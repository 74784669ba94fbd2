/**
 * Dated events of a document, for the case's chronology: every sentence (or list item, table row,
 * spreadsheet row) that says when something happened becomes an event — its date (a day, a month
 * or a year; a range where it says "through"), the sentence with its exact character range (so it
 * opens with boxes), its page and the people it names. Dates are read by chrono-node; a relative
 * date ("three days later") follows the previous event's date, else the document's own date.
 *
 * Not events (rules measured on the corpus, see test/ingest/events.test.ts): dates in running
 * headers and footers (a line repeated on three or more pages), a form's revision date ("Rev.
 * 01/2019"), durations ("for 30 days"), and words that are dates only to a parser ("now", "today").
 */
import type { PageIndex } from './types';
import { linesOf, runningLines } from './outline';

export type DatePrecision = 'day' | 'month' | 'year';

export interface DatedEvent {
  /** YYYY-MM-DD (the first day of the month or year where the precision is coarser). */
  date: string;
  /** The range's last date, when the sentence gives one ("January 2019 through March 2020"). */
  date_end?: string;
  precision: DatePrecision;
  /** "03/04/2020": the day and month could be either way round; read as the case's order says. */
  ambiguous?: true;
  /** The words that gave the date, as written. */
  date_text: string;
  /** The sentence: [start, end) in the document text, its text and first page. */
  start: number;
  end: number;
  text: string;
  page: number;
  /** People and organisations the sentence names (capitalised names). */
  people: string[];
}

/** Version of the extraction rules: a stored list of another version is extracted again. */
export const EVENTS_FORMAT = 1;

export interface EventOptions {
  /** The document's own date (YYYY-MM-DD or ''): the reference for relative dates before any event. */
  docDate: string;
  /** Read "03/04/2020" as 3 April (day first) instead of 4 March (month first, the default). */
  dayFirst?: boolean;
}

type Chrono = typeof import('chrono-node');
type ParsedResult = ReturnType<Chrono['parse']>[number];

const MONTH = /\b(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?)\b/i;
const NUMERIC_DATE = /\b\d{1,4}[/.-]\d{1,2}([/.-]\d{2,4})?\b/;
const RELATIVE = /\b(\w+|\d+)\s+(days?|weeks?|months?|years?)\s+(later|after(wards)?|before|earlier)\b/i;
const FORM_DATE = /\b(rev(ised)?\.?|form|version|ver\.)\s*\(?\s*$/i;
const YEAR_ONLY = /\b(?:in|during|since|until|by|throughout|early|late|mid-?)\s+((?:19|20)\d\d)\b(?![/.-]\d)/gi;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** "Sep 12–13, 2022", "September 12-13 2022": a range of days that chrono reads as one day without its year. */
const DAY_RANGE = /\b(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+(\d{1,2})\s*[–—-]\s*(\d{1,2}),?\s+(\d{4})\b/i;
/** "the 5th day of June, 2020": how deeds and pleadings date things, which chrono reads as June only. */
const DAY_OF = /\b(\d{1,2})(?:st|nd|rd|th)?\s+day\s+of\s+(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?),?\s+(\d{4})\b/i;
const ABBREVIATIONS = /\b(Dr|Mr|Mrs|Ms|Prof|Inc|Ltd|Co|Corp|No|Nos|v|vs|St|Jr|Sr|U\.S|e\.g|i\.e|Sec|Art|Ex|cf|approx|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.$/;

/** Sentence ranges of a text: paragraphs split at blank lines, then at sentence ends (not after an abbreviation). */
export function sentenceSpans(text: string): [number, number][] {
  const out: [number, number][] = [];
  const boundary = /[.!?]["”’)]?\s+(?=[A-Z(“"'‘\d])|\n\s*\n|\n(?=\s*(?:[-•*]|\(?[a-z0-9]{1,3}[.)])\s)/g;
  let from = 0;
  const push = (a: number, b: number) => {
    while (a < b && /\s/.test(text[a]!)) a++;
    while (b > a && /\s/.test(text[b - 1]!)) b--;
    if (b - a >= 6) out.push([a, b]);
  };
  for (const m of text.matchAll(boundary)) {
    const cut = m.index + m[0].trimEnd().length;
    if (m[0][0] === '.' && ABBREVIATIONS.test(text.slice(Math.max(from, m.index - 6), m.index + 1))) continue;
    push(from, cut);
    from = m.index + m[0].length;
  }
  push(from, text.length);
  return out;
}

const iso = (d: Date) => d.toISOString().slice(0, 10);

function precisionOf(r: ParsedResult['start']): DatePrecision | null {
  if (!r.isCertain('year') && !r.isCertain('month')) return null;
  if (r.isCertain('day')) return 'day';
  return r.isCertain('month') ? 'month' : 'year';
}

/** A date the words really give (not a duration, not "now"), with its precision; null otherwise. */
function explicitDate(r: ParsedResult, sentence: string): { precision: DatePrecision; ambiguous: boolean } | null {
  const words = r.text;
  if (!MONTH.test(words) && !NUMERIC_DATE.test(words)) return null;
  if (FORM_DATE.test(sentence.slice(Math.max(0, r.index - 12), r.index))) return null;
  const precision = precisionOf(r.start);
  if (!precision) return null;
  // A month and day without a year ("on the 5th", "Sep 12") are read against the reference year: only with a year in the words.
  if (!/\b\d{4}\b|'\d\d\b|\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2}\b/.test(words)) return null;
  const nums = /\b(\d{1,2})[/.-](\d{1,2})[/.-]\d{2,4}\b/.exec(words);
  const ambiguous = Boolean(nums && Number(nums[1]) <= 12 && Number(nums[2]) <= 12 && nums[1] !== nums[2]);
  return { precision, ambiguous };
}

/** Capitalised names in a sentence: "Dr. Maria Alvarez", "Acme Holdings LLC" (not its first word alone, not months). */
export function namesIn(sentence: string): string[] {
  const out = new Set<string>();
  const re = /\b(?:(?:Dr|Mr|Mrs|Ms|Prof|Judge|Officer|Detective)\.?\s+)?[A-Z][a-z’']+(?:\s+(?:[A-Z]\.\s*)?[A-Z][a-z’']+)+(?:\s+(?:LLC|Inc\.?|Ltd\.?|Corp\.?|LLP|P\.?C\.?))?|\b(?:Dr|Mr|Mrs|Ms|Judge|Officer)\.?\s+[A-Z][a-z’']+/g;
  for (const m of sentence.matchAll(re)) {
    const name = m[0].trim();
    if (MONTH.test(name.split(/\s+/)[0]!) || /^(The|This|That|On|In|At|By|From|Between|During|After|Before|Plaintiff|Defendant)\b/.test(name)) continue;
    // An address is not a party ("12 Elm Street").
    if (/\s(Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Drive|Dr|Way|Place|Suite)$/.test(name)) continue;
    out.add(name);
  }
  return [...out];
}

/**
 * The dated events of a document's text. `pages` gives page numbers and the running lines to skip.
 * Long on purpose: one pass over the sentences holds the reference date that relative dates follow.
 */
export async function extractEvents(text: string, pages: PageIndex, options: EventOptions): Promise<DatedEvent[]> {
  const chrono = await import('chrono-node');
  const parser = options.dayFirst ? chrono.en.GB : chrono.en.casual;
  const starts = pages.pages.length ? pages.pages.map((p) => p.start) : [0];
  const lines = linesOf(text, starts);
  // Running headers and footers are blanked out (offsets kept): their dates are not events, and a
  // sentence that runs over a page break reads on without them.
  const running = runningLines(lines);
  let body = text;
  for (const l of lines) if (running.has(l.text.replace(/\d+/g, '#').toLowerCase())) body = body.slice(0, l.start) + ' '.repeat(l.end - l.start) + body.slice(l.end);
  const pageAt = (offset: number) => {
    let p = 0;
    while (p + 1 < starts.length && starts[p + 1]! <= offset) p++;
    return p + 1;
  };
  let reference = options.docDate ? new Date(`${options.docDate}T12:00:00Z`) : null;
  const out: DatedEvent[] = [];
  for (const [a, b] of sentenceSpans(body)) {
    // Line wraps inside a sentence are spaces (same length, so offsets hold).
    const sentence = body.slice(a, b).replace(/\n/g, ' ');
    const results = parser.parse(sentence, reference ? { instant: reference, timezone: 'UTC' } : { timezone: 'UTC' }, { forwardDate: false });
    let found = false;
    const dayOf = DAY_OF.exec(sentence);
    if (dayOf) {
      const date = `${dayOf[3]}-${String(MONTHS.indexOf(dayOf[2]!.slice(0, 3).toLowerCase()) + 1).padStart(2, '0')}-${dayOf[1]!.padStart(2, '0')}`;
      out.push({ date, precision: 'day', date_text: dayOf[0], start: a, end: b, text: sentence, page: pageAt(a), people: namesIn(sentence) });
      reference = new Date(`${date}T12:00:00Z`);
      continue;
    }
    const range = DAY_RANGE.exec(sentence);
    if (range) {
      const month = String(MONTHS.indexOf(range[1]!.slice(0, 3).toLowerCase()) + 1).padStart(2, '0');
      const day = (d: string) => `${range[4]}-${month}-${d.padStart(2, '0')}`;
      out.push({ date: day(range[2]!), date_end: day(range[3]!), precision: 'day', date_text: range[0], start: a, end: b, text: sentence, page: pageAt(a), people: namesIn(sentence) });
      reference = new Date(`${day(range[2]!)}T12:00:00Z`);
      continue;
    }
    for (const r of results) {
      const explicit = explicitDate(r, sentence);
      if (explicit) {
        const start = r.start.date();
        out.push({
          date: iso(start),
          ...(r.end && precisionOf(r.end) ? { date_end: iso(r.end.date()) } : {}),
          precision: explicit.precision,
          ...(explicit.ambiguous ? { ambiguous: true as const } : {}),
          date_text: r.text,
          start: a,
          end: b,
          text: sentence,
          page: pageAt(a),
          people: namesIn(sentence),
        });
        reference = start;
        found = true;
        break;
      }
      if (reference && RELATIVE.test(r.text) && /\b(later|after|afterwards|before|earlier)\b/i.test(r.text)) {
        out.push({ date: iso(r.start.date()), precision: 'day', date_text: r.text, start: a, end: b, text: sentence, page: pageAt(a), people: namesIn(sentence) });
        reference = r.start.date();
        found = true;
        break;
      }
    }
    if (found) continue;
    // A year alone, said as a time ("in 2018", "during 2019"): chrono leaves these out.
    const year = new RegExp(YEAR_ONLY.source, 'i').exec(sentence);
    if (year) {
      out.push({ date: `${year[1]}-01-01`, precision: 'year', date_text: year[0], start: a, end: b, text: sentence, page: pageAt(a), people: namesIn(sentence) });
    }
  }
  return out;
}
