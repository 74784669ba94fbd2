/**
 * Answers without model text: the best passages for the question (routed hybrid search, at most two
 * per document), each as its most relevant sentences quoted with a citation of exactly those words,
 * so always true, always cited, fast. Used for "Find passages", when no chat model is installed, when
 * the model's answer is unusable or unsupported, and for a case with nothing searchable.
 */
import { placeOf } from '../text/index';
import type { IngestFileStatus } from '../../shared/contract/ingest';
import type { SearchFocus, SearchResult } from '../../shared/contract/search';
import { pagesText, RELEVANCE_WORDS } from '../../shared/citation-text';
import { plural } from '../../shared/format';
import type { CitationLedger } from '../domain/index';
import { lexicalOverlap, passageWindow, type Similarity, type SourceDoc, type SourceText } from '../citations/verify';
import { passageSentences } from '../text/index';
import type { CaseTools } from '../tools/case-tools';
import { isReadable, pagesOf, type DocumentInfo } from '../tools/document-source';
import { readableFileName } from '../util/names';
import type { PassageItem } from './types';
import { clauseTerms, expandQuery, headingSpeaksOf } from '../retrieval/lexicon';
import { capitalisedNames, withoutWords } from '../retrieval/routing';
import {
  asksForAmount,
  gradePassage,
  holdsAskedFigure,
  rareWords,
  type PassageRelevance,
} from '../retrieval/relevance';
import { queryCoverage } from '../retrieval/labels';
import { contentWords } from '../util/words';

/** Why the extractive answer is given: its first line. */
export type ExtractiveWhy = 'asked' | 'no_model' | 'small_model' | 'fallback';

const HEADINGS: Record<ExtractiveWhy, string> = {
  asked: 'These passages match your question best (found without a model):',
  no_model: 'No chat model is installed, so here are the passages that match your question best:',
  small_model:
    'The installed chat model is too small to write answers worth waiting for, so here are the passages that match your question best:',
  fallback: 'The model could not answer this from the documents. These passages match your question best:',
};

/** What comes before "The documents don't appear to say…" when nothing answers. */
const NOT_FOUND_LEAD: Record<ExtractiveWhy, string> = {
  asked: '',
  no_model: 'No chat model is installed. ',
  small_model: 'The installed chat model is too small to write answers worth waiting for. ',
  fallback: 'The model could not answer this from the documents. ',
};

export const NOTHING_FOUND = "The documents don't say: no passage of this case matches the question.";

/** Passages in the answer, candidates graded for it, closest passages shown when nothing answers, and characters quoted from each at most. */
const PASSAGES = 5;
const CANDIDATES = 8;
const CLOSEST = 3;
const PER_DOCUMENT = 2;
const QUOTE_CHARS = 320;

export interface ExtractiveAnswer {
  answer: string;
  /** The passages quoted (for the session's chunk references). */
  seen: PassageItem[];
  /** Each quoted passage's grade, by cite id. */
  relevance: Map<string, PassageRelevance>;
  /** False when the documents don't appear to answer (the answer says so first). */
  found: boolean;
  /** The same passages with the first line given for another reason (the draft that becomes the fallback). */
  because(why: ExtractiveWhy): string;
  /** The passages its searches returned (or the earlier ones it was given), best first: what a chat remembers. */
  results: SearchResult[];
  /** The documents it focused on: those the question names, or those it was kept `within`. */
  focus: SearchFocus['files'];
  /** Searches of the documents it ran (none when it answered from `earlier`). */
  searches: number;
}

export interface ExtractiveOptions {
  tools: CaseTools;
  ledger: CitationLedger;
  sourceText: SourceText;
  similarity?: Similarity;
  question: string;
  why: ExtractiveWhy;
  signal?: AbortSignal;
  /** What to search, when not the question (a follow-up with the question it leans on); passages are still chosen for the question. */
  searchQuery?: string;
  /** Search only these documents (a follow-up that names none keeps the earlier question's). */
  within?: SearchFocus['files'];
  /** Answer from these passages, found earlier in the chat, without searching (all from the one document of `within`). */
  earlier?: readonly SearchResult[];
}

/** Characters two passages of one document share (a passage's overlap with its neighbour, or more). */
function sharedChars(a: SearchResult, b: SearchResult): number {
  if (a.file_id !== b.file_id || a.version !== b.version) return 0;
  return Math.max(0, Math.min(a.citation.end, b.citation.end) - Math.max(a.citation.start, b.citation.start));
}

/**
 * Passages that are the same words (one hash) or overlap in one document version count once; at
 * most PER_DOCUMENT from a document, unless the search focused on one document the question named.
 * With `neighbours`, a passage that shares only the splitter's overlap with one already taken is a
 * passage of its own (it may hold the sentence the other stops before): within one contract of a
 * comparison, where the next passage of the clause is worth more than another part of the contract.
 */
function distinct(results: SearchResult[], focusedOnOne: boolean, max: number, neighbours = false): SearchResult[] {
  const out: SearchResult[] = [];
  const perDoc = new Map<string, number>();
  const cap = focusedOnOne ? max : PER_DOCUMENT;
  const length = (r: SearchResult) => r.citation.end - r.citation.start;
  const same = (o: SearchResult, r: SearchResult) =>
    neighbours ? sharedChars(o, r) * 2 > Math.min(length(o), length(r)) : sharedChars(o, r) > 0;
  for (const r of results) {
    const dup = out.some((o) => o.hash === r.hash || same(o, r));
    if (dup || (perDoc.get(r.file_id) ?? 0) >= cap) continue;
    perDoc.set(r.file_id, (perDoc.get(r.file_id) ?? 0) + 1);
    out.push(r);
    if (out.length === max) break;
  }
  return out;
}

interface BestSentences {
  range: [number, number];
  /** The sentence's cosine with the question (null without an embedding model). */
  cosine: number | null;
}

/**
 * The passage's sentence(s) that answer the question: closest in meaning, with the share of the
 * clause words the question speaks of (the lexicon's) breaking near-ties — the termination
 * sentence, not the renewal sentence beside it. [start, end) in the document.
 */
async function bestSentences(
  about: string,
  expanded: string,
  doc: SourceDoc,
  start: number,
  end: number,
  similarity?: Similarity,
): Promise<BestSentences> {
  const ranges = passageSentences(doc.text, start, end);
  if (!ranges.length) return { range: [start, end], cosine: null };
  const texts = ranges.map(([a, b]) => doc.text.slice(a, b));
  const cosines = (await similarity?.(about, texts).catch(() => null)) ?? null;
  const lexical = texts.map((t) => lexicalOverlap(expanded, t));
  const score = (i: number) => (cosines ? cosines[i]! + SENTENCE_WORDS_WEIGHT * lexical[i]! : lexical[i]!);
  let best = 0;
  for (let i = 1; i < texts.length; i++) if (score(i) > score(best)) best = i;
  let [s, e] = ranges[best]!;
  // A short sentence ("Termination.") says more with the one after it.
  if (e - s < 80 && ranges[best + 1]) e = ranges[best + 1]![1];
  // A sentence the chunk cut at either end is completed from the document.
  return { range: passageWindow(doc.text, s, e), cosine: cosines ? cosines[best]! : null };
}

/** Weight of the clause words' share next to the cosine when choosing a passage's sentence. */
const SENTENCE_WORDS_WEIGHT = 0.5;

/** The quoted words: whole when short, else cut at a word with an ellipsis (the verifier trims it). */
function quoteOf(text: string): string {
  // Curly double quotes inside would end the quotation early; straight ones read the same (verification folds them).
  const t = text.replace(/\s+/g, ' ').replace(/[“”]/g, '"').trim();
  if (t.length <= QUOTE_CHARS) return t;
  const cut = t.slice(0, QUOTE_CHARS).replace(/\s+\S*$/, '');
  return `${cut}…`;
}

interface Graded {
  result: SearchResult;
  doc: SourceDoc;
  range: [number, number];
  relevance: PassageRelevance;
  /** Search's order and the best sentence's closeness together: the order passages are shown in. */
  order: number;
  lacksAskedFact: boolean;
}

/** Each candidate's best sentence(s) and grade. */
async function grade(o: ExtractiveOptions, picked: SearchResult[], about: string): Promise<Graded[]> {
  const aboutWords = new Set(contentWords(about));
  const amount = asksForAmount(o.question);
  const expanded = expandQuery(about);
  const out: Graded[] = [];
  for (const [rank, r] of picked.entries()) {
    const raw = await o.sourceText(r.file_id, r.version);
    const doc: SourceDoc | null = typeof raw === 'string' ? { text: raw } : raw;
    if (!doc) continue;
    const best = await bestSentences(about, expanded, doc, r.citation.start, r.citation.end, o.similarity);
    // Two neighbours whose best sentence is the same one (in the stretch they share): quoted once.
    const [s0, e0] = best.range;
    if (out.some((g) => sharedChars(g.result, r) > 0 && g.range[0] < e0 && s0 < g.range[1])) continue;
    const lacksAskedFact = amount && !holdsAskedFigure(doc.text.slice(best.range[0], best.range[1]), o.question);
    const relevance = gradePassage({
      sentenceCosine: best.cosine,
      coverage: queryCoverage(aboutWords, r.text),
      rank,
      label: r.label,
      lacksAskedFact,
    });
    out.push({
      result: r,
      doc,
      range: best.range,
      relevance,
      lacksAskedFact,
      order: ORDER_RANK / (ORDER_RANK + rank + 1) + ORDER_COSINE * (best.cosine ?? 0),
    });
  }
  return out;
}

/** Search's rank prior (k of k/(k + rank)) and the best sentence's cosine weight in the order shown. */
const ORDER_RANK = 5;
const ORDER_COSINE = 2;
const TIER: Record<PassageRelevance, number> = { answer: 0, related: 1, closest: 2 };

/** "“bitcoin” or “cryptocurrency”". */
function orList(words: string[]): string {
  const q = words.map((w) => `“${w}”`);
  return q.length <= 1 ? (q[0] ?? '') : `${q.slice(0, -1).join(', ')} or ${q.at(-1)}`;
}

/**
 * Each graded passage quoted at its best sentence(s) and cited: "p. 3: “…” [cite:id]" (after
 * `mark`), with the document's title apart, the passage for the session, and its grade.
 */
function quoted(
  o: ExtractiveOptions,
  shown: Graded[],
  line: (g: Graded, title: string, quote: string) => string,
  found: boolean,
): { lines: string[]; seen: PassageItem[]; relevance: Map<string, PassageRelevance> } {
  const lines: string[] = [];
  const seen: PassageItem[] = [];
  const relevance = new Map<string, PassageRelevance>();
  for (const g of shown) {
    const r = g.result;
    const [s, e] = g.range;
    const pages = g.doc.pageStarts?.length ? pagesOf(g.doc.pageStarts, s, e) : r.citation.pages;
    const cite = o.ledger.issue({
      file_id: r.file_id,
      file_name: r.file_name,
      version: r.version,
      pages,
      start: s,
      end: e,
    });
    const title = g.doc.title || r.document_title || readableFileName(r.file_name);
    const place = placeOf(g.doc, pages, s, e) ?? pagesText(pages);
    lines.push(line(g, title, `${place}: “${quoteOf(g.doc.text.slice(s, e))}” [cite:${cite.id}]`));
    seen.push({
      cite: cite.id,
      file_name: r.file_name,
      pages,
      text: g.doc.text.slice(s, e),
      chunk_id: r.chunk_id,
      hash: r.hash,
    });
    relevance.set(cite.id, found ? g.relevance : 'closest');
  }
  return { lines, seen, relevance };
}

/**
 * What a comparison asks about, once the documents' names are out of it: "Compare the governing law
 * of the and agreements." → "the governing law". The words of comparing, and the husk of the names
 * ("of the and agreements"), would only blur the search within each document.
 */
export function comparedTopic(query: string): string {
  const topic = query
    .replace(
      /\b(?:compare|compared|comparison|differ|differs|difference|differences|versus|vs\.?|both|each|either|respectively)\b/gi,
      ' ',
    )
    .replace(
      /\b(?:of|in|under|between|for|to)?\s*(?:the\s+)?(?:and|or)\s+(?:the\s+)?(?:agreements?|contracts?|documents?|deals?)\b/gi,
      ' ',
    )
    .replace(/\b(?:the\s+)?(?:agreements?|contracts?)\s+(?:and|or)\s+(?:the\s+)?(?:agreements?|contracts?)\b/gi, ' ')
    // What joined the names, left dangling once they are out: "Exclusivity in and in,", "under and under?".
    .replace(/\b(in|under|of|for|with)\s+(?:and|or)\s+\1\b/gi, ' ')
    .replace(
      /\b(?:(?:in|under|of|for|to|with|from)\s+)?(?:and|or|against|beside|versus)(?:\s+(?:in|under|of|for|to|with|from))?(?=\s*(?:[,.?!;:]|$))/gi,
      ' ',
    )
    .replace(/\s+([?.,;:!])/g, '$1')
    .replace(/[,;:]+([.?!])/g, '$1')
    .replace(/\s+/g, ' ')
    .replace(/^[\s,.;:]+|[\s,;:]+$/g, '')
    .trim();
  return topic.replace(/[?.!]/g, '').trim().length >= 3 ? topic : query;
}

/**
 * The words of `words` that `text` never uses in any form: no word of the text starts with the
 * word's stem, at most six letters of it ("selling" is used where the text says "sell" or "seller").
 */
function unusedWords(words: string[], text: string): string[] {
  return words.filter((w) => {
    const stem = (contentWords(w)[0] ?? w).slice(0, 6);
    return !new RegExp(`(?<![\\p{L}])${stem}`, 'iu').test(text);
  });
}

/**
 * `about` without the question's capitalised words that are in document `f`'s title or file name
 * ("Water" of "Water Now" when routing kept it): searched within that document they only find its
 * name — the signature block, the page footer.
 */
function withoutOwnName(about: string, f: SearchFocus['files'][number]): string {
  const own = new Set(contentWords(`${f.title} ${readableFileName(f.file_name)}`));
  const names = new Set(
    capitalisedNames(about).flatMap((n) => n.words.filter((w) => own.has(contentWords(w)[0] ?? ''))),
  );
  const out = withoutWords(about, names);
  return /\p{L}{3}/u.test(out) ? out : about;
}

/** Whether `text` uses any of `words` in some form (the stem test of unusedWords). */
function usesAny(words: string[], text: string): boolean {
  return unusedWords(words, text).length < words.length;
}

/** Search labels of a passage that both keyword and meaning search put near the top. */
const ANSWERING_LABELS = new Set(['strong', 'good']);

/** "Which contracts", "which of these agreements", "which of the documents": a question about each document. */
const WHICH_DOCUMENTS =
  /\bwhich (?:ones? )?(?:of (?:these|the|those|our|my|all (?:the|these|our)) )?(?:contracts|agreements|documents|deals)\b/i;
/** The most documents a case may have for a "which of these" question to be answered per document. */
const EACH_DOCUMENT_MAX = 8;

/** Passages quoted from each document a comparison names, at most (only those graded above closest). */
const PER_NAMED_DOCUMENT = 3;

/**
 * A question that names two or more documents ("compare the termination rights in the Zounds and
 * Conformis agreements"): each searched on its own, the answer laid out per document, and a
 * document where nothing answers says so with its closest passage — never left out.
 */
async function perDocumentAnswer(
  o: ExtractiveOptions,
  focus: SearchFocus,
  of: 'named' | 'case' = 'named',
): Promise<ExtractiveAnswer> {
  const about = comparedTopic(focus.query || o.question);
  const groups: { title: string; graded: Graded[]; missing: string[] }[] = [];
  const rare = rareWords(about);
  for (const f of focus.files) {
    const query = withoutOwnName(about, f);
    const response = await o.tools.retrieve({ query, file_name: f.file_name, top_k: 6 }, o.signal);
    const mine = response.results.filter((r) => r.file_id === f.file_id);
    const graded = await grade(o, distinct(mine, true, CANDIDATES, true), about);
    // The topic's rarer words ("earthquake") the document never uses: it does not deal with that —
    // unless the word is a client's for a clause whose own word the document uses ("poaching"
    // where it says "solicit").
    const first = graded[0];
    const missing = first
      ? unusedWords(rare, first.doc.text).filter((w) => !usesAny(clauseTerms(w), first.doc.text))
      : [];
    // Otherwise a passage put near the top by both its words and its meaning (labelled strong or
    // good) is where the document deals with the topic, even when its best sentence is far in
    // meaning from a topic this short ("assigning them"): related, not silence.
    // So is a passage under a heading that names the clause ("2.6 Competitive Products" for
    // "barred from competing"), as a reader finds a clause by its heading; those come first.
    const byLabel = new Set<Graded>();
    const byHeading = new Set<Graded>();
    for (const g of graded) {
      if (missing.length || g.lacksAskedFact) continue;
      if ((g.result.section_path ?? []).some((h) => headingSpeaksOf(about, h))) byHeading.add(g);
      if (g.relevance === 'closest' && (byHeading.has(g) || ANSWERING_LABELS.has(g.result.label))) {
        g.relevance = 'related';
        byLabel.add(g);
      }
    }
    // Within one document the search's order (the clause's words, the lexicon's, the vector) beats
    // one sentence's closeness: only the grade and the heading move a passage up, and the first
    // passage whose sentence is close in meaning leads.
    const headed = (g: Graded) => (byHeading.has(g) ? 0 : 1);
    graded.sort((a, b) => TIER[a.relevance] - TIER[b.relevance] || headed(a) - headed(b));
    const lead = graded.findIndex((g) => g.relevance !== 'closest' && !byLabel.has(g));
    if (lead > 0) graded.unshift(...graded.splice(lead, 1));
    groups.push({ title: f.title || first?.doc.title || readableFileName(f.file_name), graded, missing });
  }
  const answered = (g: Graded[]) => g.some((x) => x.relevance !== 'closest' && !x.lacksAskedFact);
  const found = groups.some((g) => answered(g.graded));
  const lines: string[] = [];
  const seen: PassageItem[] = [];
  const relevance = new Map<string, PassageRelevance>();
  for (const group of groups) {
    const has = answered(group.graded);
    const shown = has
      ? group.graded.filter((g) => g.relevance !== 'closest').slice(0, PER_NAMED_DOCUMENT)
      : group.graded.slice(0, 1);
    const out = quoted(
      o,
      shown,
      (g, _title, quote) => `${RELEVANCE_WORDS[has ? g.relevance : 'closest']} — ${quote}`,
      has,
    );
    lines.push('', `${group.title}:`);
    lines.push(...(out.lines.length ? out.lines : ['No passage of this document matches.']).map((l) => `- ${l}`));
    if (!has && out.lines.length) {
      const n = group.missing.length;
      const why = n ? `: it never uses the word${n > 1 ? 's' : ''} ${orList(group.missing)}` : '';
      lines.push(`- This document doesn't appear to say${why}.`);
    }
    seen.push(...out.seen);
    for (const [k, v] of out.relevance) relevance.set(k, v);
  }
  const names = groups.map((g) => g.title);
  const lead = (why: ExtractiveWhy) =>
    `${found ? HEADINGS[why].replace(/:$/, '') : `${NOT_FOUND_LEAD[why]}The documents don't appear to say`}, for each of the ${names.length} documents ${of === 'named' ? 'the question names' : 'of the case'}:`;
  const because = (why: ExtractiveWhy) => [lead(why), ...lines].join('\n');
  const results = groups.flatMap((g) => g.graded.map((x) => x.result));
  const searches = focus.files.length;
  return { answer: because(o.why), seen, relevance, found, because, results, focus: focus.files, searches };
}

/** Passages to choose from, and where they come from. */
interface Candidates {
  results: SearchResult[];
  focus?: SearchFocus;
  searches: number;
}

/**
 * Passages found earlier, in the order of their share of what is searched (with the lexicon's
 * words); those that share none (a page number, a clause the follow-up does not touch) are left
 * out. Ties keep their order.
 */
function reordered(results: readonly SearchResult[], query: string): SearchResult[] {
  const expanded = expandQuery(query);
  return results
    .map((r, i) => ({ r, i, share: lexicalOverlap(expanded, r.text) }))
    .filter((x) => x.share > 0)
    .sort((a, b) => b.share - a.share || a.i - b.i)
    .map((x) => x.r);
}

/**
 * The passages to answer from: those found earlier (no search), a search within the one document
 * the question is kept within, or a search of the case (focused on the documents it names).
 */
async function candidatesFor(o: ExtractiveOptions): Promise<Candidates> {
  const query = o.searchQuery ?? o.question;
  const kept: SearchFocus | undefined = o.within?.length
    ? { files: [...o.within], matched: [], query: o.question, widened: false }
    : undefined;
  if (o.earlier) return { results: reordered(o.earlier, query), ...(kept ? { focus: kept } : {}), searches: 0 };
  const one = o.within?.length === 1 ? o.within[0]! : undefined;
  if (one) {
    const r = await o.tools.retrieve({ query, file_name: one.file_name, top_k: 12 }, o.signal);
    return { results: r.results.filter((x) => x.file_id === one.file_id), focus: kept!, searches: 1 };
  }
  const r = await o.tools.retrieve({ query, top_k: 12 }, o.signal);
  return { results: r.results, ...(r.focus ? { focus: r.focus } : {}), searches: 1 };
}

/** A question about several documents, each searched on its own: those it is kept within, those it names, or each document of a small case. */
async function perDocument(o: ExtractiveOptions, found?: Candidates): Promise<ExtractiveAnswer | null> {
  if (!found && (o.within?.length ?? 0) >= 2 && !o.earlier) {
    const focus = { files: [...o.within!], matched: [], query: o.searchQuery ?? o.question, widened: false };
    return perDocumentAnswer(o, focus);
  }
  if (!found) return null;
  const after = (a: ExtractiveAnswer) => ({ ...a, searches: a.searches + found.searches });
  if ((found.focus?.files.length ?? 0) >= 2) return after(await perDocumentAnswer(o, found.focus!));
  if (!found.focus && WHICH_DOCUMENTS.test(o.question)) {
    // "Which of these contracts has a non-compete?" in a small case: each document searched on its own.
    const docs = (await o.tools.inventory()).filter((d) => isReadable(d.status));
    if (docs.length >= 2 && docs.length <= EACH_DOCUMENT_MAX) {
      const files = docs.map((d) => ({ file_id: d.id, file_name: d.name, title: '' }));
      const query = o.question.replace(WHICH_DOCUMENTS, ' ').replace(/\s+/g, ' ').trim();
      return after(await perDocumentAnswer(o, { files, matched: [], query, widened: false }, 'case'));
    }
  }
  return null;
}

/**
 * The extractive answer for `question` (its citations still go through verification like any
 * answer's): from the passages a search finds, or from `earlier` ones without searching.
 */
export async function extractiveAnswer(o: ExtractiveOptions): Promise<ExtractiveAnswer> {
  const several = await perDocument(o);
  if (several) return several;
  const found = await candidatesFor(o);
  const each = await perDocument(o, found);
  if (each) return each;
  const focusFiles = found.focus?.files ?? [];
  const kept = { results: found.results, focus: focusFiles, searches: found.searches };
  const picked = distinct(found.results, focusFiles.length === 1, CANDIDATES);
  const none = {
    answer: NOTHING_FOUND,
    seen: [],
    relevance: new Map<string, PassageRelevance>(),
    found: false,
    because: () => NOTHING_FOUND,
    ...kept,
  };
  if (!picked.length) return none;
  // Within a document the question names, its name says nothing about which sentence answers: pick by the rest of the question.
  const about = found.focus?.query || o.question;
  const graded = await grade(o, picked, about);
  if (!graded.length) return none;
  graded.sort((a, b) => TIER[a.relevance] - TIER[b.relevance] || b.order - a.order);
  const { names, words } = await o.tools.unmentioned(o.question);
  // A name no document uses: the documents don't speak of it. A rare word: only if nothing is the likely answer.
  const unmentioned = [...names, ...(graded[0]!.relevance === 'answer' ? [] : words)];
  const isFound = !unmentioned.length && graded[0]!.relevance !== 'closest' && graded.some((g) => !g.lacksAskedFact);
  let lead: (why: ExtractiveWhy) => string;
  let shown: Graded[];
  if (isFound) {
    shown = graded.filter((g) => g.relevance !== 'closest').slice(0, PASSAGES);
    lead = (why) => HEADINGS[why];
  } else {
    // Nothing answers: said first, with the nearest passages below (grades aside).
    shown = graded.sort((a, b) => b.order - a.order).slice(0, CLOSEST);
    const why = unmentioned.length
      ? `: no document mentions ${orList(unmentioned)}`
      : asksForAmount(o.question) && graded.every((g) => g.lacksAskedFact)
        ? ': no passage close to the question gives the figure asked for'
        : '';
    lead = (w) =>
      `${NOT_FOUND_LEAD[w]}The documents don't appear to say${why}. The closest passages, which do not answer the question:`;
  }
  const { lines, seen, relevance } = quoted(
    o,
    shown,
    (g, title, quote) => `- ${isFound ? `${RELEVANCE_WORDS[g.relevance]} — ` : ''}${title}, ${quote}`,
    isFound,
  );
  const because = (why: ExtractiveWhy) => [lead(why), '', ...lines].join('\n');
  return { answer: because(o.why), seen, relevance, found: isFound, because, ...kept };
}

/** What a status means for a user, counted: "2 need OCR", "1 is password protected". */
function statusPhrase(status: IngestFileStatus, reason: string | undefined, n: number): string {
  const is = n === 1 ? 'is' : 'are';
  switch (status) {
    case 'needs_ocr':
      return `${n} ${n === 1 ? 'needs' : 'need'} OCR (scanned, no text layer)`;
    case 'failed':
      return /password/i.test(reason ?? '') ? `${n} ${is} password protected` : `${n} could not be read`;
    case 'unsupported':
      return `${n} ${is} in a format Casefile cannot read yet`;
    case 'queued':
    case 'parsing':
    case 'embedding':
    case 'indexing':
      return `${n} ${is} still being indexed`;
    case 'cancelled':
      return `${n} ${n === 1 ? 'was' : 'were'} not finished (indexing was cancelled; resume it)`;
    default:
      return `${n} ${is} ${status}`;
  }
}

/**
 * The answer for a case with no searchable documents, or null when something can be searched.
 * Given at once: no model, no search.
 */
export function noDocumentsAnswer(files: DocumentInfo[]): string | null {
  if (files.some((f) => isReadable(f.status))) return null;
  if (!files.length) return 'This case has no documents yet. Add a folder or files to it, then ask again.';
  const groups = new Map<string, { status: IngestFileStatus; reason: string | undefined; n: number }>();
  for (const f of files) {
    const key = f.status === 'failed' && /password/i.test(f.reason ?? '') ? 'password' : f.status;
    const g = groups.get(key) ?? { status: f.status as IngestFileStatus, reason: f.reason, n: 0 };
    g.n++;
    groups.set(key, g);
  }
  const order = [
    'needs_ocr',
    'password',
    'failed',
    'unsupported',
    'queued',
    'parsing',
    'embedding',
    'indexing',
    'cancelled',
  ];
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  const parts = [...groups.entries()]
    .sort(([a], [b]) => rank(a) - rank(b))
    .map(([, g]) => statusPhrase(g.status, g.reason, g.n));
  return `This case has no searchable documents yet: ${parts.join(', ')}. ${plural(files.length, 'file')} in all; the documents list says what to do for each.`;
}
