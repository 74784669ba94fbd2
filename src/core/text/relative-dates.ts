/**
 * Relative dates of a chronology ("Three days later…", "30 days after the Effective Date"). A date
 * is computed only from an anchor the text gives: a date term the document defines, its own date
 * (a letter's, a contract's opening "made this 31st day of May, 1999"), or the event just before it
 * in the same passage; the event then says what it was counted from. A vaguer one
 * ("less than one month later") gets no date of its own and sits with its anchor. A timing term
 * with no anchor ("within 30 days after notice") is no event.
 */

import { NUMBER_RUN_SOURCE, numberWordsValue } from '../util/number-words';

/** How a relative event's date was found. */
export interface RelativeDate {
  /** The words: "Three days later", "30 days after the Effective Date". */
  text: string;
  /** What it counts from, as written: "May 3, 2021", "the Effective Date". */
  anchor: string;
  /** The anchor's date (YYYY-MM-DD). */
  anchor_date: string;
  /** true: the date was counted from the anchor; false: the event has no date of its own and sits with its anchor. */
  computed: boolean;
}

/** The event a narrative relative date counts from: the last dated event, and the sentence it is in. */
export interface Anchor {
  date: string;
  precision: 'day' | 'month' | 'year';
  date_text: string;
  sentence: number;
}

export interface Relative {
  date: string;
  precision: 'day' | 'month' | 'year';
  date_text: string;
  relative: RelativeDate;
}

/** A count in digits or words ("30", "thirty (30)", "a"), its digits in brackets when given. */
const COUNT = `(\\d{1,3}|an?|${NUMBER_RUN_SOURCE})(?:\\s*\\((\\d{1,3})\\))?`;
/** "first" to "twelfth", or "3rd", "10th". */
const ORDINALS = [
  'first',
  'second',
  'third',
  'fourth',
  'fifth',
  'sixth',
  'seventh',
  'eighth',
  'ninth',
  'tenth',
  'eleventh',
  'twelfth',
];
const ORDINAL_SOURCE = `${ORDINALS.join('|')}|\\d{1,2}(?:st|nd|rd|th)`;
const UNIT = '(business\\s+|calendar\\s+)?(days?|weeks?|months?|years?)';
/** "Three days later", "less than one month later", "two weeks earlier". */
const NARRATIVE = new RegExp(
  `\\b(?:(less than|more than|about|almost|nearly|over|some|approximately|roughly)\\s+)?${COUNT}\\s+${UNIT}\\s+(later|afterwards?|thereafter|earlier)\\b`,
  'i',
);
/** "The next day", "the following week". */
const NEXT = /\b(?:the\s+)?(next|following)\s+(day|morning|week|month|year)\b/i;
/** A definition: "(i) “Arizona Licensed Copyrights” means …", "\"Term\" shall mean …". */
const DEFINITION = /^(?:\(?[a-z0-9]{1,4}[.)]\s*)?[“"][^”"]{2,80}[”"]\s+(?:shall\s+)?means?\b/;
/** The definition of a date: "“Launch Date” means …". */
const DATE_DEFINITION = /^(?:\(?[a-z0-9]{1,4}[.)]\s*)?[“"][^”"]{0,60}\bDate[”"]\s+(?:shall\s+)?means?\b/;
/** "On the same day", "that same day", "later that day": the day of the event before. */
const SAME_DAY = /\b(?:(?:on\s+)?(?:the|that)\s+same\s+day|later\s+(?:that|the\s+same)\s+day)\b/i;
/** "That same month", "later that year": the month or year of the event before. */
const SAME_PERIOD = /\b(?:(?:the|that)\s+same|later\s+(?:that|the\s+same))\s+(month|year)\b/i;
/** How many sentences back a day with no year may find the event whose year it takes. */
const DAY_NO_YEAR_REACH = 6;
/** "Shortly after", "a few days later", "months later": after the event before, by no count the text gives. */
const VAGUE =
  /\b(?:shortly|soon|some time|a few \w+|several \w+|days|weeks|months|years)\s+(?:later|afterwards?|thereafter)\b/i;
/** "30 days after the Effective Date", "ninety (90) days prior to the Closing Date", "within seven (7) days of the Effective Date". */
const ANCHORED = new RegExp(
  `\\b(within\\s+(?:a\\s+period\\s+of\\s+)?)?${COUNT}\\s+${UNIT}\\s+(after|following|subsequent to|before|prior to|from|of)\\s+(?:the\\s+)?((?:[A-Z][\\w-]*\\s+){0,3}Date)\\b`,
  'gi',
);
/** "the third anniversary of the Effective Date", "the first month after the Effective Date": an ordinal period counted from a date term. */
const ORDINAL = new RegExp(
  `\\b(?:the\\s+)?(${ORDINAL_SOURCE})\\s+(anniversary\\s+(?:of|after|following)|(?:month|year)\\s+(?:after|following))\\s+(?:the\\s+)?((?:[A-Z][\\w-]*\\s+){0,3}Date)\\b`,
  'i',
);
/** An ordinal that ends a list ("the 3rd, 4th or 5th anniversary"): a choice of days, none of them the event. */
const ORDINAL_LIST = new RegExp(`(?:${ORDINAL_SOURCE})\\s*(?:,|\\bor\\b|\\band\\b)\\s*(?:the\\s+)?$`, 'i');
/** A look-back period, not a day: "during the five (5) years prior to the Effective Date". */
const PERIOD_BEFORE = /\b(?:during|in|for)\s+the\s+(?:last\s+|past\s+|preceding\s+)?$/i;
/** A term's words that name another date: "the effective date of termination", "the Effective Date of the CA". */
const OTHER_DATE = /^\s+of\s+(?!(?:this|the)\s+(?:Agreement|Contract|Amendment|Addendum|Lease|License)\b)/i;
/** "within fourteen (14) days of the date of this letter", "20 days of the date of this order": counted from the document's own date. */
const FROM_THIS = new RegExp(
  `\\b${COUNT}\\s+${UNIT}\\s+(?:of|after|following|from)\\s+(?:the\\s+)?(?:date\\s+of\\s+)?this\\s+(letter|notice|memorandum|order|judgment)\\b`,
  'i',
);
/** "was docketed today", "Today, the Court entered its judgment": the day of the letter or notice itself. */
const TODAY = /\b(?:[a-z]+ed\s+today|today,?\s+(?:the\s+\w+\s+|we\s+|I\s+)?[a-z]+ed)\b/i;
/** "I spoke with Mr. Hale yesterday": the day before the letter or email. */
const YESTERDAY = /\byesterday\b(?!['’]s)/i;
/** "14 days after entry of judgment", "within 14 days from the entry of judgment": counted from the judgment the text dates. */
const AFTER_JUDGMENT = new RegExp(
  `\\b${COUNT}\\s+${UNIT}\\s+(?:after|following|from|of)\\s+(?:the\\s+)?entry\\s+of\\s+(?:the\\s+)?judgment\\b`,
  'i',
);
/** Where the text dates the judgment: "Today, August 17, 2022 the Court entered its judgment", "Judgment was entered on March 3, 2020". */
const JUDGMENT_ENTERED =
  /\b(?:court\s+entered\s+(?:its|the|a|final)\s+judgment|judgment\s+(?:was|is|has been)\s+entered)\b/gi;
/** The key of the judgment's date among a document's date terms. */
const ENTRY_OF_JUDGMENT = 'entry of judgment';
/**
 * A contract's own date in its opening sentence: "This Agreement is made this 21st day of January
 * 2003", "THIS AGREEMENT … is entered into as of September 21, 1998". ("dated" is left out: "This
 * Amendment to the Agreement dated …" names another agreement's date.)
 */
const MADE_ON =
  /\b(?:This|THIS)\b[^.]{0,200}?\b(?:made|entered\s+into|executed)(?:\s+and\s+(?:entered\s+into|executed))?\s+(?:(as\s+of)\s+)?(?:on\s+|this\s+)?(?:the\s+)?/;
/** How far into a document its opening sentence may be (a cover page, an exhibit's heading before it). */
const OPENING_CHARS = 2500;
/** The keys of a contract's own date, and of the day it was signed (not an "as of" date: a deemed one). */
const DATE_HEREOF = 'date hereof';
const SIGNED_ON = 'signing hereof';
/**
 * "within 30 days of the execution of this Agreement", "thirty (30) days from the date hereof", "2
 * weeks following execution of this Agreement"; a bare "after the signing" only at a sentence's end
 * ("after execution, modification or termination of the summarized agreement" is another's).
 */
const FROM_HEREOF = new RegExp(
  `\\b(within\\s+)?${COUNT}\\s+${UNIT}\\s+(after|following|from|of)\\s+(?:the\\s+)?(?:(date\\s+(?:hereof|of\\s+this\\s+Agreement))|(?:execution|signing)(?:\\s+hereof|\\s+of\\s+(?:this|the)\\s+Agreement\\b|(?=\\s*(?:[.;]|$))))`,
  'i',
);
/**
 * The dates signers wrote on a signature block's lines: "03/24/06 ________ Date", side by side
 * ("03/24/06 03/24/06 ____ ____ Date Date"), or "Date: 9/21/98" under "/s/".
 */
const SIGNER_DATE =
  /(?<![,:]\s*)((?:\b\d{1,2}\/\d{1,2}\/\d{2,4}\s+)+)_{3,}(?:\s+_{3,})*\s*Date\b|\/s\/[^/]{0,120}?\bDated?\s*:\s*(\d{1,2}\/\d{1,2}\/\d{2,4}|[A-Z][a-z]{2,8}\.?\s+\d{1,2},\s+\d{4})/g;
/** How far apart signers' dates may be and still be one signing. */
const SIGNING_DAYS = 60;
const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/**
 * A day of a month with no year — "On December 10 of that year", "on March 3" — in a sentence
 * shortly after a dated event: the year is the event's ("that year", or unsaid when the day comes
 * after it or a few weeks before it), or the next ("the following year"); a day months before it,
 * unsaid, has no year the text gives. A recurring day is no event.
 */
const DAY_NO_YEAR =
  /\b(january|february|march|april|may|june|july|august|september|october|november|december|(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.)\s+(\d{1,2})(?:st|nd|rd|th)?\b(?!\s*,?\s*(?:\d|'\d))(?:\s+of\s+(that|the same|the following|the next)\s+year)?/i;
/** How far before the event a day with no year may step back and still be in its year. */
const STEP_BACK_MS = 45 * 86_400_000;
const RECURRING =
  /\b(?:each|every|any|per|fiscal|calendar|annual(?:ly)?)\s+(?:year|quarter)|\bannually\b|\beach\s+(?:such\s+)?year\b/i;

/** A day and month without a year, dated by the event before it; null when the sentence has none. */
function dayInAnchorYear(sentence: string, anchor: Anchor): Relative | null {
  const m = DAY_NO_YEAR.exec(sentence);
  if (!m || RECURRING.test(sentence)) return null;
  const month = MONTH_NAMES.indexOf(m[1]!.slice(0, 3).toLowerCase()) + 1;
  const day = Number(m[2]);
  const [y] = anchor.date.split('-').map(Number) as [number];
  const said = m[3]?.toLowerCase();
  const year = said === 'the following' || said === 'the next' ? y + 1 : y;
  const iso = (yy: number) => `${yy}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  // Unsaid, a day weeks before the event is a step back in the same story ("on February 20" after a
  // quoted notice dated February 26); months before, the text does not say which year.
  if (!said && iso(year) < anchor.date && Date.parse(anchor.date) - Date.parse(iso(year)) > STEP_BACK_MS) return null;
  const t = new Date(Date.UTC(year, month - 1, day));
  if (t.getUTCMonth() !== month - 1) return null;
  const relative = { text: m[0], anchor: anchor.date_text, anchor_date: anchor.date, computed: true };
  return { date: iso(year), precision: 'day', date_text: m[0], relative };
}

/** A defined date term after its date: 'as of March 1, 2010 (the "Effective Date")'. */
const TERM_AFTER = /\(\s*(?:the\s+|this\s+)?[“"'‘]((?:[A-Z][\w-]*\s+){0,3}Date)[”"'’]\s*\)/g;
/**
 * A defined date term before its date: '"Closing Date" means June 30, 2015', '(herein called the
 * "Effective Date") is September 21, 1998', '"EFFECTIVE DATE" means 12:01 a.m. … on March 3, 2003'.
 */
/** A defined date term as a cover page's field: "Effective Date: April 17, 2017". */
const TERM_FIELD = /\b([A-Z][\w-]*\s+Date)\s*:\s*/g;
const TERM_MEANS = /[“"'‘]((?:[A-Z][\w-]*\s+){0,3}(?:Date|DATE))[”"'’]\s*\)?\s+(?:means|shall mean|shall be|is)\s+/g;

const countOf = (word: string, digits?: string) =>
  Number(digits ?? (/^an?$/i.test(word) ? 1 : (numberWordsValue(word) ?? word)));

/** `date` moved by `n` days, weeks, months or years (a month from 31 January is the last day of February). */
export function addTo(date: string, n: number, unit: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const u = unit.toLowerCase();
  if (u.startsWith('day') || u.startsWith('week')) {
    const t = new Date(Date.UTC(y, m - 1, d + n * (u.startsWith('week') ? 7 : 1)));
    return t.toISOString().slice(0, 10);
  }
  const months = (m - 1 + n * (u.startsWith('year') ? 12 : 1)) | 0;
  const year = y + Math.floor(months / 12);
  const month = ((months % 12) + 12) % 12;
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(Date.UTC(year, month, Math.min(d, last))).toISOString().slice(0, 10);
}

/**
 * The date terms a document defines, with their dates: "Effective Date" → 2010-03-01. `dateIn`
 * reads an explicit date from a short text (the last one when `last`), or null.
 */
export function definedDateTerms(
  text: string,
  dateIn: (words: string, last: boolean) => { date: string; date_text: string } | null,
): Map<string, { date: string; date_text: string }> {
  const terms = new Map<string, { date: string; date_text: string }>();
  const add = (term: string, found: { date: string; date_text: string } | null) => {
    const key = term.trim().toLowerCase();
    if (found && !terms.has(key)) terms.set(key, found);
  };
  for (const m of text.matchAll(TERM_AFTER)) add(m[1]!, dateIn(text.slice(Math.max(0, m.index - 120), m.index), true));
  for (const m of text.matchAll(TERM_MEANS)) {
    const from = m.index + m[0].length;
    add(m[1]!, dateIn(text.slice(from, from + 60), false));
  }
  for (const m of text.matchAll(TERM_FIELD)) {
    const from = m.index + m[0].length;
    const found = dateIn(text.slice(from, from + 30), false);
    if (found && text.slice(from).startsWith(found.date_text)) add(m[1]!, found);
  }
  const opening = MADE_ON.exec(text.slice(0, OPENING_CHARS));
  if (opening) {
    const from = opening.index + opening[0].length;
    const words = text.slice(from, from + 40);
    const found = dateIn(words, false);
    if (found && words.indexOf(found.date_text) <= 2) {
      add(DATE_HEREOF, found);
      if (!opening[1]) add(SIGNED_ON, found);
    }
  }
  // No opening date says when it was signed: the last of the dates its signers wrote, where they
  // fall within weeks of each other (far apart, which signing the words mean is not said).
  if (!terms.has(SIGNED_ON)) {
    const signed: { date: string; date_text: string }[] = [];
    for (const m of text.matchAll(SIGNER_DATE))
      for (const words of m[1]?.trim().split(/\s+/) ?? [m[2]!]) {
        const found = dateIn(words, false);
        if (found) signed.push({ date: found.date, date_text: found.date_text });
      }
    signed.sort((x, y) => x.date.localeCompare(y.date));
    const last = signed.at(-1);
    if (last && addTo(signed[0]!.date, SIGNING_DAYS, 'days') >= last.date) add(SIGNED_ON, last);
  }
  for (const m of text.matchAll(JUDGMENT_ENTERED)) {
    const end = m.index + m[0].length;
    add(
      ENTRY_OF_JUDGMENT,
      dateIn(text.slice(Math.max(0, m.index - 40), m.index), true) ?? dateIn(text.slice(end, end + 40), false),
    );
  }
  return terms;
}

/** A date `n` units from `from`, with the words it was counted by and what it was counted from. */
function counted(text: string, from: string, anchorWords: string, n: number, unit: string): Relative {
  const relative = { text, anchor: anchorWords, anchor_date: from, computed: true };
  return { date: addTo(from, n, unit), precision: 'day', date_text: text, relative };
}

/**
 * A date counted from something the document names: its own date ("within 14 days of the date of
 * this letter", "docketed today", "yesterday", a contract's "30 days from the date hereof"), the
 * judgment it dates, or a date term it defines. undefined when the sentence names none; null when
 * it does but gives no date (a count of business days, an undefined term, a contract that opens
 * with no date).
 */
function countedFromNamed(
  sentence: string,
  terms: ReadonlyMap<string, { date: string; date_text: string }>,
  own: string,
): Relative | null | undefined {
  const fromThis = own ? FROM_THIS.exec(sentence) : null;
  if (fromThis && !fromThis[3]) {
    const [text, word, digits, , unit, kind] = fromThis;
    return counted(text, own, `the date of this ${kind!.toLowerCase()}`, countOf(word!, digits), unit!);
  }
  const today = own ? TODAY.exec(sentence) : null;
  if (today) return counted(today[0], own, 'the date of this document', 0, 'days');
  const yesterday = own ? YESTERDAY.exec(sentence) : null;
  if (yesterday) return counted(yesterday[0], own, 'the date of this document', -1, 'days');
  const judgment = terms.get(ENTRY_OF_JUDGMENT);
  const afterJudgment = judgment ? AFTER_JUDGMENT.exec(sentence) : null;
  if (judgment && afterJudgment && !afterJudgment[3]) {
    const [text, word, digits, , unit] = afterJudgment;
    return counted(text, judgment.date, 'the entry of judgment', countOf(word!, digits), unit!);
  }
  const hereof = FROM_HEREOF.exec(sentence);
  if (hereof && (hereof[6]!.toLowerCase() !== 'of' || hereof[1])) {
    const [text, within, word, digits, business, unit, , dateWords] = hereof;
    const own = terms.get(dateWords ? DATE_HEREOF : SIGNED_ON);
    if (!own || business) return null;
    const anchor = dateWords ? 'the date of this agreement' : 'the signing of this agreement';
    return counted(within ? text.slice(within.length) : text, own.date, anchor, countOf(word!, digits), unit!);
  }
  return countedFromTerm(sentence, terms);
}

/** A payment made on a date term itself: "shall be invoiced by MDACC on the Effective Date", "payable upon the Closing Date". */
const PAID_ON =
  /\b(?:pay|pays|paid|payable|due|invoiced)\b[^.;]{0,60}?\b(?:on|upon)\s+the\s+((?:[A-Z][\w-]*\s+){0,3}Date)\b/;

/**
 * A date counted from a date term the document defines: "30 days after the Effective Date",
 * "within seven (7) days of the Effective Date", "the third anniversary of the Effective Date".
 * undefined when the sentence counts from no term; null when it does but gives no day (business
 * days, an undefined term, another date the words name, a look-back period).
 */
function countedFromTerm(
  sentence: string,
  terms: ReadonlyMap<string, { date: string; date_text: string }>,
): Relative | null | undefined {
  let seen = false;
  const usable = (term: string, at: number, end: number) => {
    seen = true;
    const defined = terms.get(term.trim().toLowerCase());
    if (!defined || OTHER_DATE.test(sentence.slice(end)) || PERIOD_BEFORE.test(sentence.slice(0, at))) return null;
    return defined;
  };
  for (const m of sentence.matchAll(ANCHORED)) {
    const [text, within, word, digits, business, unit, direction, term] = m;
    if (direction!.toLowerCase() === 'of' && !within) continue;
    const defined = usable(term!, m.index, m.index + text.length);
    if (!defined || business) continue;
    const sign = /before|prior/i.test(direction!) ? -1 : 1;
    const words = within ? text.slice(within.length) : text;
    return counted(words, defined.date, `the ${term}`, sign * countOf(word!, digits), unit!);
  }
  const paid = PAID_ON.exec(sentence);
  const payday = paid && usable(paid[1]!, paid.index, paid.index + paid[0].length);
  if (paid && payday) return counted(paid[0], payday.date, `the ${paid[1]}`, 0, 'days');
  const ordinal = ORDINAL.exec(sentence);
  const listed = ordinal && ORDINAL_LIST.test(sentence.slice(0, ordinal.index));
  const defined = ordinal && !listed && usable(ordinal[3]!, ordinal.index, ordinal.index + ordinal[0].length);
  if (ordinal && defined) {
    const [text, nth, unit] = ordinal;
    const n = ORDINALS.indexOf(nth!.toLowerCase()) + 1 || Number.parseInt(nth!, 10);
    return counted(text, defined.date, `the ${ordinal[3]}`, n, /month/i.test(unit!) ? 'months' : 'years');
  }
  return seen ? null : undefined;
}

/**
 * The date of a sentence that has only a relative one: counted from a defined term, from the
 * document's own date (`own`, YYYY-MM-DD or '') where it names itself ("of the date of this
 * letter"), or from the event before it (`anchor`, at most two sentences back; a day with no year,
 * a few more, since a narrative names its days in order); null when the text gives no anchor.
 */
export function relativeDate(
  sentence: string,
  index: number,
  anchor: Anchor | null,
  terms: ReadonlyMap<string, { date: string; date_text: string }>,
  own = '',
): Relative | null {
  // A defined term's period ("“Licensed Copyrights” means … five (5) years prior to the Effective Date")
  // is no event; a date the contract defines by a count is ("“Launch Date” means … no later than 90
  // days after the Effective Date").
  if (DEFINITION.test(sentence) && !DATE_DEFINITION.test(sentence)) return null;
  const named = countedFromNamed(sentence, terms, own);
  if (named !== undefined) return named;
  if (!anchor || index - anchor.sentence > DAY_NO_YEAR_REACH) return null;
  const inYear = dayInAnchorYear(sentence, anchor);
  if (inYear) return inYear;
  if (index - anchor.sentence > 2) return null;
  const near = { anchor: anchor.date_text, anchor_date: anchor.date };
  const same = anchor.precision === 'day' ? SAME_DAY.exec(sentence) : null;
  if (same)
    return {
      date: anchor.date,
      precision: 'day',
      date_text: same[0],
      relative: { text: same[0], ...near, computed: true },
    };
  const period = SAME_PERIOD.exec(sentence);
  if (period && (anchor.precision !== 'year' || period[1]!.toLowerCase() === 'year'))
    return {
      ...periodOf(anchor.date, period[1]!, 0),
      date_text: period[0],
      relative: { text: period[0], ...near, computed: true },
    };
  const narrative = NARRATIVE.exec(sentence);
  const next = narrative ? null : NEXT.exec(sentence);
  // "The following month" is a month, not the day a month on; a year after a month or a year too.
  const nextPeriod = next && /^(?:month|year)$/i.test(next[2]!) ? next[2]!.toLowerCase() : '';
  if (nextPeriod && (anchor.precision !== 'year' || nextPeriod === 'year'))
    return {
      ...periodOf(anchor.date, nextPeriod, 1),
      date_text: next![0],
      relative: { text: next![0], ...near, computed: true },
    };
  const exact = narrative && !narrative[1] && !narrative[4] ? narrative : null;
  if (anchor.precision === 'day' && (exact || next)) {
    const [n, unit, sign] = exact
      ? [countOf(exact[2]!, exact[3]), exact[5]!, /earlier/i.test(exact[6]!) ? -1 : 1]
      : [1, next![2]!.replace('morning', 'day'), 1];
    const date = addTo(anchor.date, sign * n, unit);
    const text = (exact ?? next)![0];
    return { date, precision: 'day', date_text: text, relative: { text, ...near, computed: true } };
  }
  const vague = narrative ?? VAGUE.exec(sentence);
  if (!vague) return null;
  const relative = { text: vague[0], ...near, computed: false };
  return { date: anchor.date, precision: anchor.precision, date_text: vague[0], relative };
}

/** The month or year of a date (`unit`), `by` of them on: as the date of its first day, with that precision. */
function periodOf(date: string, unit: string, by: number): { date: string; precision: 'month' | 'year' } {
  const [y, m] = date.split('-').map(Number) as [number, number];
  if (/^year$/i.test(unit)) return { date: `${y + by}-01-01`, precision: 'year' };
  const t = new Date(Date.UTC(y, m - 1 + by, 1));
  return { date: t.toISOString().slice(0, 10), precision: 'month' };
}
