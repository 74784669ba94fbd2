/**
 * Dated events of a document, for the case's chronology: each sentence (or list item, row) that says
 * when something happened, with its date (day, month, year or range), exact character range, page and
 * the people it names. chrono-node reads the dates, with extra rules for legal forms it misses; a
 * relative date follows the previous event's. Dates in repeated headers and footers, e-filing stamps,
 * form revisions, citations and durations are not events (see test/ingest/events.test.ts).
 */
import type { PageIndex } from '../domain/index';
import {
  captionParts,
  clauseParts,
  parenParts,
  datedRows,
  eventLine,
  fieldParts,
  isJunkSentence,
  lineNumberColumn,
  longestNames,
  definedTerms,
  peopleOnly,
  reportedParts,
  signedDateLine,
} from './event-lines';
import { emailMessages, messageAt } from './email-messages';
import { linesOf, runningLines } from './outline';
import { type Anchor, definedDateTerms, type RelativeDate, relativeDate } from './relative-dates';

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
  /** The event in a short line (at most 160 characters); `text` keeps the whole sentence. */
  line: string;
  /** A date counted from an anchor the text gives ("Three days later", "30 days after the Effective Date"). */
  relative?: RelativeDate;
}

/** Version of the extraction rules: a stored list of another version is extracted again. */
export const EVENTS_FORMAT = 10;

export interface EventOptions {
  /** The document's own date (YYYY-MM-DD or ''): the day chrono reads the document's dates against. */
  docDate: string;
  /**
   * Read "03/04/2020" as 3 April (day first) instead of 4 March (month first, the default). A
   * document whose own numeric dates show their order ("31/3/09" only day first, "12/25/20" only
   * month first) is read in that order.
   */
  dayFirst?: boolean;
  /** The document's own parties (its profile): named in an event's sentence, they are among its people. */
  parties?: readonly string[];
}

type Chrono = typeof import('chrono-node');
type ParsedResult = ReturnType<Chrono['parse']>[number];
/** A date found in a sentence; `anchor`: relative dates after it count from it. */
type Found = Pick<DatedEvent, 'date' | 'date_end' | 'precision' | 'ambiguous' | 'date_text'> & { anchor: boolean };

const MONTH =
  /\b(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?)\b/i;
const MONTH_WORD =
  'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';
const NUMERIC_DATE = /\b\d{1,4}[/.-]\d{1,2}([/.-]\d{2,4})?\b/;
const FORM_DATE = /\b(rev(ised)?\.?|form|version|ver\.)(\s+[\w.-]*\d[\w.-]*)?\s*\(?\s*$/i;
/** A year said as a time: "in 2018", "mid-2017", "the summer of 2016", "the end of 2019". */
const YEAR_ONLY =
  /\b(?:(?:in|during|since|until|by|throughout|early|late|mid-?)\s+(?:the\s+)?|mid-|(?:spring|summer|fall|autumn|winter|end|beginning|start|middle|(?:first|second)\s+half)\s+(?:of\s+)?)((?:19|20)\d\d)\b(?![/.-]\d)/i;
/** "the fourth quarter of 1998", "Q3 2021", "the first calendar quarter of 2004": three months of a year (not a fiscal quarter). */
const QUARTER =
  /\b(?:(first|second|third|fourth|1st|2nd|3rd|4th)\s+(?:calendar\s+)?quarter\s+of\s+(?:calendar\s+(?:year\s+)?)?|Q([1-4])\s+)((?:19|20)\d\d)\b(?![/.-]\d)/i;
const YEAR_RANGE =
  /\b(?:from|between)\s+((?:19|20)\d\d)\s+(?:to|through|until|and|[-–—])\s+((?:19|20)\d\d)\b(?![/.-]\d)/i;
/** "20070817", "20011206 - 20061004": ISO 8601 basic dates, as military and registry records write them. */
const COMPACT =
  /(?<![\d.,/-])((?:19|20)\d\d)(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?![\d.,/])(?:\s*[-–—]\s*((?:19|20)\d\d)(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?!\d))?/;
const QUARTERS = ['fir', 'sec', 'thi', 'fou'];
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** "Sep 12–13, 2022", "September 12-13 2022", "March 4 and 5, 2019": days of one month that chrono reads as one day without its year. */
const DAY_RANGE = new RegExp(
  `\\b(${MONTH_WORD})\\.?\\s+(\\d{1,2})\\s*(?:[–—-]|\\s(?:and|&|through|to)\\s)\\s*(\\d{1,2}),?\\s+(\\d{4})\\b`,
  'i',
);
const WORD_YEAR = '(?:two thousand|nineteen hundred)(?:(?:\\s+and)?[\\s-]+[a-z]+(?:-[a-z]+)?)?';
/** "the 5th day of June, 2020", "the 15th day of July, two thousand twenty-five": how deeds and orders date things. */
const DAY_OF = new RegExp(
  `\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+day\\s+of\\s+(${MONTH_WORD}),?\\s+(\\d{4}\\b|${WORD_YEAR})`,
  'i',
);
const DAY_OF_ALL = new RegExp(DAY_OF.source, 'gi');
/** A day and month, or a month, without a year: an item of a list or range whose year comes at its end. */
const DAY_MONTH = `(?:(\\d{1,2})(?:st|nd|rd|th)?\\s+(${MONTH_WORD})|(${MONTH_WORD})\\.?(?:\\s+(\\d{1,2})(?:st|nd|rd|th)?)?)`;
const JOIN = `\\s*(?:,\\s*(?:and|or)?|and|or|to|through|until|/|–|—|-)\\s*`;
/** The text before a dated item that ends a list or range: "between May 1 and ", "1 January, 1 April and ", "October/". */
const SHARED_YEAR = new RegExp(
  `(?:\\b(between|from)\\s+)?\\b${DAY_MONTH}(?:${JOIN}${DAY_MONTH.replace(/\((?!\?)/g, '(?:')})*(${JOIN})$`,
  'i',
);
/**
 * What every date chrono can give us needs (chronoDate keeps explicit dates only): a digit or a
 * month's name. Most sentences of a contract have none, and chrono's dozens of parsers are the cost
 * of the pass: they are skipped.
 */
const MAYBE_DATE = /\d|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/i;
/** E-filing stamps and page footers: "Case … Document 12-2 Filed 08/18/21 Page 1 of 21", "Case … Doc 83 Filed …", "DktEntry: 19", "Copyright (c) 1996-2015". */
const STAMP =
  /\bPage:?\s*\d+\s*of\s*\d+\b|\bDktEntry\b|\bEntry ID\b|\bPage ?ID\b|\bCase:?\s+[\w:.-]*\d[\w:.-]*\s+Doc(?:ument)?:?\s+[\d-]+\b.*\bFiled\b|\bCopyright\b|©/i;
/** A citation: a reporter ("245 F.3d 1321", "228 Fed. Appx. 837"), a database ("2020 WL 2059848", "LEXIS 39") or a pin cite ("at *6"). */
const CITATION = /\b\d{1,4}\s+(?:[A-Z][A-Za-z]*\.\s?)+(?:[234]d\s|4th\s)?\s*\d{1,5}\b|\bWL\s+\d+|\bLEXIS\b|\bat\s+\*\d/;
/** A court and date closing a citation's parenthetical: "(D.D.C. Feb. 9, 2007)", "(WD Okla., July 16, 2010)", "(U.S. Nov. 25, 2020)". */
const COURT = /\(\s*(?:[A-Z][A-Za-z.]*,?\s+)*[A-Z][A-Za-z.]*\.,?\s*$/;
const SIGNAL = /^(?:See(?:,|\s+also|\s+generally)?|Cf\.|Compare|Accord|But\s+see)\s/;
const ABBREVIATIONS =
  /(?<![A-Za-z0-9])([A-Z]|Dr|Mr|Mrs|Ms|Prof|Inc|INC|Ltd|LTD|Co|CO|Corp|CORP|No|Nos|v|vs|St|Jr|Sr|U\.S|e\.g|i\.e|a\.m|p\.m|A\.M|P\.M|Sec|Art|Ex|cf|approx|Fed|Reg|Stat|Supp|Cir|App|Ct|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.$/;

/** A heading's line in capitals, of two words or more: "DOCKETING NOTICE", "ORDER TO SHOW CAUSE". */
const HEADING = "[A-Z][A-Z&'’-]*(?:,? [A-Z&'’-]+){1,8}";
/** A line that only rules off (dashes, underscores, equals signs): old filings' page breaks. */
const RULE = String.raw`(?<=^|\n)[ \t]*[-_=][-_= \t]*[-_=]{4,}[ \t]*(?=\n|$)`;
/** A signer's fields: "NAME:", "Title:", "By:". */
const SIGNER_FIELDS = /\b(?:NAME|Name|TITLE|Title|BY|By)\s*:/;
/** Where a sentence ends: see sentenceSpans. */
const SENTENCE_END = new RegExp(
  String.raw`[.!?]["”’)]?\s+(?=[A-Z(“"'‘\d$])|(?<!\b(?:on|or|before|after|by|of|to|the|and|within|from|until|dated)\s*)\n\s*\n|\n(?=\s*(?:[-•*]|\(?[a-z0-9]{1,3}[.)])\s)|\n(?=${HEADING}\n)|(?<=\n${HEADING})\n|(?<=\bwrote:)[ \t]*\n|(?<preamble>\s+)(?=(?:This|THIS)\s+(?:[A-Z][\w-]*\s+){0,5}(?:Agreement|AGREEMENT)\s*\()|\n(?=[ \t]*On\s[^\n]{6,160}\swrote:)|(?<rule>${RULE})`,
  'g',
);

/**
 * Sentence ranges of a text: paragraphs split at blank lines, at a ruled line and around a
 * heading's line in capitals ("DOCKETING NOTICE"), before a contract's opening words under its signers' fields,
 * then at sentence ends — not after an abbreviation or an initial
 * ("P. Mackun", "N.D. Cal."), nor inside a parenthesis that closes soon after ("(D.D.C. Feb. 9, 2007)").
 */
export function sentenceSpans(text: string): [number, number][] {
  const out: [number, number][] = [];
  let from = 0;
  const push = (a: number, b: number) => {
    while (a < b && /\s/.test(text[a]!)) a++;
    while (b > a && /\s/.test(text[b - 1]!)) b--;
    if (b - a >= 6) out.push([a, b]);
  };
  for (const m of text.matchAll(SENTENCE_END)) {
    const cut = m.groups?.rule ? m.index : m.index + m[0].trimEnd().length;
    // An abbreviation's period ends no sentence ("Acme, Inc. and"), but a paragraph break after it does.
    const paragraph = /\n\s*\n/.test(m[0]);
    if (m[0][0] === '.' && !paragraph && ABBREVIATIONS.test(text.slice(Math.max(from, m.index - 6), m.index + 1)))
      continue;
    // A contract's opening words start a sentence of their own only after a signer's fields
    // ("NAME: … TITLE: … DATE: 9/24/04 This Reseller Agreement (the "Agreement") is …").
    if (m.groups?.preamble && !SIGNER_FIELDS.test(text.slice(Math.max(from, m.index - 300), m.index))) continue;
    if (
      m[0].trim() &&
      openParen(text.slice(from, m.index)) &&
      /^[^()\n]{0,80}\)/.test(text.slice(m.index + 1, m.index + 90))
    )
      continue;
    push(from, cut);
    from = m.index + m[0].length;
  }
  push(from, text.length);
  return out;
}

/** Whether a text leaves a parenthesis open. */
const openParen = (t: string) => (t.match(/\(/g)?.length ?? 0) > (t.match(/\)/g)?.length ?? 0);

const iso = (d: Date) => d.toISOString().slice(0, 10);
const pad = (n: number | string) => String(n).padStart(2, '0');
const monthOf = (word: string) => MONTHS.indexOf(word.slice(0, 3).toLowerCase()) + 1;
const validDay = (y: number, m: number, d: number) => {
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
};

/** "two thousand twenty-five" → 2025, "nineteen hundred and ninety-nine" → 1999; digits as they are. */
function yearOf(words: string): number {
  if (/^\d{4}$/.test(words)) return Number(words);
  const units = [
    '',
    'one',
    'two',
    'three',
    'four',
    'five',
    'six',
    'seven',
    'eight',
    'nine',
    'ten',
    'eleven',
    'twelve',
    'thirteen',
    'fourteen',
    'fifteen',
    'sixteen',
    'seventeen',
    'eighteen',
    'nineteen',
  ];
  const tens = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
  const w = words.toLowerCase();
  let n = 0;
  for (const part of w.replace(/^(two thousand|nineteen hundred)/, '').split(/[\s-]+/)) {
    if (units.includes(part)) n += units.indexOf(part);
    else if (tens.includes(part)) n += 10 * tens.indexOf(part);
  }
  return (w.startsWith('two') ? 2000 : 1900) + n;
}

/**
 * Same-length repairs of the text layer before parsing: form blanks ("_Dec. 8"), split ordinals
 * ("1s t day", "24t h,") and an exhibit number before a numeric date ("9080 10/7/07", which chrono
 * reads as the year 9080).
 */
const mend = (sentence: string) =>
  sentence
    .replace(/_/g, ' ')
    .replace(/\b(\d{1,2})(s|n|r|t) (t|d|h)\b/g, ' $1$2$3')
    .replace(/\b(\d{3,6}) (?=\d{1,2}\/\d{1,2}\/\d{2,4}\b)/g, '$1;');

/** The date of a "5th day of June, 2020" match. */
function dayOfDate(m: RegExpExecArray | RegExpMatchArray): Found {
  const date = `${yearOf(m[3]!)}-${pad(monthOf(m[2]!))}-${pad(m[1]!)}`;
  return { date, precision: 'day', date_text: m[0], anchor: true };
}

/** Dates the fixed rules read before chrono: "the 5th day of June, 2020" and "Sep 12–13, 2022". */
function ruleDate(sentence: string): Found | null {
  const dayOf = DAY_OF.exec(sentence);
  if (dayOf) return dayOfDate(dayOf);
  const range = DAY_RANGE.exec(sentence);
  if (range) {
    const day = (d: string) => `${range[4]}-${pad(monthOf(range[1]!))}-${pad(d)}`;
    return { date: day(range[2]!), date_end: day(range[3]!), precision: 'day', date_text: range[0], anchor: true };
  }
  return null;
}

function precisionOf(r: ParsedResult['start']): DatePrecision | null {
  if (!r.isCertain('year') && !r.isCertain('month')) return null;
  if (r.isCertain('day')) return 'day';
  return r.isCertain('month') ? 'month' : 'year';
}

/**
 * The date of an instrument cited as authority: "Secretary of the Navy Instruction 5420.174D of 22
 * December 2004", "the SECDEF Memorandum of 3 September 2014", "Manual, (MCO P1900.16), effective 26
 * November 2013", a session law's "Act of June 6, 2006", "the Belgian Law of 2 August 2002".
 */
const AUTHORITY =
  /\b(?:Act|Law|Decree|Instruction|Directive|Manual|Regulations?|Guidance|Circular|Bulletin|[A-Z]{2,}\s+Memorandum)\b(?:[^.;]|\.(?=\w)){0,40}?\b(?:of|dated|effective)\s+(?:\d{1,2}\s+)?$/;

/** The date of a cited case, article, form or instrument, not of the case's facts: "(N.D. Cal. Apr. 29, 2020)", "See …, Oct. 3, 2011", "Form X (9/1/2009)". */
function citedDate(r: ParsedResult, sentence: string): boolean {
  if (FORM_DATE.test(sentence.slice(Math.max(0, r.index - 30), r.index))) return true;
  if (AUTHORITY.test(sentence.slice(Math.max(0, r.index - 80), r.index))) return true;
  const before = sentence.slice(0, r.index);
  const closesParen =
    before.lastIndexOf('(') > before.lastIndexOf(')') && /^\s*\)/.test(sentence.slice(r.index + r.text.length));
  if (closesParen && (CITATION.test(sentence) || COURT.test(before))) return true;
  return SIGNAL.test(sentence) && /[(,]\s*(?:[A-Z][\w.]*\.?\s+)*$/.test(before);
}

/**
 * The start of the period a contract's representation speaks of ("Since December 31, 2018, neither
 * the Company nor any of its Subsidiaries has received …", "filed with the SEC on or after January 1,
 * 2017"): nothing happened that day. Told by a look-back's lead and the words of a representation.
 */
const LOOK_BACK = /\b(?:since|on or after|from)\s*(?:\([a-z0-9]{1,4}\)\s*)?$/i;
const REPRESENTATION =
  /\b(?:the date (?:hereof|of this Agreement)|the Agreement Date|(?:execution|signing) (?:and delivery )?of this Agreement|Material Adverse Effect|in all material respects|individually or in the aggregate|(?:to the|Company[’']s) knowledge|knowledge of the Company|Subsidiar(?:y|ies)|there (?:has|have) been no)\b/i;

/**
 * A dotted number that numbers a section: it opens the sentence before a heading ("13.8.11
 * Survival") or a redaction ("10.2.13 [***] as of …"), or follows "Article", "Section", "§".
 */
function sectionNumber(sentence: string, r: ParsedResult): boolean {
  const before = sentence.slice(0, r.index);
  if (/\b(?:Articles?|Sections?|Clauses?|Paragraphs?)\s*$|§\s*$/i.test(before)) return true;
  return !before.trim() && /^\s+(?:[A-Z][a-z]|\[\*)/.test(sentence.slice(r.index + r.text.length));
}

/** A date the words really give (not a duration, not "now", not a citation's), with its precision; null otherwise. */
function explicitDate(r: ParsedResult, sentence: string): { precision: DatePrecision; ambiguous: boolean } | null {
  const words = r.text;
  if (!MONTH.test(words) && !NUMERIC_DATE.test(words)) return null;
  if (citedDate(r, sentence)) return null;
  if (LOOK_BACK.test(sentence.slice(Math.max(0, r.index - 20), r.index)) && REPRESENTATION.test(sentence)) return null;
  const precision = precisionOf(r.start);
  if (!precision) return null;
  // "§ 7306-2.8" is a section, not the year 7306.
  const year = r.start.get('year') ?? 0;
  if (year < 1700 || year > 2199) return null;
  // A month and day without a year ("on the 5th", "Sep 12") are read against the reference year: only with a year in the words.
  if (!/\b\d{4}\b|'\d\d\b|\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2}\b/.test(words)) return null;
  // "15.4-15" (a section's range) mixes its separators; a date keeps one ("3/4/19", "3.4.2019").
  const seps = /\b\d{1,4}([/.-])\d{1,2}([/.-])\d{1,4}\b/.exec(words);
  if (seps && seps[1] !== seps[2]) return null;
  // "13.8.11 Survival", "Article 13.8.11": a section's number, not 13 August 2011.
  if (/^\d{1,2}\.\d{1,2}\.\d{1,2}$/.test(words) && sectionNumber(sentence, r)) return null;
  const nums = /\b(\d{1,2})[/.-](\d{1,2})[/.-]\d{2,4}\b/.exec(words);
  const ambiguous = Boolean(nums && Number(nums[1]) <= 12 && Number(nums[2]) <= 12 && nums[1] !== nums[2]);
  return { precision, ambiguous };
}

/** The first item of a list or range that shares the year of `r` ("between May 1 and June 10, 2020"); null when `r` ends none. */
function sharedYear(r: ParsedResult, sentence: string, precision: DatePrecision): Found | null {
  const m = SHARED_YEAR.exec(sentence.slice(0, r.index));
  if (!m) return null;
  const [, lead, day1, month1, month2, day2, join] = m;
  const monthWord = (month1 ?? month2)!;
  if (monthWord === 'may') return null; // the verb
  const end = r.start.date();
  const month = monthOf(monthWord);
  const year = end.getUTCFullYear() - (month > end.getUTCMonth() + 1 ? 1 : 0);
  const day = day1 ?? day2;
  const date = `${year}-${pad(month)}-${day ? pad(day) : '01'}`;
  const range = Boolean(lead) || /to|through|until|\/|–|—|-/.test(join!);
  return {
    date,
    ...(range ? { date_end: iso(end) } : {}),
    precision: day ? 'day' : precision === 'year' ? 'year' : 'month',
    date_text: sentence.slice(m.index, r.index + r.text.length),
    anchor: true,
  };
}

/** A date that names another document ("the Agreement dated November 30, 2017"), not when this event happened. */
const DOCUMENT_DATE =
  /\b(?:agreement|contract|lease|letter|amendment|order|notice|memorandum|license|licence|policy|addendum|complaint|motion|opinion|judgment|plan)\s*,?\s+(?:dated|of|made|executed|entered into|signed)(?:\s+(?:on|as of))?\s*$/i;
/**
 * A letter that is how the event happened ("In a letter dated July 25, 2006, Dr. Hackshaw stated",
 * "by letter dated May 14, 2021, the Government advised"): its date is the event's.
 */
const BY_LETTER =
  /\b(?:in|by|through|via)\s+(?:(?:a|an|its|his|her|their)\s+)?(?:letter|e-?mail|memorandum|notice)\s*,?\s+dated(?:\s+on)?\s*$/i;

/**
 * The date chrono finds that the words really give: where a sentence has several, not one that
 * only names another document's date ("notice of termination of the Agreement dated November 30,
 * 2017, effective September 2, 2018" is about 2 September 2018).
 */
function chronoDate(sentence: string, results: ParsedResult[]): Found | null {
  let first: Found | null = null;
  for (const r of results) {
    const explicit = explicitDate(r, sentence);
    if (!explicit) continue;
    const shared = sharedYear(r, sentence, explicit.precision);
    const found: Found = shared ?? {
      date: iso(r.start.date()),
      ...(r.end && precisionOf(r.end) ? { date_end: iso(r.end.date()) } : {}),
      precision: explicit.precision,
      ...(explicit.ambiguous ? { ambiguous: true as const } : {}),
      date_text: r.text,
      anchor: true,
    };
    const before = sentence.slice(0, r.index);
    if (!DOCUMENT_DATE.test(before) || BY_LETTER.test(before)) return found;
    first ??= found;
  }
  return first;
}

/** What joins two dates of one sentence into two events: "and", "as amended (on)". */
const PAIRED_BY = /^\s*,?\s*(?:and|&|(?:as|and)\s+(?:amended|restated|modified)(?:\s+(?:on|as\s+of))?)\s*$/;

/**
 * The second of two dates joined by "and" ("(02/28/2020 and 3/02/2020)", "on March 3 and March 5,
 * 2019") or by an amendment ("dated as of March 19, 2001 as amended August 5, 2002"): a second event
 * of the same words. Not the end of "between … and …", nor the date `first`.
 */
function pairedDate(sentence: string, results: ParsedResult[], first: string): Omit<Found, 'anchor'> | null {
  for (const [k, r] of results.entries()) {
    const prev = results[k - 1];
    if (!prev || !PAIRED_BY.test(sentence.slice(prev.index + prev.text.length, r.index))) continue;
    if (/\bbetween\s*$/i.test(sentence.slice(0, prev.index))) continue;
    // The one of the two that is not the sentence's first event (an amendment's verb takes the later).
    const other = iso(r.start.date()) === first ? prev : r;
    const explicit = explicitDate(other, sentence);
    const date = iso(other.start.date());
    if (explicit && date !== first)
      return {
        date,
        precision: explicit.precision,
        ...(explicit.ambiguous ? { ambiguous: true as const } : {}),
        date_text: other.text,
      };
  }
  return null;
}

/** A sentence that sets out payments or deliveries: an amount, or the words that schedule one. */
const SCHEDULE = /\$\s?\d|\b(?:instal(?:l)?ments?|payments?|payable|due)\b/i;

/**
 * The other days a schedule lists ("installments of $12,677.50 on: July 1, 2001, October 1, 2001
 * January 1, 2002 and April 1, 2002"; a table row "October 1, 2000 $62,500 October 1, 2001 $62,500
 * …"): each is a date to be paid or done by, an event of its own. Only a payment's sentence with
 * three days or more is a schedule; [] for any other.
 */
function scheduledDates(sentence: string, results: ParsedResult[], first: string): Omit<Found, 'anchor'>[] {
  if (!SCHEDULE.test(sentence)) return [];
  const days = results.flatMap((r) => {
    const explicit = explicitDate(r, sentence);
    return explicit?.precision === 'day' && !explicit.ambiguous
      ? [{ date: iso(r.start.date()), precision: 'day' as const, date_text: r.text }]
      : [];
  });
  if (days.length < 3) return [];
  const seen = new Set([first]);
  return days.filter((d) => !seen.has(d.date) && seen.add(d.date));
}

/** What chrono leaves out: compact dates ("20070817"), year ranges ("from 1998 to 2000") and a year said as a time ("in 2018"). */
function fallbackDate(sentence: string): Found | null {
  const c = COMPACT.exec(sentence);
  if (c && validDay(Number(c[1]), Number(c[2]), Number(c[3]))) {
    const end =
      c[4] && validDay(Number(c[4]), Number(c[5]), Number(c[6])) ? { date_end: `${c[4]}-${c[5]}-${c[6]}` } : {};
    return { date: `${c[1]}-${c[2]}-${c[3]}`, ...end, precision: 'day', date_text: c[0], anchor: true };
  }
  const quarter = QUARTER.exec(sentence);
  if (quarter) {
    const word = quarter[2] ?? quarter[1]!;
    const n = Number.parseInt(word, 10) || QUARTERS.indexOf(word.toLowerCase().slice(0, 3)) + 1;
    const month = (n - 1) * 3 + 1;
    return {
      date: `${quarter[3]}-${pad(month)}-01`,
      date_end: `${quarter[3]}-${pad(month + 2)}-01`,
      precision: 'month',
      date_text: quarter[0],
      anchor: false,
    };
  }
  const years = YEAR_RANGE.exec(sentence);
  if (years)
    return {
      date: `${years[1]}-01-01`,
      date_end: `${years[2]}-01-01`,
      precision: 'year',
      date_text: years[0],
      anchor: false,
    };
  const year = YEAR_ONLY.exec(sentence);
  return year ? { date: `${year[1]}-01-01`, precision: 'year', date_text: year[0], anchor: false } : null;
}

/** The order a text's own numeric dates show: 'day' when some can only be day first and none only month first, and the reverse. */
function numericOrder(text: string): 'day' | 'month' | null {
  let dayOnly = 0;
  let monthOnly = 0;
  for (const m of text.matchAll(/(?<![\d.,/])(\d{1,2})([/.])(\d{1,2})\2(\d{4}|\d{2})(?![\d.,/])/g)) {
    if (m[2] === '.' && m[4]!.length !== 4) continue; // "14.1.10" is a section number
    const [a, b] = [Number(m[1]), Number(m[3])];
    if (a > 12 && a <= 31 && b >= 1 && b <= 12) dayOnly++;
    if (b > 12 && b <= 31 && a >= 1 && a <= 12) monthOnly++;
  }
  return dayOnly > monthOnly ? 'day' : monthOnly > dayOnly ? 'month' : null;
}

/**
 * The people and organisations of a sentence of `body`: its capitalised names less the terms the
 * document defines, and the document's parties it names.
 */
function peopleFinder(body: string, parties: readonly string[]): (sentence: string) => string[] {
  const terms = definedTerms(body, parties);
  return (sentence) => {
    const names = peopleOnly(namesIn(sentence), sentence, terms);
    const lower = sentence.toLowerCase();
    for (const party of parties) {
      const p = party.trim();
      if (p.length >= 3 && lower.includes(p.toLowerCase())) names.push(p);
    }
    return longestNames(names);
  };
}

/** The page of each offset, asked in order (sentences come in order: the cursor only moves forward). */
function pageCursor(starts: readonly number[]): (offset: number) => number {
  let p = 0;
  return (offset) => {
    while (p + 1 < starts.length && starts[p + 1]! <= offset) p++;
    return p + 1;
  };
}

/** Capitalised names in a sentence: "Dr. Maria Alvarez", "Acme Holdings LLC" (not its first word alone, not months). */
export function namesIn(sentence: string): string[] {
  const out = new Set<string>();
  const re =
    /\b(?:(?:Dr|Mr|Mrs|Ms|Prof|Judge|Officer|Detective)\.?\s+)?[A-Z][a-z’']+(?:\s+(?:[A-Z]\.\s*)?[A-Z][a-z’']+)+(?:\s+(?:LLC|Inc\.?|Ltd\.?|Corp\.?|LLP|P\.?C\.?))?|\b(?:Dr|Mr|Mrs|Ms|Judge|Officer)\.?\s+[A-Z][a-z’']+/g;
  for (const m of sentence.matchAll(re)) {
    const name = m[0].trim();
    if (
      MONTH.test(name.split(/\s+/)[0]!) ||
      /^(The|This|That|On|In|At|By|For|From|With|Under|Upon|Between|During|After|Before|Plaintiff|Defendant)\b/.test(
        name,
      )
    )
      continue;
    // An address is not a party ("12 Elm Street").
    if (/\s(Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Drive|Dr|Way|Place|Suite)$/.test(name)) continue;
    out.add(name);
  }
  return [...out];
}

/** `text` with the given lines (in order) replaced by spaces, offsets kept: built once, not once per line. */
function blankOut(text: string, lines: readonly { start: number; end: number }[]): string {
  if (!lines.length) return text;
  const parts: string[] = [];
  let at = 0;
  for (const l of lines) {
    if (l.start < at) continue;
    parts.push(text.slice(at, l.start), ' '.repeat(l.end - l.start));
    at = l.end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}

/**
 * The text dates are read from, offsets kept: running headers and footers blanked out (their dates
 * are not events, and a sentence that runs over a page break reads on without them), and the line
 * numbers of pleading paper. On a PDF's pages only the first and last three lines can be a header
 * or footer (a form's repeated body lines are not); a text's pages are pseudo-pages, so its running
 * lines are anywhere.
 */
function readableBody(text: string, pages: PageIndex, starts: readonly number[]): string {
  const lines = linesOf(text, starts);
  const edges =
    pages.kind !== 'pdf'
      ? lines
      : lines.filter((l, i) => [-3, -2, -1, 1, 2, 3].some((d) => lines[i + d]?.page !== l.page));
  const running = runningLines(edges);
  const blank = [
    ...edges.filter((l) => running.has(l.text.replace(/\d+/g, '#').toLowerCase())),
    ...lineNumberColumn(lines),
  ].sort((x, y) => x.start - y.start);
  // An email's quote marks ("> The first delivery arrived …") read as the spaces they stand for.
  const body = blankOut(text, blank).replace(/^(?:[ \t]*>)+/gm, (marks) => ' '.repeat(marks.length));
  // A court reporter's spacing dots ("·3· ·CRYSTAL LONG,· · · ·:") read as the spaces they stand for.
  return /(?:· ){3}/.test(body) ? body.replace(/·/g, ' ') : body;
}

/**
 * An explicit day in a short text, and where its words end: a defined term's (for relative dates
 * counted from it) or a quoted message's attribution ("Mon, Mar 11, 2019 at 4:02 PM Rex Moore").
 */
function dateIn(
  parser: Chrono['en']['casual'],
  words: string,
  last = false,
): { date: string; date_text: string; end: number } | null {
  const found = parser
    .parse(mend(words), { timezone: 'UTC' }, { forwardDate: false })
    .filter((r) => explicitDate(r, words)?.precision === 'day');
  const r = last ? found.at(-1) : found[0];
  return r ? { date: iso(r.start.date()), date_text: r.text, end: r.index + r.text.length } : null;
}

/** `dateIn` for a date term's words, where "the 30th day of November, 2017" (a month to chrono) opening them is a day. */
function termDateIn(
  parser: Chrono['en']['casual'],
  words: string,
  last: boolean,
): { date: string; date_text: string } | null {
  // Before the term, the day must end the words: "entered into as of this 31 day of July, 2000 ("Effective Date")".
  const tail = last ? [...words.matchAll(DAY_OF_ALL)].at(-1) : undefined;
  const day = last
    ? tail && /^[\s,]*$/.test(words.slice(tail.index + tail[0].length))
      ? dayOfDate(tail)
      : null
    : ruleDate(words);
  if (day && !day.date_end && (last || words.indexOf(day.date_text) <= 2))
    return { date: day.date, date_text: day.date_text };
  return dateIn(parser, words, last);
}

/**
 * The dated events of a document's text. `pages` gives page numbers and the running lines to skip.
 * One pass over the sentences holds the event that relative dates may count from.
 */
export async function extractEvents(text: string, pages: PageIndex, options: EventOptions): Promise<DatedEvent[]> {
  const chrono = await import('chrono-node');
  const starts = pages.pages.length ? pages.pages.map((p) => p.start) : [0];
  const body = readableBody(text, pages, starts);
  const order = numericOrder(body);
  const parser = (order ? order === 'day' : options.dayFirst) ? chrono.en.GB : chrono.en.casual;
  const terms = definedDateTerms(body.replace(/\n/g, ' '), (words, last) => termDateIn(parser, words, last));
  const peopleOf = peopleFinder(body, options.parties ?? []);
  const pageAt = pageCursor(starts);
  const instant = options.docDate ? new Date(`${options.docDate}T12:00:00Z`) : undefined;
  let anchor: Anchor | null = null;
  const out: DatedEvent[] = [];
  let signoff = '';
  const spans = sentenceSpans(body);
  const messages = emailMessages(body, spans, options.docDate, (words) => dateIn(parser, words));
  for (const [i, [a, b]] of spans.entries()) {
    const message = messageAt(messages, a);
    if ((message && a < message.headEnd) || (!signoff && signedDateLine(body, a, b))) continue;
    const email = message?.index === i ? message : undefined;
    const own = message?.sent.date ?? options.docDate;
    // A quoted message's days without a year are in the year it was sent.
    if (email?.headStart)
      anchor = { date: email.sent.date, precision: 'day', date_text: email.sent.date_text, sentence: i };
    // Line wraps inside a sentence are spaces (same length, so offsets hold).
    const raw = beforeStamp(body.slice(a, b));
    const sentence = raw.replace(/\n/g, ' ');
    // The court's sign-off ("ENTERED BY ORDER OF THE COURT") dates the order by the signed date under it.
    const signed = signoff;
    signoff = SIGNOFF.exec(sentence.trim())?.[0].replace(/[.:]?\s*$/, '') ?? '';
    // A caption's dates ("Argued: … Decided: …"), a docket table's dated rows and clauses with a
    // date of their own are an event each; any other sentence is one.
    const caption = captionParts(sentence);
    const rows = caption.length ? caption : datedRows(raw);
    const parts = rows.length ? rows : parenParts(sentence);
    if (!parts.length) parts.push(...clauseParts(sentence));
    if (!parts.length) parts.push(...reportedParts(sentence), ...fieldParts(sentence));
    // An e-filing stamp's "Filed 03/09/10 Entered 03/09/10" is no event; an opinion's argument and
    // decision dates are, even in a caption block that carries a stamp.
    const stamped = STAMP.test(sentence);
    for (const [from, to] of parts.length ? parts : [[0, sentence.length] as const]) {
      const piece = sentence.slice(from, to);
      if (STAMP.test(piece) || (stamped && !/^(?:Argued|Submitted|Decided|Heard)\b/.test(piece))) continue;
      const read = mend(piece);
      const results = MAYBE_DATE.test(read)
        ? parser.parse(read, { instant, timezone: 'UTC' }, { forwardDate: false })
        : [];
      const found: (Found & { relative?: RelativeDate }) | null =
        ruleDate(read) ??
        chronoDate(read, results) ??
        fromRelative(relativeDate(read, i, anchor, terms, own)) ??
        fallbackDate(read) ??
        (email ? { ...email.sent, anchor: true } : null);
      const order = signed && SIGNATURE.test(piece) ? signed : '';
      if (!found || (!order && isJunkSentence(piece, found.date_text))) continue;
      if (found.precision === 'year' && REASONING.test(piece)) continue;
      const { anchor: anchors, ...date } = proposedOn(read, found, own) ?? found;
      const row = {
        start: a + from,
        end: a + to,
        text: piece,
        page: pageAt(a + from),
        people: peopleOf(piece),
        line: order
          ? order.charAt(0) + order.slice(1).toLowerCase()
          : eventLine(email ? `${email.sender}: ${piece}` : piece, found.date_text),
      };
      // An email's opening with a date of its own ("We demand payment … by November 1") is also the sending.
      const sending = email && date.date !== email.sent.date ? email.sent : null;
      const listed = scheduledDates(read, results, date.date);
      const second = listed.length ? null : (pairedDate(read, results, date.date) ?? sending);
      out.push({ ...date, ...row }, ...[...listed, ...(second ? [second] : [])].map((d) => ({ ...d, ...row })));
      if (anchors) anchor = { date: found.date, precision: found.precision, date_text: found.date_text, sentence: i };
    }
  }
  return onceEach(out);
}

/**
 * A sentence that runs into a page's e-filing stamp ("… at which hearing the Court considered
 * testimony … in\nCase 09-00429 Doc 83 Filed 03/09/10 …") ends where the stamp's line begins; one
 * that opens with it is left whole, as a caption block.
 */
function beforeStamp(raw: string): string {
  const lines = raw.split('\n');
  let at = lines[0]!.length + 1;
  if (STAMP.test(lines[0]!)) return raw;
  for (const line of lines.slice(1)) {
    if (STAMP.test(line)) return raw.slice(0, at - 1);
    at += line.length + 1;
  }
  return raw;
}

/** The writer's own act, said in the present: "We propose February 14 or February 21, 2023", "I offer to settle …". */
const PROPOSAL =
  /^(?:(?:We|I)\s+(?:hereby\s+|now\s+)?(?:propose|offer|suggest|request|ask|demand|write|am writing|are writing)|Please\s+(?:confirm|advise|let\s+(?:me|us)\s+know))\b/i;

/** The words before a deadline: "by November 1, 2021", "no later than …". */
const DEADLINE = /\b(?:by|before|until|no later than|not later than|on or before)\s*$/i;

/**
 * A letter's or email's proposal of a later date is an event of the day it was sent (the
 * document's date), counted from it; the date it proposes stays in its words. A deadline it sets
 * keeps its own date. null for any other.
 */
function proposedOn(sentence: string, found: Found, docDate: string): (Found & { relative: RelativeDate }) | null {
  const act = docDate && found.date > docDate ? PROPOSAL.exec(sentence.trimStart()) : null;
  // A deadline it sets ("We demand payment … by November 1, 2021") is an event of its own date.
  const at = sentence.indexOf(found.date_text);
  if (!act || (at >= 0 && DEADLINE.test(sentence.slice(0, at)))) return null;
  const relative = { text: act[0], anchor: 'the date of this document', anchor_date: docDate, computed: true };
  return { date: docDate, precision: 'day', date_text: act[0], anchor: false, relative };
}

/** A sentence a contract repeats word for word with the same date (each option's "Once exercisable, … until May 30, 2001") is one event: its first. */
function onceEach(events: DatedEvent[]): DatedEvent[] {
  const seen = new Set<string>();
  return events.filter((e) => {
    const text = e.text.replace(/\s+/g, ' ').trim().toLowerCase();
    const keys = [`${e.date}|${e.precision}|${text}`];
    // A page's running header, its section's words after it ("Volk, Frank W. Date of Report
    // 05/13/2019 III.", "… V. GIFTS."): once, by its words up to the date.
    const date = e.date_text.replace(/\s+/g, ' ').toLowerCase();
    const end = text.indexOf(date) + date.length;
    if (end >= date.length && text.slice(end).split(' ').filter(Boolean).length <= 3)
      keys.push(`${e.date}|head|${text.slice(0, end)}`);
    if (keys.some((k) => seen.has(k))) return false;
    for (const k of keys) seen.add(k);
    return true;
  });
}

/** How a court's order or judgment ends, above its signed date: "ENTERED BY ORDER OF THE COURT", "IT IS SO ORDERED." */
const SIGNOFF = /\b(?:ENTERED BY ORDER OF THE COURT|FOR THE COURT|BY THE COURT|(?:IT IS )?SO ORDERED)\b[.:]?\s*$/i;
/** A signature block's marks: "/s/ Jan Horbaly", "Date", a rule to sign on. */
const SIGNATURE = /\/s\/|\bDated?\b|_{3,}/i;

/**
 * A court's or a party's reasoning about a year, not a fact of it: "The Commissioner disagrees,
 * arguing that Mr. Bordelon's basis did not increase in 2011", "Therefore, we find that he was at
 * risk in 2011", "whether for 2008 … he was at risk". Only a year is dropped so: a day said in
 * reasoning is still the day something happened.
 */
const REASONING =
  /\b(?:argues|contends|asserts|disagrees|maintains|arguing|contending|whether|we (?:find|hold|conclude|agree|are (?:persuaded|satisfied|convinced))|it is (?:clear|unclear)|would have|could have)\b/i;

/** A relative date as a found one: it anchors the next only where it was counted, not where it sits with its anchor. */
const fromRelative = (r: ReturnType<typeof relativeDate>): (Found & { relative: RelativeDate }) | null =>
  r ? { ...r, anchor: r.relative.computed } : null;
