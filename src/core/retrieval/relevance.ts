/**
 * How far a passage answers a question, said only as certainly as the evidence allows: "the words
 * are on the page" is not "this answers you". A passage is graded on its best sentence's closeness
 * to the question, its share of the question's words and whether it holds the kind of fact asked for;
 * a question whose specific words no document uses is one the documents do not appear to answer.
 * Thresholds live in `RELEVANCE` (tuning.ts), set on tuning sets, never on the frozen ones.
 */
import type { PassageRelevance } from '../../shared/contract/chat';
import { contentWords } from '../util/words';
import { RELEVANCE } from './tuning';

export type { PassageRelevance };

export interface PassageEvidence {
  /** Cosine of the question and the passage's best sentence(s) with the case's embedding model; null without one. */
  sentenceCosine: number | null;
  /** Share of the question's content words in the passage (0–1). */
  coverage: number;
  /** The passage's place in the search's list (0 = first). */
  rank: number;
  /** Search's own label of the passage (strong, good, partial, …). */
  label: string;
  /** The question asks for an amount, a number or a duration, and the passage's quoted words hold none. */
  lacksAskedFact: boolean;
}

/** The grade of one passage. */
export function gradePassage(e: PassageEvidence, t = RELEVANCE): PassageRelevance {
  if (e.lacksAskedFact) return e.sentenceCosine !== null && e.sentenceCosine < t.floorCosine ? 'closest' : 'related';
  if (e.sentenceCosine === null) {
    // Keyword search only: the share of the question's words is all there is.
    if (e.rank <= t.answerRank && e.coverage >= t.answerCoverageAlone) return 'answer';
    return e.coverage >= t.floorCoverage ? 'related' : 'closest';
  }
  if (
    e.rank <= t.answerRank &&
    e.label === 'strong' &&
    e.sentenceCosine >= t.answerCosine &&
    e.coverage >= t.answerCoverage
  )
    return 'answer';
  if (e.sentenceCosine >= t.floorCosine || e.coverage >= t.floorCoverage) return 'related';
  return 'closest';
}

/** "How much", "how many", "what amount/price/fee/rate", "how long": the answer is a number, an amount or a duration. */
const ASKS_AMOUNT =
  /\b(how (much|many|long|often)|what (is|was|were|are)?\s*(the )?(amount|price|fee|fees|rate|sum|total|percentage|number|cost|salary|payment|term)s?\b|what .*\b(per (month|year|unit|hour|share|week|day)|price|fee|rate|amount|bail|fines?|restitution|bonus|purity)\b)/i;
/** Numbers that name a place or a day, not a figure: "Section 4.2", "§ 3(a)", "Chapter 13", "the 11th Circuit", "January 1, 2018", "2018", "(iv)". */
const NOT_FIGURES =
  /\b\d+(?:st|nd|rd|th)\s+(?:circuit|cir\.|amendment|district|dist\.)|\b(?:sections?|articles?|clauses?|paragraphs?|subsections?|exhibits?|schedules?|appendix|appendices|annex(?:es)?|rules?|parts?|items?|pages?|chapters?|titles?|counts?|dockets?|pp?\.|no\.|nos\.|u\.s\.c\.|c\.f\.r\.|cir\.|f\.(?:2d|3d|4th|supp\.(?: 2d| 3d)?)|s\. ?ct\.)\s*[\dA-Z][\w.()-]*(?:\s*(?:,|and|or|through|to)\s*\d[\w.()-]*)*|\b\d+\s+(?:u\.s\.c\.|c\.f\.r\.|u\.s\.|f\.(?:2d|3d|4th|supp\.)|s\. ?ct\.|l\. ?ed\.)(?:\s*2d)?\s*§*\s*\d[\w.()-]*|§+\s*[\w.()-]+|\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|\b\d{1,2}(?:st|nd|rd|th)? (?:day of )?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*,? \d{4}|\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b|\b(?:19|20)\d{2}\b|\(\s*(?:[ivx]+|[a-z]|\d{1,2})\s*\)|^\s*\d+(?:\.\d+)*\.?\s/gim;
/** Number words that state a quantity when a unit or its figure follows ("thirty (30) days", "two years"). */
const NUMBER_WORD =
  '(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|half|a)(?:[- ](?:one|two|three|four|five|six|seven|eight|nine|hundred|thousand|million|billion))*';
const UNIT =
  '(?:business |calendar |consecutive |full |additional |contract |fiscal )?(?:days?|weeks?|months?|years?|hours?|minutes?|quarters?|percent|per cent|dollars?|cents?|euros?|pounds?|shares?|units?|copies|times|installments?|payments?|employees?|persons?|people|acres?|miles?|impressions?)';
/** A figure: an amount of money, a percentage, a quantity with its unit, or a number left once references and dates are set aside. */
const FIGURE = new RegExp(
  `[$€£¥]\\s?\\d|\\d\\s?%|\\b(?:usd|us\\$|eur|gbp)\\s?\\d|\\b${NUMBER_WORD}\\s+(?:\\(\\s*[\\d,.]+\\s*\\)\\s*)?${UNIT}\\b|\\d`,
  'i',
);
/** How often: a frequency is the answer. */
const ASKS_FREQUENCY = /\bhow often\b/i;
const FREQUENCY =
  /\b(annual(ly)?|yearly|monthly|weekly|daily|quarterly|semi-?annual(ly)?|each (day|week|month|quarter|year)|every (day|week|month|quarter|year))\b/i;

export function asksForAmount(question: string): boolean {
  return ASKS_AMOUNT.test(question);
}

/**
 * The passage states the kind of figure the question asks for: an amount, a percentage, a
 * quantity or a duration — not merely a section number or a date ("Section 4.2", "January 1,
 * 2018"), and a frequency only when the question asks how often.
 */
export function holdsAmount(text: string, question = ''): boolean {
  if (ASKS_FREQUENCY.test(question) && FREQUENCY.test(text)) return true;
  return FIGURE.test(text.replace(NOT_FIGURES, ' '));
}

/** Verbs of paying and owing: the question's kind of figure, not its subject. */
const PAY_WORDS = new Set(
  contentWords(
    'pay pays paid paying owe owes owed receive receives received get gets give gives cost costs charge charges amount figure sum total much many long often',
  ),
);

/** Same word, or the same first five letters of two long words ("competing", "compete"). */
const sameWord = (a: string, b: string) =>
  a === b || (a.length >= 5 && b.length >= 5 && a.slice(0, 5) === b.slice(0, 5));

/**
 * The quoted words state the figure `question` asks for: they hold a figure (`holdsAmount`) and
 * share a word with what the figure is of — the question's words less its names and its verbs of
 * paying ("key-man life insurance" in "How much key-man life insurance does Lifeway carry?"), so a
 * royalty's "$0.02" does not answer for an insurance amount. A question with no such word ("How
 * much does Lifeway pay?") takes any figure.
 */
export function holdsAskedFigure(text: string, question: string): boolean {
  if (!holdsAmount(text, question)) return false;
  const names = new Set(factTerms(question).flatMap((n) => contentWords(n)));
  const subject = contentWords(question).filter((w) => !names.has(w) && !PAY_WORDS.has(w));
  if (!subject.length) return true;
  const words = contentWords(text);
  return subject.some((w) => words.some((x) => sameWord(w, x)));
}

/** Words never looked up as facts: function and question words, and what every case has. */
const PLAIN = new Set(
  (
    'a an the of and or to in on at by for from with without into under over about as is are was were be been being do does did done has have had ' +
    'can could may might must shall should will would it its this that these those there their them they he she his her him we our you your ' +
    'what which who whom whose when where why how whether if any all each every some such other than then so not no nor only also ' +
    'much many long often ever still yet just even please tell show find give say says said case document documents court agreement contract ' +
    'between through besides without against another whether because although however therefore whatever whenever wherever whichever ' +
    'anything something everything nothing anyone someone everyone themselves yourself ourselves ' +
    'allow allowed allows permit permitted'
  ).split(' '),
);

/**
 * The question's names: capitalised words inside it ("Costco", "Singapore", "YPF"). A name no
 * document uses is a thing the documents do not speak of. Everyday words are not looked up: their
 * absence means little ("needed" where the contract says "required").
 */
/** As written in the question, each once. */
export function factTerms(question: string): string[] {
  const out: string[] = [];
  const words = [...question.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’.-]*[\p{L}\p{N}]/gu)];
  words.forEach((m, i) => {
    const word = m[0].replace(/['’]s$/i, '');
    const lower = word.toLowerCase();
    if (i === 0 || PLAIN.has(lower) || /['’.-]/.test(word) || !/^\p{Lu}/u.test(word)) return;
    if (!out.some((w) => w.toLowerCase() === lower)) out.push(word);
  });
  return out;
}

/**
 * The question's rarer everyday words: lower case, seven letters or more ("ransomware",
 * "maternity"). One no document uses says something only in a large case, where common words all
 * turn up somewhere, and only when no passage answers: a client's "poaching" is the contract's
 * "solicit".
 */
export function rareWords(question: string): string[] {
  const out: string[] = [];
  for (const m of question.matchAll(/(?<![\p{L}\p{N}'’-])\p{Ll}+(?![\p{L}\p{N}'’-])/gu)) {
    const w = m[0];
    if (w.length >= RELEVANCE.rareWordLength && !PLAIN.has(w) && !out.includes(w)) out.push(w);
  }
  return out;
}
