/**
 * What makes a chronology row read like a litigator's fact list: no rows from signature blocks or a
 * form's fields, no pleading line numbers inside an event, a short line for each event (its full
 * sentence stays one click away), and people who are people or organisations, not places.
 */
import type { Line } from './outline';

/** A signature block ("/s/", "____ Date Date", "By: … Title: …") or a form's field row ("Inactive: Active: 20011206"). */
export function isJunkSentence(sentence: string, dateText: string): boolean {
  if (/\/s\//i.test(sentence)) return true;
  const labels = sentence.match(/\b(?:By|Name|Title|Its|Signature|Date)\s*:/g)?.length ?? 0;
  if (labels >= 2) return true;
  if (/_{3,}/.test(sentence) && (/\bDate\b[\s_]*\bDate\b/.test(sentence) || labels)) return true;
  // A row of labelled fields, next to no words of a sentence, none of which dates something
  // ("Inactive: Active: 20011206 - 20061004"; not "Date of Discharge: 20070817").
  const rest = sentence.replace(dateText, ' ');
  const prose = rest.match(/(?<![\w'’-])[a-z][a-z'’-]+\b/g)?.length ?? 0;
  const fields = rest.match(/\b[A-Z][\w ]{0,30}:/g) ?? [];
  const dated = fields.some((f) => /\bdate of \w|\w+ date\s*:/i.test(f));
  return /^[A-Z][\w ]{0,30}:/.test(sentence) && fields.length >= 2 && prose < 3 && !dated;
}

/**
 * The line-number column of pleading paper: a run of lines, on one page, that open with the numbers
 * 1, 2, 3… ("9", "10 Background", "11 On February 13, 2002, …"). Returns the numbers' ranges.
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
    const m = /^(\d{1,2})(?=\s|$)/.exec(l.text);
    if (l.page !== page) {
      close();
      page = l.page;
      last = -1;
    }
    if (!m) continue;
    const n = Number(m[1]);
    if (n !== last + 1 && run.length) close();
    if (n === last + 1 || !run.length) run.push({ start: l.start, end: l.start + m[1]!.length });
    last = n;
  }
  close();
  return out;
}

const LINE_MAX = 160;
/** "a Delaware corporation having its principal place of business at …": up to the next party or clause. */
const APPOSITIVE =
  /,\s+(?:a|an)\s+(?:[A-Z][\w.]*\s+){0,3}(?:corporation|company|partnership|limited liability company|limited partnership|association|bank|trust|organization|entity|individual|municipality)\b.*?(?=,\s+and\s|;|\.\s|$)/g;

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
  s = s.replace(/\s*\([^()]{0,200}\)/g, '').replace(APPOSITIVE, '');
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
/** Words a signature block or a form leaves after a name ("Scott Grime By"). */
const TRAILING = /(?:\s+(?:By|Its|Name|Title|Date|Dated|And|Of|Per|Signature|Witness))+$/;

/** The people and organisations among capitalised names: no places, no form words after a name. */
export function peopleOnly(names: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of names) {
    const name = raw.replace(TRAILING, '').trim();
    if (!/\s/.test(name) && !/^(?:Dr|Mr|Mrs|Ms|Judge|Officer)\b/.test(name)) continue;
    if (PLACES.has(name.toLowerCase()) || /^(?:City|County|State|Commonwealth) of\b/.test(name)) continue;
    if (!out.includes(name)) out.push(name);
  }
  return out;
}
