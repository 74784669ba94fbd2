/**
 * The key facts of a sentence, normalised so that the way a contract writes them and the way an
 * answer restates them compare equal: "forty-five (45) days" = "45 days", "$1,000,000" = "one
 * million dollars", "15 percent" = "15%", "one (1) year" = "12 months", "March 3, 2021" =
 * "3 March 2021". Names (capitalised words that are not sentence furniture) are facts too. Pure.
 */

import { NUMBER_RUN, NUMBER_WORD, numberWordsValue } from '../util/number-words';

export type FactKind = 'money' | 'percent' | 'duration' | 'date' | 'year' | 'number' | 'name';

export interface Fact {
  kind: FactKind;
  /** Canonical value: "1000000", "15", "45 day", "2021-03-03", "2021", "cardlytics". */
  value: string;
  /** The words as the sentence wrote them (for the reason a user reads). */
  text: string;
}

/**
 * Number words written as digits, "45 (45)" said once, thousands separators dropped. Offsets are
 * not kept: facts are compared by value, and the caller keeps the original text for display.
 */
export function digitsFor(text: string): string {
  let out = NUMBER_WORD.test(text)
    ? text.replace(NUMBER_RUN, (run) => {
        const v = numberWordsValue(run);
        return v === null ? run : String(v);
      })
    : text;
  // "45 (45)", "forty five (45)" → "45"; "(45) days" after a written number.
  out = out.replace(/\b(\d[\d,]*(?:\.\d+)?)\s*\(\s*(?:\$\s*)?\1\s*\)/g, '$1');
  out = out.replace(/\b(\d{1,3}(?:,\d{3})+)(?!\d)/g, (m) => m.replace(/,/g, ''));
  return out;
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const MONTH_RE =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?';
const monthOf = (m: string): number => MONTHS.findIndex((x) => x.startsWith(m.toLowerCase().slice(0, 3))) + 1;
const pad = (n: number): string => String(n).padStart(2, '0');

const SCALE_WORD: Record<string, number> = {
  thousand: 1_000,
  million: 1_000_000,
  billion: 1_000_000_000,
  k: 1_000,
  m: 1_000_000,
  mm: 1_000_000,
  bn: 1_000_000_000,
};

/** "12 months" and "one year" compare equal; so do "2 weeks" and "14 days". */
function durationValue(n: number, unit: string): string {
  const u = unit.toLowerCase();
  if (u.startsWith('year')) return `${n * 12} month`;
  if (u.startsWith('month')) return `${n} month`;
  if (u.startsWith('week')) return `${n * 7} day`;
  if (u.startsWith('day')) return `${n} day`;
  if (u.startsWith('hour')) return `${n} hour`;
  return `${n} ${u}`;
}

interface Hit {
  start: number;
  end: number;
  fact: Fact;
}

const num = (s: string): number => Number(s.replace(/,/g, ''));

/** Numeric facts (money, percentages, durations, dates, years, other numbers) of a text already through `digitsFor`. */
function numericFacts(t: string): Hit[] {
  const hits: Hit[] = [];
  const taken = (s: number, e: number) => hits.some((h) => s < h.end && e > h.start);
  const add = (m: RegExpMatchArray, fact: Omit<Fact, 'text'>) => {
    const s = m.index!;
    const e = s + m[0].length;
    if (!taken(s, e)) hits.push({ start: s, end: e, fact: { ...fact, text: m[0].trim() } });
  };
  for (const m of t.matchAll(
    /(?:\$|US\$|USD\s?|€|EUR\s?|£|GBP\s?)\s?(\d+(?:\.\d+)?)(?:\s*(thousand|million|billion|k|mm|m|bn)\b)?/gi,
  )) {
    add(m, {
      kind: 'money',
      value: String(Math.round(num(m[1]!) * (m[2] ? SCALE_WORD[m[2].toLowerCase()]! : 1) * 100) / 100),
    });
  }
  for (const m of t.matchAll(
    /\b(\d+(?:\.\d+)?)(?:\s*(thousand|million|billion)\b)?\s*(?:u\.?s\.?\s*)?(?:dollars|usd|euros?|pounds sterling)\b/gi,
  )) {
    add(m, {
      kind: 'money',
      value: String(Math.round(num(m[1]!) * (m[2] ? SCALE_WORD[m[2].toLowerCase()]! : 1) * 100) / 100),
    });
  }
  for (const m of t.matchAll(/\b(\d+(?:\.\d+)?)\s*(?:%|percent\b|per\s?cent\b)/gi))
    add(m, { kind: 'percent', value: String(num(m[1]!)) });
  const dmy = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:day\\s+of\\s+)?${MONTH_RE},?\\s+(\\d{4})\\b`, 'gi');
  for (const m of t.matchAll(dmy))
    add(m, { kind: 'date', value: `${m[3]}-${pad(monthOf(m[2]!))}-${pad(Number(m[1]))}` });
  const mdy = new RegExp(`\\b${MONTH_RE}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, 'gi');
  for (const m of t.matchAll(mdy))
    add(m, { kind: 'date', value: `${m[3]}-${pad(monthOf(m[1]!))}-${pad(Number(m[2]))}` });
  for (const m of t.matchAll(/\b(\d{4})-(\d{2})-(\d{2})\b/g))
    add(m, { kind: 'date', value: `${m[1]}-${m[2]}-${m[3]}` });
  for (const m of t.matchAll(/\b(\d{1,2})[/.](\d{1,2})[/.](\d{4})\b/g))
    add(m, { kind: 'date', value: `${m[3]}-${pad(Number(m[1]))}-${pad(Number(m[2]))}` });
  const my = new RegExp(`\\b${MONTH_RE},?\\s+(\\d{4})\\b`, 'gi');
  for (const m of t.matchAll(my)) add(m, { kind: 'date', value: `${m[2]}-${pad(monthOf(m[1]!))}` });
  for (const m of t.matchAll(
    /\b(\d+(?:\.\d+)?)(?:\s+|-)(?:(?:business|calendar|working|consecutive)\s+)?(years?|months?|weeks?|days?|hours?)\b/gi,
  )) {
    add(m, { kind: 'duration', value: durationValue(num(m[1]!), m[2]!) });
  }
  for (const m of t.matchAll(/\b(?:19|20)\d{2}\b/g)) add(m, { kind: 'year', value: m[0] });
  // Other numbers, references to parts of a document included ("Section 5.2", "Exhibit 10"): a
  // sentence that sends the reader to the wrong section is not supported either.
  for (const m of t.matchAll(/\b\d+(?:\.\d+)*\b/g)) {
    if (m[0] === '1') continue; // "one of the parties"
    // A page of the document ("p. 12", "pp. 3–4"): where the words are, not what they say.
    if (/(?:\bp|\bpp|\bpages?)\.?\s*(?:\d+\s*[-–—]\s*)?$/i.test(t.slice(Math.max(0, m.index - 16), m.index))) continue;
    add(m, { kind: 'number', value: /\.\d+\./.test(m[0]) ? m[0] : String(num(m[0])) });
  }
  return hits;
}

/**
 * Capitalised words that carry no fact: sentence furniture, legal boilerplate nouns, months,
 * weekdays. Anything else capitalised (a party, a person, a defined term) must be found.
 */
const NOT_NAMES = new Set(
  `a an the this that these those such each either neither both any all no none some it its their there here they he she we you i
  under in if upon after before during within for according pursuant as at by on to of from with without however also yes not
  notwithstanding except unless when where while subject only nor and or but so then thus therefore accordingly further furthermore
  moreover similarly finally first second third additionally otherwise specifically generally per based given since although though
  what which who whom whose how why whether
  agreement agreements contract party parties section sections article articles clause clauses exhibit schedule annex appendix
  effective date term terms page pages paragraph document documents case file files answer note notes passage passages
  january february march april may june july august september october november december
  monday tuesday wednesday thursday friday saturday sunday
  usd eur gbp us u.s inc llc ltd corp co l.p lp plc gmbh sa`.split(/\s+/),
);

/** Capitalised words that name someone or something (not at a sentence start unless clearly a name). */
function nameFacts(text: string): Fact[] {
  const out = new Map<string, Fact>();
  for (const m of text.matchAll(/[\p{Lu}][\p{L}\p{N}&'’.-]*[\p{L}\p{N}]|[\p{Lu}]/gu)) {
    const word = m[0].replace(/['’]s$/, '');
    const lower = word.toLowerCase();
    if (word.length < 2 || NOT_NAMES.has(lower) || /^\d/.test(word)) continue;
    const before = text.slice(0, m.index).trimEnd();
    const sentenceStart = before === '' || /[.!?:;"“(\n]$/.test(before);
    const odd = /\p{Lu}.*\p{Lu}/u.test(word.slice(1)) || /^\p{Lu}+$/u.test(word) || /\d/.test(word);
    // The first word of a sentence is capitalised anyway: a name there ("Cardlytics may …"), but not
    // an ordinary noun ("Payment is due …").
    if (sentenceStart && !odd && /(?:tion|sion|ment|ance|ence|ity|ing|ness|ship|ure|al|ly|ed|er|ies)$/.test(lower))
      continue;
    if (!out.has(lower)) out.set(lower, { kind: 'name', value: lower, text: word });
  }
  return [...out.values()];
}

/** The key facts of a sentence (numbers, amounts, durations, dates and names), each once. */
export function factsOf(sentence: string): Fact[] {
  const t = digitsFor(sentence);
  const seen = new Set<string>();
  const out: Fact[] = [];
  for (const h of numericFacts(t).sort((a, b) => a.start - b.start)) {
    const key = `${h.fact.kind}:${h.fact.value}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(h.fact);
    }
  }
  for (const f of nameFacts(t)) {
    if (!seen.has(`name:${f.value}`)) {
      seen.add(`name:${f.value}`);
      out.push(f);
    }
  }
  return out;
}

/** What a passage states, ready for `missingFacts`. */
export interface FactIndex {
  values: Set<string>;
  /** Numbers appearing anywhere (as money, percent, duration or plain). */
  numbers: Set<string>;
  /** Years appearing anywhere (in dates or alone). */
  years: Set<string>;
  /** Lower-cased text with number words as digits (names are looked up in it). */
  text: string;
}

export function indexFacts(text: string): FactIndex {
  const t = digitsFor(text);
  const values = new Set<string>();
  const numbers = new Set<string>();
  const years = new Set<string>();
  for (const h of numericFacts(t)) {
    values.add(`${h.fact.kind}:${h.fact.value}`);
    if (h.fact.kind === 'date') {
      years.add(h.fact.value.slice(0, 4));
      values.add(`date:${h.fact.value.slice(0, 7)}`);
    }
    if (h.fact.kind === 'year') years.add(h.fact.value);
    const n = /^(\d+(?:\.\d+)?)/.exec(h.fact.value)?.[1];
    if (n && h.fact.kind !== 'date') numbers.add(n);
  }
  for (const m of t.matchAll(/\b\d+(?:\.\d+)*\b/g)) numbers.add(/\.\d+\./.test(m[0]) ? m[0] : String(Number(m[0])));
  return { values, numbers, years, text: t.toLowerCase() };
}

function hasWord(text: string, word: string): boolean {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?:^|[^\\p{L}\\p{N}])${escaped}(?:s|es|'s|’s)?(?![\\p{L}\\p{N}])`, 'u').test(text);
}

/**
 * The facts of a sentence that a passage does not state. Names may also be found in `names`
 * (the document's title, parties and file name: a passage deep in a contract need not repeat
 * who the parties are).
 */
export function missingFacts(facts: Fact[], passage: FactIndex, names = ''): Fact[] {
  const nameText = names.toLowerCase();
  return facts.filter((f) => {
    switch (f.kind) {
      case 'name':
        return !hasWord(passage.text, f.value) && !hasWord(nameText, f.value);
      case 'year':
        return !passage.years.has(f.value);
      case 'number':
        return !passage.numbers.has(f.value);
      case 'duration': {
        if (passage.values.has(`duration:${f.value}`)) return false;
        // "5 years" stated as "five (5) year term" is found; a bare "5" elsewhere is not enough.
        return true;
      }
      default:
        return !passage.values.has(`${f.kind}:${f.value}`);
    }
  });
}
