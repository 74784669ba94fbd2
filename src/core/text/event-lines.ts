/**
 * What makes a chronology row read like a litigator's fact list: no rows from signature blocks or a
 * form's fields, no pleading line numbers inside an event, a short line for each event (its full
 * sentence stays one click away), and people who are people or organisations, not places.
 */
import type { Line } from './outline';

/** Two dates or more among names, with no word in lower case: signatures whose captions the text lost. */
function namesAndDates(sentence: string): boolean {
  const dates = sentence.match(FULL_DATES)?.length ?? 0;
  const rest = sentence.replace(FULL_DATES, ' ');
  // A table of periods ("Interim Fee Application (08/17/18 – 09/30/18)") has ranges or parentheses; signatures have neither.
  if (dates < 2 || /[()–—]/.test(rest)) return false;
  return !/\b[a-z]{2,}/.test(rest) && (rest.match(/\b[A-Z][a-z]+\b/g)?.length ?? 0) >= 2;
}

/** A brief's close and a form's signature captions: "Respectfully submitted", "Date  Signature of Counsel". */
const SIGNATURE_WORDS =
  /\bRespectfully submitted\b|\bSignature of (?:Counsel|Attorney|Debtor|Party|Applicant|Petitioner|Declarant)\b|\bDate\s+Signature\b/i;

/** An e-signature: "/s/ Jane Roe", "s/ Jane Roe". */
const E_SIGNATURE = /\/s\/|(?:^|\s)s\/\s*[A-Z]/i;
/** A line that only dates what follows: "Dated: August 5, 2020", "Date: 3/18/2014". */
const DATE_LINE = /^Dated?\s*:?\s*[\w ,./-]{6,30}$/i;
/** How a filer's signature begins (besides an e-signature): "Respectfully submitted,", "By:". A judge's line to sign on is not one: "DATED:" over it dates the judgment. */
const SIGNATURE_START = /^(?:Respectfully submitted|By\s*:)/i;

/** A signer's fields just above a date line: "By: /s/ Jane Roe", "Name: Jane Roe", "Title: CFO". */
const SIGNED_ABOVE = /\bBy\s*:[^\n]*\n(?:[^\n]*\n){0,6}?[ \t-]*(?:Name|Title|Its)\s*:/i;

/**
 * Whether the sentence `text.slice(a, b)` is a signature block's date line ("Dated: August 5, 2020"
 * over "/s/ Jane Roe", or "Date: 9/21/98" under "By: … Name: … Title: …"): a signing, not an event.
 * (Under a court's sign-off the caller keeps it as the order's.)
 */
export function signedDateLine(text: string, a: number, b: number): boolean {
  if (!DATE_LINE.test(text.slice(a, b).trim())) return false;
  const start = text.slice(b, b + 40).trimStart();
  return (
    SIGNATURE_START.test(start) ||
    E_SIGNATURE.test(start.slice(0, 24)) ||
    SIGNED_ABOVE.test(text.slice(Math.max(0, a - 240), a))
  );
}

/** A signature block ("/s/", "____ Date Date", "By: … Title: …") or a form's field row ("Inactive: Active: 20011206"). */
export function isJunkSentence(sentence: string, dateText: string): boolean {
  // An e-signature, a brief's close, a form's signature captions.
  if (E_SIGNATURE.test(sentence) || SIGNATURE_WORDS.test(sentence)) return true;
  // Dates and nothing else ("1/30/2000 1/30/2000", "01/01/2018 to"): the dates under a contract's
  // signatures, their captions lost, or a form's reporting period cut from its label; also with
  // only an exhibit's stamp beside them ("03/23/2019 Page 242 EXHIBIT 57").
  const unstamped = sentence.replace(/\b(?:Page|Exhibit)\s+\d+\b/gi, ' ').trim();
  if (/^(?:\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\s*(?:to|through|-|–)?\s*)+$/.test(unstamped)) return true;
  // Counsel's names and addresses under a caption; a citation to the record ("(IFF's Reply Br. … Order …").
  if (
    /\bCounsel for (?:the )?(?:Appellants?|Appellees?|Plaintiffs?|Defendants?|Petitioners?|Respondents?)\b/.test(
      sentence,
    )
  )
    return true;
  // An opinion's caption dates, even split over lines in their parenthesis ("(Argued: …", "Decided: …)").
  if (/^\(?\s*(?:Argued|Submitted|Decided|Filed|Heard|Entered)(?:\s+and\s+\w+)?\s*:/.test(sentence)) return false;
  // Names and dates, no words between ("Michael Bentley Michael Schuett December 8, 2005 December 7,
  // 2005"), or a signature page's label: the dates under signatures.
  if (/\bSignature page\b/i.test(sentence) || namesAndDates(sentence)) return true;
  // An official bankruptcy form's footnote on its dollar limits: "* Subject to adjustment on 4/01/19 and every 3 years after that".
  if (/\bsubject to adjustment on\b[^.]*\bevery (?:3|three) years\b/i.test(sentence)) return true;
  if (/^\(/.test(sentence) && !/^\([a-z0-9]{1,3}\)\s/i.test(sentence) && !/\)\s+\S/.test(sentence.slice(0, 60)))
    return true;
  if (/\)\.?$/.test(sentence) && !sentence.includes('(')) return true;
  const labels =
    sentence.match(/\b(?:By|Name|Title|Its|Signature|Date|BY|NAME|TITLE|ITS|SIGNATURE|DATE)\s*:/g)?.length ?? 0;
  if (labels >= 2) return true;
  // The captions under a signature line: "(Title) (Title) 1/12/99 12/18/98", "Name (type or print) Date".
  if (/\((?:Title|Name|Signature|Print(?:ed)? Name|Date|type or print)\)/i.test(sentence)) return true;
  // Dates over signature lines of underscores or dashes: "1/30/2000 1/30/2000 ------ ------ Date Date".
  if (/_{3,}|-{6,}/.test(sentence) && (/\bDate\b[\s_-]*\bDate\b/.test(sentence) || labels)) return true;
  // A row of labelled fields, next to no words of a sentence, none of which dates something
  // ("Inactive: Active: 20011206 - 20061004"; not "Date of Discharge: 20070817").
  const rest = sentence.replace(dateText, ' ');
  const prose = rest.match(/(?<![\w'’-])[a-z][a-z'’-]+\b/g)?.length ?? 0;
  const fields = rest.match(/\b[A-Z][\w ]{0,30}:/g) ?? [];
  const dated = fields.some((f) => /\bdate of \w|\w+ date\s*:/i.test(f));
  return /^[A-Z][\w ]{0,30}:/.test(sentence) && fields.length >= 2 && prose < 3 && !dated;
}

/**
 * The line-number column of pleading paper or a transcript: a run of lines, on one page, that open
 * with the numbers 1, 2, 3… ("9", "10 Background", "11 On February 13, 2002, …", "·4· · Plaintiff,").
 * Returns the numbers' ranges.
 */
export function lineNumberColumn(lines: readonly Line[]): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  let run: { start: number; end: number }[] = [];
  let last = -1;
  let page = -1;
  const close = () => {
    if (run.length >= 5) out.push(...run);
    run = [];
  };
  for (const l of lines) {
    // A court reporter's transcript writes them between middle dots: "·4· · · · Plaintiff,".
    const m = /^·?(\d{1,2})(?=[\s·]|$)/.exec(l.text);
    if (l.page !== page) {
      close();
      page = l.page;
      last = -1;
    }
    if (!m) continue;
    const n = Number(m[1]);
    if (n !== last + 1 && run.length) close();
    if (n === last + 1 || !run.length) run.push({ start: l.start, end: l.start + m[0].length });
    last = n;
  }
  close();
  return out;
}

const LINE_MAX = 160;
/** "a Delaware corporation having its principal place of business at …": up to the next party or clause. */
const APPOSITIVE =
  /,\s+(?:a|an)\s+(?:[A-Z][\w.]*\s+){0,3}(?:corporation|company|partnership|limited liability company|limited partnership|association|bank|trust|organization|entity|individual|municipality)\b.*?(?=,?\s+and\s+\S*[A-Z]|;|\.\s|$)/g;
/** The dates of an opinion's caption: "Argued: October 29, 2009 Decided: February 5, 2010". */
const CAPTION_DATE =
  /\b((?:Argued|Submitted|Decided|Filed|Heard|Entered)(?:\s+and\s+(?:Filed|Decided|Entered|Submitted))?)\s*:?\s*((?:[A-Z][a-z]{2,8}\.?\s+\d{1,2},?\s+\d{4})|\d{1,2}\/\d{1,2}\/\d{2,4})/g;
/**
 * An opinion's caption dates ("Argued: October 29, 2009 Decided: February 5, 2010"): two events in
 * one sentence, each its own row with its own words ([start, end) in the sentence); [] for any other.
 */
export function captionParts(sentence: string): [number, number][] {
  const found = [...sentence.matchAll(CAPTION_DATE)];
  // "(Filed:February 5, 2010) Robert G. Rose (Argued) … Counsel for Appellant": the decision's date
  // heads counsel's block, which is no event.
  const heads = found.length === 1 && /^\(\s*$/.test(sentence.slice(0, found[0]!.index));
  return found.length >= 2 || heads ? found.map((m) => [m.index, m.index + m[0].length]) : [];
}

/**
 * A line that opens with a date, or with a short label and then a date: a row of a docket
 * ("11/16/2016 4016 Amended CMO 1 re …"), of an exhibit list ("9080 10/7/07 Email from Dr. Lehman",
 * "8583 G3 Project Status Report April 19, 2006") or of a schedule ("Year 1 - Due: December 31,
 * 2018 - $50,000").
 */
const DATED_ROW =
  /^[ \t]*(?:[^\n.;:]{0,30}\b(?:due|deadline|paid|payable)\s*[:-]\s*|\d{3,6}[ \t]+(?:[^\n]{0,50}?[ \t])?)?(?:\d{1,2}\/\d{1,2}\/\d{2,4}|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.? \d{1,2}, \d{4})\b/i;

/**
 * The rows of a table of dated entries read as one sentence (a docket, an exhibit list: no full
 * stop ends a row): each line that opens with a date, with the lines under it up to the next, is an
 * event of its own. [start, end) in `raw` (the sentence with its line breaks); [] for a sentence
 * with fewer than two such lines.
 */
export function datedRows(raw: string): [number, number][] {
  const starts: number[] = [];
  let at = 0;
  for (const line of raw.split('\n')) {
    if (DATED_ROW.test(line)) starts.push(at + (line.length - line.trimStart().length));
    at += line.length + 1;
  }
  if (starts.length < 2) return [];
  // The last row ends where a signature block or a footer's label line begins under it.
  const tail = /\n[ \t]*(?:Signatures?|By|Name|Title|Source)\s*:/.exec(raw.slice(starts.at(-1)!));
  const last = tail ? starts.at(-1)! + tail.index + 1 : raw.length + 1;
  return starts
    .map((s, i) => [s, (starts[i + 1] ?? last) - 1] as [number, number])
    .map(([s, e]) => {
      let end = Math.min(e, raw.length);
      while (end > s && /\s/.test(raw[end - 1]!)) end--;
      return [s, end];
    });
}

const MONTH_ABBR = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\\.?';
/** A whole date: "July 17, 2025", "17 July 2025", "11/04/19". */
const FULL_DATE = new RegExp(
  `\\b(?:${MONTH_ABBR}\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}|\\d{1,2}\\s+${MONTH_ABBR},?\\s+\\d{4}|\\d{1,2}\\/\\d{1,2}\\/\\d{2,4})\\b`,
);
const FULL_DATES = new RegExp(FULL_DATE.source, 'g');
/** Where a sentence may part into events: a semicolon, or ", and" between clauses. */
const CLAUSE_CUT = /;\s+|,\s+and\s+/g;

/**
 * Events joined in one sentence, each with a date of its own: list items parted by semicolons
 * ("the iCloud account of … (11/04/19); the e-mail account of … (12/13/19)") or clauses joined by
 * ", and" ("Appellees shall file … by July 17, 2025, and Appellant shall file a reply by July 22,
 * 2025"). A part without a whole date stays with the part before it, and so does a clause whose date
 * comes within its first words (a range's end: "…, and ending December 31, 2019"). [start, end) of
 * each part in the sentence; [] when fewer than two parts are left.
 */
export function clauseParts(sentence: string): [number, number][] {
  if (!sentence.includes(';') && !/,\s+and\s/.test(sentence)) return [];
  const parts: [number, number][] = [];
  let from = 0;
  const close = (to: number, next: number) => {
    const piece = sentence.slice(from, to);
    const date = FULL_DATE.exec(piece);
    const lead = date ? piece.slice(0, date.index).trim().split(/\s+/).filter(Boolean).length : 0;
    const prev = parts.at(-1);
    if (prev && (!date || lead < 3)) prev[1] = to;
    else parts.push([from, to]);
    from = next;
  };
  for (const m of sentence.matchAll(CLAUSE_CUT)) close(m.index + (m[0].startsWith(';') ? 1 : 0), m.index + m[0].length);
  close(sentence.length, sentence.length);
  // The first part keeps what comes before its date; a first part without a date joins the next.
  if (parts.length > 1 && !FULL_DATE.test(sentence.slice(parts[0]![0], parts[0]![1]))) {
    const [first, second] = parts as [[number, number], [number, number]];
    parts.splice(0, 2, [first[0], second[1]]);
  }
  return parts.length >= 2 ? parts : [];
}

/** A parenthesis that holds only dates, or the act and its date: "(December 2, 2015)", "(02/28/2020 and 3/02/2020)", "(filed on December 8, 2016)". */
const PAREN_DATE = new RegExp(
  `\\((?:(?:filed|entered|served|issued|decided|signed|dated|sent|received)\\s+(?:on\\s+)?)?${FULL_DATE.source}(?:\\s*(?:,|and|&)\\s*${FULL_DATE.source})*\\)`,
  'gi',
);
/** The words that join the next fact to the one before: ", and", "rather than the date". */
const JOINER = /^[\s,;]*(?:(?:and|but|or|while|whereas|rather than|instead of)\b\s*)?(?:(?:on\s+)?the\s+date\s+)?/i;

/**
 * Facts each dated in a parenthesis of their own, in one sentence ("… began to run on the date
 * Appellees filed a debt collection lawsuit against Beavers (December 2, 2015) rather than the date
 * Appellees served the debt collection lawsuit on Beavers (December 10, 2015)"): each fact is a
 * part, up to its parenthesis, without the words that join it to the one before; what follows the
 * last stays with it. [] for a sentence with fewer than two such parentheses.
 */
export function parenParts(sentence: string): [number, number][] {
  const ends = [...sentence.matchAll(PAREN_DATE)].map((m) => m.index + m[0].length);
  if (ends.length < 2) return [];
  const parts: [number, number][] = [];
  let from = 0;
  for (const [i, end] of ends.entries()) {
    parts.push([
      from + (JOINER.exec(sentence.slice(from, end))?.[0].length ?? 0),
      i === ends.length - 1 ? sentence.length : end,
    ]);
    from = end;
  }
  return parts;
}

/** A form's dated field that is an event of the agreement: "Effective Date: 11/4/10", "Commencement Date: June 1, 2019". */
const EVENT_FIELD = new RegExp(
  `\\b(?:Effective|Commencement|Start|Expiration|Expiry|Termination|Closing|Completion|Go-Live)\\s+Date\\s*:\\s*(?:${FULL_DATE.source})`,
  'gi',
);

/**
 * The agreement's dates among a cover sheet's fields ("Agreement Number: CW251207 Effective Date:
 * 11/4/10 Company Name: …"), each an event of its own words; [] for a sentence that is not a row of
 * labelled fields or has none.
 */
export function fieldParts(sentence: string): [number, number][] {
  if ((sentence.match(/\b[A-Z][\w ]{0,30}:/g)?.length ?? 0) < 2) return [];
  return [...sentence.matchAll(EVENT_FIELD)].map((m) => [m.index, m.index + m[0].length]);
}

/** A date, a month and year or a season of a year: what dates a reported fact ("beginning in early November 2019"). */
const SOME_DATE = new RegExp(`${FULL_DATE.source}|\\b${MONTH_ABBR}\\s+(?:of\\s+)?\\d{4}\\b`);
/** A report of a fact: "the Government advised defense counsel … that", "Smith testified that". */
const REPORTED =
  /\b(?:advised|informed|notified|stated|testified|reported|explained|told|wrote|alleged|asserted|represented|disclosed|acknowledged|admitted|confirmed|conceded)\b[^.;:]{0,80}?\bthat\b,?\s*/g;

/**
 * A dated report of a dated fact ("by letter dated May 14, 2021, the Government advised … that,
 * beginning in early November 2019, it had applied for … warrants"): two events, the report (the
 * whole sentence) and the fact (the words after "that"). [] for any other sentence.
 */
export function reportedParts(sentence: string): [number, number][] {
  for (const m of sentence.matchAll(REPORTED)) {
    const after = m.index + m[0].length;
    if (SOME_DATE.test(sentence.slice(0, m.index)) && SOME_DATE.test(sentence.slice(after)))
      return [
        [0, sentence.length],
        [after, sentence.length],
      ];
  }
  return [];
}

/** A list or section marker, a footnote number, before the words: "I ", "B. ", "5 ", "(a) ". */
const MARKER = /^(?:\(?[a-z0-9]{1,3}\)|[IVX]{1,4}\.?|[A-Z]\.|\d{1,3}\.?)\s+(?=[A-Z(])/;

/**
 * The short line of an event (at most 160 characters): its sentence without a leading heading in
 * capitals, parentheticals (defined terms, citations' years), parties' descriptions and the date
 * phrase that opens it (the date column says it), cut at a clause where it is still too long.
 */
export function eventLine(sentence: string, dateText: string): string {
  let s = sentence.replace(/\s+/g, ' ').trim();
  s = s.replace(
    /^(?:(?:EXHIBIT|SCHEDULE|ANNEX|APPENDIX)\s+[\w.-]+\s+)?(?:[A-Z][A-Z0-9&,.'’-]*\s+){2,12}(?=[A-Z][a-z])/,
    '',
  );
  s = s
    .replace(/\s*\([^()]{0,200}\)/g, '')
    .replace(APPOSITIVE, '')
    .trim()
    .replace(MARKER, '');
  // A run-in heading before it ("Background On February 13, 2002, …") goes with it.
  const lead = new RegExp(
    `^(?:[A-Z][a-z]+\\s+){0,3}?(?:On|As of|Effective|Dated|In)\\s+(?:or about\\s+)?${escapeRegExp(dateText)}\\s*,?\\s*`,
  );
  const opened = s.replace(lead, '');
  if (opened !== s && opened) s = opened.charAt(0).toUpperCase() + opened.slice(1);
  s = s.replace(/\s+([,.;:])/g, '$1').replace(/\s{2,}/g, ' ');
  if (s.length <= LINE_MAX) return s;
  const head = s.slice(0, LINE_MAX - 1);
  const clause = Math.max(head.lastIndexOf(', '), head.lastIndexOf('; '));
  const cut = clause >= 80 ? clause : head.lastIndexOf(' ');
  return `${head.slice(0, cut > 0 ? cut : head.length).replace(/[,;:]$/, '')}…`;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const PLACES = new Set(
  [
    'United States',
    'United States of America',
    'United Kingdom',
    'New York',
    'New Jersey',
    'New Mexico',
    'New Hampshire',
    'North Carolina',
    'South Carolina',
    'North Dakota',
    'South Dakota',
    'West Virginia',
    'Rhode Island',
    'District of Columbia',
    'Puerto Rico',
    'Hong Kong',
    'Los Angeles',
    'San Francisco',
    'San Diego',
    'San Jose',
    'Las Vegas',
    'New Orleans',
    'Salt Lake City',
    'Kansas City',
    'St Louis',
    'British Columbia',
    'New South Wales',
    'New Zealand',
    'South Africa',
    'Cayman Islands',
    'British Virgin Islands',
  ].map((p) => p.toLowerCase()),
);
/** Words a signature block or a form leaves after a name ("Scott Grime By", "Financial Director Mr", "Charity No"). */
const TRAILING =
  /(?:\s+(?:By|Its|Name|Title|Date|Dated|And|Of|Per|Signature|Witness|Mr|Mrs|Ms|No|Nos|Docket|January|February|March|April|June|July|August|September|October|November|December))+$/;
/** The last word of a document's, a period's or a thing's name, never of a person's or an organisation's. */
const THING =
  /\s(?:Agreements?|Amendment|Addendum|Schedule|Exhibit|Annex|Appendix|Deed|Contract|Conditions|Rights|Products?|Field|Term|Period|Year|Dates?|Report|Application|Summary|Overview|Requirements|Guidelines?|Practices?|Receipt|Table|Milestone|Subsidiaries|Entit(?:y|ies)|Business|Property|Committee|Complaint|Motion|Brief|Petition|Loan|Compact)$/;
/** A form's label before a name ("Date Bogota"). */
const LEADING = /^(?:Date|Dated|Name|Title|Re)\s+/;
const NO_TERMS: ReadonlySet<string> = new Set();
/** A caption's or a court's words, not a name: "Argued December", "Circuit Judges", "Third Party Appellee". */
const NOT_A_NAME =
  /^(?:Argued|Submitted|Decided|Filed|Before|Counsel|Circuit|District)\b|^(?:(?:United States|Third Party|Chief|Senior|Circuit|District|Magistrate|Bankruptcy|Supreme|Appellate)\s+)*(?:Judges?|Justices?|Court|Clerk|Appellants?|Appellees?|Petitioners?|Respondents?|Plaintiffs?|Defendants?)$/;
/** A street, a box or a suite: part of an address. */
const ADDRESS =
  /\b(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Drive|Way|Place|Suites?|Pike|Highway|Box|Floor|Parkway|Pkwy|Terrace|Plaza|Court Road)\b/;
const STATES =
  'Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|Florida|Georgia|Hawaii|Idaho|Illinois|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|Massachusetts|Michigan|Minnesota|Mississippi|Missouri|Montana|Nebraska|Nevada|New Hampshire|New Jersey|New Mexico|New York|North Carolina|North Dakota|Ohio|Oklahoma|Oregon|Pennsylvania|Rhode Island|South Carolina|South Dakota|Tennessee|Texas|Utah|Vermont|Virginia|Washington|West Virginia|Wisconsin|Wyoming|[A-Z]{2}';

/**
 * The people and organisations among a sentence's capitalised names: no places (known ones, and a
 * name followed by its state: "Murray Hill, New Jersey"), no addresses or court titles, no form
 * words after a name, and no part of a longer name listed with it.
 */
export function peopleOnly(names: readonly string[], sentence = '', terms: ReadonlySet<string> = NO_TERMS): string[] {
  const kept: string[] = [];
  for (const raw of names) {
    const name = raw
      .replace(LEADING, '')
      .replace(TRAILING, '')
      .replace(/(?:’s|'s|\.)$/, '')
      .trim();
    // A term the document defines ("Business Day", "Cap Agreement") or its first words ("Final
    // Maturity" of "Final Maturity Date"), not one of its parties; a document, a period or a thing
    // by its last word ("Joint Venture Agreement", "Contract Year").
    if (definedTerm(name, terms) || THING.test(name)) continue;
    // A form's label ("Highest Rank/Rate:", "Application Received:").
    if (new RegExp(`${escapeRegExp(raw)}\\s*[:/]`).test(sentence)) continue;
    if (!/\s/.test(name) && !/^(?:Dr|Mr|Mrs|Ms|Judge|Officer)\b/.test(name)) continue;
    if (PLACES.has(name.toLowerCase()) || /^(?:City|County|State|Commonwealth) of\b/.test(name)) continue;
    if (NOT_A_NAME.test(name) || ADDRESS.test(name)) continue;
    if (new RegExp(`${escapeRegExp(name)},\\s*(?:${STATES})\\b`).test(sentence)) continue;
    if (!kept.includes(name)) kept.push(name);
  }
  return longestNames(kept);
}

/** `name` is a term of `terms` or opens one. */
function definedTerm(name: string, terms: ReadonlySet<string>): boolean {
  const key = name.toLowerCase();
  if (terms.has(key)) return true;
  for (const t of terms) if (t.startsWith(`${key} `)) return true;
  return false;
}

/** A corporate form or a public body's word: a defined term holding one names an organisation ("Forty Niners SC Stadium Company"). */
const ORGANISATION =
  /\b(?:Inc|LLC|L\.L\.C|Ltd|Limited|Corp|Corporation|Company|Co|LLP|LP|PLC|AG|GmbH|SA|NV|BV|Bank|Trust|University|Institute|Authority|Agency|Commission|Board|Department|Ministry|Council|Court|Association|Foundation|Partnership|Group|Holdings?|Partners|Industries|Technologies|Enterprises|Wireless|Communications|Airlines|Pharmaceuticals|Therapeutics)\b/;

/**
 * The capitalised terms a document defines in quotes ("Business Day", (the “Cap Agreement”)), in
 * lower case: words of the document, not its people. Not a party's name or part of one, nor a term
 * naming an organisation.
 */
export function definedTerms(text: string, parties: readonly string[] = []): Set<string> {
  const partyNames = parties.map((p) => p.toLowerCase());
  // A party's name without its corporate form ("violin memory" of "Violin Memory, Inc."): a term
  // it opens ("Violin Memory Tower") still leaves the party a name.
  const stems = partyNames.map((p) => p.replace(/[,\s]+(?:inc|llc|ltd|corp|co|l\.?p|plc|s\.?a|ag)\.?$/, '').trim());
  const terms = new Set<string>();
  for (const m of text.matchAll(/[“"]((?:[A-Z][\w&’'-]*\s+){1,5}[A-Z][\w&’'-]*)[”"]/g)) {
    const term = m[1]!.replace(/\s+/g, ' ');
    const key = term.toLowerCase();
    if (ORGANISATION.test(term) || partyNames.some((p) => p.includes(key))) continue;
    if (stems.some((s) => s.includes(' ') && key.startsWith(`${s} `))) continue;
    terms.add(key);
  }
  return terms;
}

/** Names without those that are the start or end of a longer one listed ("Technologies Inc" of "Lucent Technologies Inc"). */
export function longestNames(names: readonly string[]): string[] {
  const key = (n: string) => n.toLowerCase().replace(/\.$/, '');
  const unique = names.filter((n, i) => names.findIndex((m) => key(m) === key(n)) === i);
  return unique.filter(
    (n) => !unique.some((m) => m !== n && (key(m).endsWith(` ${key(n)}`) || key(m).startsWith(`${key(n)} `))),
  );
}
