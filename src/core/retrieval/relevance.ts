/**
 * How far a passage answers a question, said only as certainly as the evidence allows. "The words
 * are on the page" (a quote checks) is not "this answers you": a passage found by search is graded
 * on its own evidence — its best sentence's closeness in meaning to the question, its share of the
 * question's words, whether it holds the kind of fact asked for — and a question whose specific
 * words no document of the case uses is one the documents do not appear to answer.
 *
 * Thresholds live in `RELEVANCE` (tuning.ts), set on the absent-facts tuning set and the clause set
 * (`npm run eval:relevance -- --sets absent-tune`, `npm run eval:retrieval`); measured, never on the
 * frozen sets.
 */
import type { PassageRelevance } from '../../shared/contract/chat';
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
  if (e.rank <= t.answerRank && e.label === 'strong' && e.sentenceCosine >= t.answerCosine && e.coverage >= t.answerCoverage) return 'answer';
  if (e.sentenceCosine >= t.floorCosine || e.coverage >= t.floorCoverage) return 'related';
  return 'closest';
}

/** "How much", "how many", "what amount/price/fee/rate", "how long": the answer is a number, an amount or a duration. */
const ASKS_AMOUNT = /\b(how (much|many|long|often)|what (is|was|were|are)?\s*(the )?(amount|price|fee|fees|rate|sum|total|percentage|number|cost|salary|payment|term)s?\b|what .*\b(per (month|year|unit|hour|share|week|day)|price|fee|rate|amount)\b)/i;
/** A number written in figures or words, or an amount. */
const AMOUNT = /\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|ninety|hundred|thousand|million|billion|half|quarter|annual(ly)?|monthly|weekly|daily|percent)\b/i;

export function asksForAmount(question: string): boolean {
  return ASKS_AMOUNT.test(question);
}

export function holdsAmount(text: string): boolean {
  return AMOUNT.test(text);
}

/** Words never looked up as facts: function and question words, and what every case has. */
const PLAIN = new Set(
  (
    'a an the of and or to in on at by for from with without into under over about as is are was were be been being do does did done has have had ' +
    'can could may might must shall should will would it its this that these those there their them they he she his her him we our you your ' +
    'what which who whom whose when where why how whether if any all each every some such other than then so not no nor only also ' +
    'much many long often ever still yet just even please tell show find give say says said case document documents court agreement contract ' +
    'between through besides without against another whether because although however therefore whatever whenever wherever whichever ' +
    'anything something everything nothing anyone someone everyone themselves yourself ourselves'
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

