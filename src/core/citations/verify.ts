/**
 * Checks an answer's citations claim by claim: each `[cite:id]` in a sentence is `invented` (no tool
 * issued the id), `quoted` (its quoted words are in the passage), `supported` (its key facts, see
 * facts.ts, are in the passage and its meaning is close) or `not_supported`, with the reason. Only
 * quoted and supported are green; the supporting words come back as the `span` a chip opens on.
 * Pure logic, so every shell gets the same verdicts.
 */
import type { CheckedCitation, SupportLevel, SupportSpan } from '../../shared/contract/chat';
import type { CitationRecord } from '../../shared/contract/search';
import { pagesOf, passageSentences, placeOf as pinCiteOf, sentenceRanges } from '../text/index';
import type { TranscriptLayout } from '../domain/index';
import { contentWords } from '../util/words';
import { dot } from '../util/vectors';
import { factsOf, indexFacts, missingFacts, type Fact, type FactIndex } from './facts';

export interface CitationLookup {
  get(id: string): CitationRecord | undefined;
}

/** One file version as the verifier reads it. */
export interface SourceDoc {
  text: string;
  /** Offset where each page starts (page 1 first); absent for a single-page text. */
  pageStarts?: number[];
  /** The document's title (from its outline). */
  title?: string;
  /** The document's own names: title, parties, file name (a passage need not repeat them). */
  names?: string;
  /** Pages read by OCR → their mean word confidence (0–100). */
  ocrPages?: Map<number, number>;
  /** Pages that are named units ("Sheet Billing") → their names; Bates-stamped pages → their numbers; a transcript's lines. */
  pageLabels?: ReadonlyMap<number, string>;
  pageBates?: ReadonlyMap<number, string>;
  transcript?: TranscriptLayout;
  exhibit?: string;
}

/** The document of one file version (or just its text); null when it cannot be read. */
export type SourceText = (fileId: string, version: number) => Promise<SourceDoc | string | null>;

/** Cosine similarity of `sentence` to each candidate (null when no model can say). */
export type Similarity = (sentence: string, candidates: string[]) => Promise<number[] | null>;

/** Where "close in meaning" starts; calibrated on bench/data/support-pairs.jsonl (`npm run eval:support`). */
export interface SupportThresholds {
  /** Cosine of the sentence and its best passage sentence(s), with the embedding model. */
  cosine: number;
  /** Share of the sentence's content words found in its best passage sentence(s), without a model. */
  lexical: number;
  /** With the model, the word share the best sentence(s) must also reach (a small model finds unrelated clauses of one contract alike). */
  lexicalFloor: number;
  /** With the model, a sentence whose words are nearly all in the passage is close whatever the cosine (a cut sentence embeds poorly). */
  lexicalAlone: number;
  /** A quote makes the sentence `quoted` on its own when it holds this share of the sentence's words; otherwise the rest must be supported too. */
  quoteShare: number;
}

export const SUPPORT_THRESHOLDS: SupportThresholds = {
  cosine: 0.6,
  lexical: 0.5,
  lexicalFloor: 0.35,
  lexicalAlone: 0.8,
  quoteShare: 0.5,
};

/** The scores of a sentence against its best passage sentence(s) (for calibration). */
export interface SupportScores {
  cosine: number | null;
  lexical: number;
  factsOk: boolean;
}

export interface VerifyOptions {
  similarity?: Similarity;
  /** Another document of the case that `name` names (its title), for the reason a user reads. */
  documentNamed?: (name: string, notFileId: string) => string | null | Promise<string | null>;
  thresholds?: SupportThresholds;
  /** Called with each judged sentence's scores (calibration). */
  onScores?: (scores: SupportScores) => void;
}

export interface VerificationResult {
  citations: CheckedCitation[];
  /** At least one citation quoted or supported, and none not supported on a sentence with facts. */
  grounded: boolean;
  /** Sentences of the answer with at least one quoted or supported citation. */
  supportedSentences: number;
}

const CITE_RE = /\[cite:\s*([A-Za-z0-9_-]+(?:\s*[,;]\s*(?:cite:)?\s*[A-Za-z0-9_-]+)*)\s*\]/g;

export interface CiteMention {
  id: string;
  /** Offset of the `[cite:` marker in the answer. */
  at: number;
}

/** Every cite id mentioned in `text`, in order (`[cite:a]`, `[cite:a, b]`). */
export function findCites(text: string): CiteMention[] {
  const out: CiteMention[] = [];
  for (const m of text.matchAll(CITE_RE)) {
    for (const raw of m[1]!.split(/[,;]/)) {
      const id = raw.replace(/^\s*cite:/, '').trim();
      if (id) out.push({ id, at: m.index });
    }
  }
  return out;
}

const QUOTE_RE = /"([^"]{3,}?)"|“([^”]{3,}?)”|«([^»]{3,}?)»/g;

/** Text quoted in a sentence (straight, curly or guillemet quotes; at least 3 characters). */
export function quotesIn(sentence: string): string[] {
  const out: string[] = [];
  const withoutCites = sentence.replace(/\[cite:[^\]]*\]/g, ' ');
  for (const m of withoutCites.matchAll(QUOTE_RE)) {
    const q = (m[1] ?? m[2] ?? m[3] ?? '').trim();
    // Strip the ellipses people put at the ends of a shortened quote.
    const cleaned = q
      .replace(/^(?:\.\.\.|…)\s*/, '')
      .replace(/\s*(?:\.\.\.|…)$/, '')
      .trim();
    if (cleaned.length >= 3) out.push(cleaned);
  }
  return out;
}

interface Normalised {
  text: string;
  /** Index in the original text of each normalised character. */
  map: number[];
}

const FOLD: Record<string, string> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201a': "'",
  '\u201b': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u201e': '"',
  '\u00ab': '"',
  '\u00bb': '"',
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2013': '-',
  '\u2014': '-',
  '\u00a0': ' ',
  '\u00ad': '',
};

/** Lower case, one space for any run of whitespace, typographic quotes and dashes folded. */
export function normalise(text: string): Normalised {
  const chars: string[] = [];
  const map: number[] = [];
  let space = true; // drop leading whitespace
  for (let i = 0; i < text.length; i++) {
    let c = text[i]!;
    if (c in FOLD) c = FOLD[c]!;
    if (c === '') continue;
    if (/\s/.test(c)) {
      if (!space) {
        chars.push(' ');
        map.push(i);
        space = true;
      }
      continue;
    }
    space = false;
    const lower = c.toLowerCase();
    for (const l of lower) {
      chars.push(l);
      map.push(i);
    }
  }
  if (chars[chars.length - 1] === ' ') {
    chars.pop();
    map.pop();
  }
  return { text: chars.join(''), map };
}

/**
 * Whether `quote` occurs in `source` overlapping [start, end). A citation may point at a short
 * match (a grep hit) while the sentence quotes the words around it: the quote counts when it
 * contains or intersects the cited words.
 */
export function quoteInSpan(quote: string, source: string, start: number, end: number): boolean {
  const q = normalise(quote).text;
  if (!q) return true;
  const from = Math.max(0, start - quote.length - 16);
  const to = Math.min(source.length, end + quote.length + 16);
  const windowText = source.slice(from, to);
  const n = normalise(windowText);
  let idx = n.text.indexOf(q);
  while (idx !== -1) {
    const s = from + n.map[idx]!;
    const e = from + n.map[idx + q.length - 1]! + 1;
    if (s < end && e > start) return true;
    idx = n.text.indexOf(q, idx + 1);
  }
  return false;
}

function trimQuote(q: string): string {
  return q.length > 60 ? `${q.slice(0, 57)}…` : q;
}

/** Share of the sentence's content words found in the candidate. */
export function lexicalOverlap(sentence: string, candidate: string): number {
  const words = new Set(contentWords(sentence));
  if (!words.size) return 0;
  const have = new Set(contentWords(candidate));
  let n = 0;
  for (const w of words) if (have.has(w)) n++;
  return n / words.size;
}

/** The sentence without its cite markers and surrounding list furniture. */
export function claimText(sentence: string): string {
  return sentence
    .replace(/\[cite:[^\]]*\]/g, ' ')
    .replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '')
    .replace(/\s+/g, ' ')
    .replace(/ ([.,;:!?])/g, '$1')
    .trim();
}

const DOC_NOUN =
  '(?:agreement|contract|lease|licen[cs]e|nda|amendment|policy|plan|letter|order|deed|note|opinion|judgment|decision|complaint|filing|document)s?';
const FRAME = [
  new RegExp(
    `^(?:under|in|according to|per|pursuant to|as stated in|as set out in)\\s+(?:the|this|that|its|their)\\b[^,]{0,80}?\\b${DOC_NOUN}\\b[^,]{0,40},\\s*`,
    'i',
  ),
  new RegExp(
    `^(?:the|this|that|its|their)\\b[^,.]{0,80}?\\b${DOC_NOUN}\\s+(?:provides|states|says|requires|specifies|sets out|establishes|stipulates|grants|allows|permits)\\s+(?:that\\s+)?`,
    'i',
  ),
];

const NEGATION = /\b(?:not|never|neither|nor|cannot|can't|won't|isn't|aren't|doesn't|don't|shan't|mustn't)\b/i;
const negated = (text: string) => NEGATION.test(text);

/** The claim without the frame that names where it comes from ("Under the PivX agreement, …"); names are checked as facts. */
export function claimCore(claim: string): string {
  let t = claim;
  for (const re of FRAME) t = t.replace(re, '');
  return t.length >= 12 ? t : claim;
}

/** The cited passage widened to whole sentences (a grep hit may be one line of a longer sentence). */
export function passageWindow(text: string, start: number, end: number): [number, number] {
  const reach = 400;
  let s = Math.max(0, start);
  // Back to the sentence's start, unless the range starts one (after a full stop, a line break, or the text's start).
  if (!/(?:^|[.;:!?]["”’)\]]*\s+|\n[ \t]*\n\s*)$/.test(text.slice(Math.max(0, s - 6), s))) {
    const lo = Math.max(0, s - reach);
    const before = text.slice(lo, s);
    const stop = Math.max(
      before.lastIndexOf('. '),
      before.lastIndexOf('.\n'),
      before.lastIndexOf('\n\n'),
      before.lastIndexOf('; '),
    );
    s = stop >= 0 ? lo + stop + 2 : lo === 0 ? 0 : s;
  }
  let e = Math.min(text.length, end);
  // On to the sentence's end, unless the range ends one.
  if (!/[.;!?]["”’)\]]*\s*$/.test(text.slice(Math.max(0, e - 3), e))) {
    const after = text.slice(e, Math.min(text.length, e + reach));
    const next = after.search(/[.;](?:\s|$)|\n\n/);
    e = next >= 0 ? e + next + 1 : e;
  }
  return [s, Math.max(s, e)];
}

/** Sentence ranges of a passage window (document offsets), joined in pairs as well. */
function candidateRanges(text: string, s: number, e: number): Array<[number, number]> {
  const local = passageSentences(text, s, e);
  const out: Array<[number, number]> = [...local];
  for (let i = 0; i + 1 < local.length; i++) out.push([local[i]![0], local[i + 1]![1]]);
  if (!out.length && e > s) out.push([s, e]);
  return out;
}

/** Pages of [start, end) in the document (the citation's own pages for a text without page starts). */
function docPages(doc: SourceDoc, start: number, end: number, fallback: number[]): number[] {
  return doc.pageStarts?.length ? pagesOf(doc.pageStarts, start, end) : fallback;
}

/** Where `quote` is, overlapping [start, end) of the source (document offsets), or null. */
function quoteLocation(quote: string, source: string, start: number, end: number): [number, number] | null {
  const q = normalise(quote).text;
  if (!q) return null;
  const from = Math.max(0, start - quote.length - 16);
  const to = Math.min(source.length, end + quote.length + 16);
  const n = normalise(source.slice(from, to));
  let idx = n.text.indexOf(q);
  while (idx !== -1) {
    const s = from + n.map[idx]!;
    const e = from + n.map[idx + q.length - 1]! + 1;
    if (s < end && e > start) return [s, e];
    idx = n.text.indexOf(q, idx + 1);
  }
  return null;
}

function docOf(raw: SourceDoc | string | null): SourceDoc | null {
  if (raw === null) return null;
  return typeof raw === 'string' ? { text: raw } : raw;
}

const capitalise = (w: string) => (w ? w[0]!.toUpperCase() + w.slice(1) : w);

/** Plain words for what the passage lacks. */
async function missingReason(
  missing: Fact[],
  record: CitationRecord,
  doc: SourceDoc,
  options: VerifyOptions,
): Promise<string> {
  const from = doc.title || record.file_name;
  const name = missing.find((f) => f.kind === 'name');
  if (name) {
    const other = await options.documentNamed?.(name.value, record.file_id);
    return other
      ? `the passage is from ${from}, not ${other}`
      : `the passage (from ${from}) does not mention ${capitalise(name.text)}`;
  }
  const list = missing.map((f) => f.text);
  return `the passage does not mention ${list.length > 1 ? `${list.slice(0, -1).join(', ')} or ${list[list.length - 1]}` : list[0]}`;
}

interface Judged {
  support: SupportLevel;
  reason: string;
  span?: [number, number];
}

/** Check every citation of `answer`. */
export async function verifyCitations(
  answer: string,
  lookup: CitationLookup,
  sourceText: SourceText,
  options: VerifyOptions = {},
): Promise<VerificationResult> {
  const docs = new Map<string, Promise<SourceDoc | null>>();
  const ctx: SentenceContext = {
    lookup,
    options,
    thresholds: options.thresholds ?? SUPPORT_THRESHOLDS,
    docFor: (r) => {
      const key = `${r.file_id}\u0000${r.version}`;
      let t = docs.get(key);
      if (!t) {
        t = sourceText(r.file_id, r.version).then(docOf, () => null);
        docs.set(key, t);
      }
      return t;
    },
  };
  const checked: CheckedCitation[] = [];
  let supportedSentences = 0;
  let factualNotSupported = false;
  for (const [sentence, ids] of citesBySentence(answer)) {
    const judged = await checkSentence(sentence, ids, ctx);
    checked.push(...judged.citations);
    if (judged.citations.some((c) => c.verified)) supportedSentences++;
    if (judged.hasFacts && judged.citations.some((c) => c.support === 'not_supported')) factualNotSupported = true;
  }
  // One entry per id (the first verdict that failed wins, so a bad use of an id is not hidden by a good one).
  const byId = new Map<string, CheckedCitation>();
  for (const c of checked) {
    const prev = byId.get(c.id);
    if (!prev || (prev.verified && !c.verified)) byId.set(c.id, c);
  }
  const citations = [...byId.values()];
  return { citations, grounded: supportedSentences > 0 && !factualNotSupported, supportedSentences };
}

/** The cite ids of each sentence of the answer (each id once per sentence), in order. */
function citesBySentence(answer: string): Map<string, string[]> {
  const sentences = sentenceRanges(answer);
  const out = new Map<string, string[]>();
  for (const m of findCites(answer)) {
    const [s, e] = sentences.find(([a, b]) => m.at >= a && m.at < b) ?? [0, answer.length];
    const sentence = answer.slice(s, e);
    const ids = out.get(sentence) ?? [];
    if (!ids.includes(m.id)) ids.push(m.id);
    out.set(sentence, ids);
  }
  return out;
}

interface SentenceContext {
  lookup: CitationLookup;
  options: VerifyOptions;
  thresholds: SupportThresholds;
  docFor: (r: CitationRecord) => Promise<SourceDoc | null>;
}

/** A cited passage, read and widened to whole sentences. */
interface CitedWindow {
  record: CitationRecord;
  doc: SourceDoc;
  window: [number, number];
  /** What the window states (read once per sentence). */
  facts: FactIndex;
  /** The document's own names: title, parties, file name. */
  names: string;
}

/** Every cite of one sentence judged; a quote (or a fact) can be satisfied by any cite of the sentence. */
async function checkSentence(
  sentence: string,
  ids: string[],
  ctx: SentenceContext,
): Promise<{ citations: CheckedCitation[]; hasFacts: boolean }> {
  const claim = claimText(sentence);
  const quotes = quotesIn(sentence);
  const facts = factsOf(claim);
  // The words outside the quotes: what a quote alone does not vouch for (the document's own name aside).
  const unquoted = claim.replace(/"[^"]*"|“[^”]*”|«[^»]*»/g, ' ');
  const quotedShare = (names: string) => {
    const own = new Set(contentWords(names));
    return 1 - contentWords(unquoted).filter((w) => !own.has(w)).length / Math.max(1, contentWords(claim).length);
  };
  const windows = await citedWindows(ids, ctx);
  const { found, satisfied } = locateQuotes(quotes, windows);
  const allPassages = factsOfWindows(windows);

  const citations: CheckedCitation[] = [];
  for (const id of ids) {
    const r = ctx.lookup.get(id);
    if (!r) {
      citations.push(inventedCitation(id, claim));
      continue;
    }
    const base: CheckedCitation = {
      id,
      status: 'not_verified',
      verified: false,
      reason: '',
      file_id: r.file_id,
      file_name: r.file_name,
      version: r.version,
      pages: [...r.pages],
      start: r.start,
      end: r.end,
      sentence: claim,
      ...(quotes.length ? { quotes } : {}),
    };
    const w = windows.get(id);
    if (!w) {
      citations.push({
        ...base,
        support: 'not_supported',
        reason: `the text of ${r.file_name} v${r.version} could not be read to check this sentence`,
      });
      continue;
    }
    const quoted = quotes.length ? judgeQuotes(quotes, found.get(id) ?? [], satisfied, r) : null;
    const judged = await judgeCitation(quoted, { claim, facts, w, r, allPassages, ctx, quotedShare });
    const green = judged.support === 'quoted' || judged.support === 'supported';
    const span = judged.span ? spanOf(w.doc, judged.span, r.pages) : undefined;
    citations.push({
      ...base,
      status: green ? 'verified' : 'not_verified',
      verified: green,
      support: judged.support,
      reason: judged.reason,
      ...(span ? { span } : {}),
      ...(w.doc.title ? { title: w.doc.title } : {}),
      ...ocrConfidenceOf(w.doc, span?.pages ?? r.pages),
      ...placeOf(w.doc, span ? [span.start, span.end] : [r.start, r.end], span?.pages ?? r.pages),
    });
  }
  return { citations, hasFacts: facts.length > 0 };
}

/** The window of each cite whose document can be read, in the order of the cites (documents read one at a time). */
async function citedWindows(ids: string[], ctx: SentenceContext): Promise<Map<string, CitedWindow>> {
  const windows = new Map<string, CitedWindow>();
  for (const id of ids) {
    const r = ctx.lookup.get(id);
    const doc = r ? await ctx.docFor(r) : null;
    if (!r || !doc) continue;
    const window = passageWindow(doc.text, r.start, r.end);
    windows.set(id, {
      record: r,
      doc,
      window,
      facts: indexFacts(doc.text.slice(window[0], window[1])),
      names: `${doc.names ?? ''} ${doc.title ?? ''} ${r.file_name}`,
    });
  }
  return windows;
}

/** Where each window holds the sentence's quotes, and which quotes some window holds. */
function locateQuotes(
  quotes: string[],
  windows: Map<string, CitedWindow>,
): { found: Map<string, Array<[number, number]>>; satisfied: Set<string> } {
  const found = new Map<string, Array<[number, number]>>();
  const satisfied = new Set<string>();
  for (const [id, w] of windows) {
    const locs: Array<[number, number]> = [];
    for (const q of quotes) {
      const loc = quoteLocation(q, w.doc.text, w.record.start, w.record.end);
      if (loc) {
        locs.push(loc);
        satisfied.add(q);
      }
    }
    found.set(id, locs);
  }
  return { found, satisfied };
}

/** What all the cited windows state together (one window's own index when there is only one). */
function factsOfWindows(windows: Map<string, CitedWindow>): FactIndex {
  const all = [...windows.values()];
  return all.length === 1
    ? all[0]!.facts
    : indexFacts(all.map((w) => w.doc.text.slice(w.window[0], w.window[1])).join('\n'));
}

/** A cite no tool returned in this conversation. */
function inventedCitation(id: string, claim: string): CheckedCitation {
  return {
    id,
    status: 'invented',
    verified: false,
    support: 'invented',
    sentence: claim,
    reason: 'invented: no tool returned this citation id in this conversation',
  };
}

/** One cite's verdict from its quotes' verdict (`judged`, null without quotes) and the rest of the sentence. */
async function judgeCitation(
  judged: Judged | null,
  a: {
    claim: string;
    facts: Fact[];
    w: CitedWindow;
    r: CitationRecord;
    allPassages: FactIndex;
    ctx: SentenceContext;
    quotedShare: (names: string) => number;
  },
): Promise<Judged> {
  const { claim, facts, w, r, allPassages, ctx, quotedShare } = a;
  const { names } = w;
  if (!judged || (judged.support === 'quoted' && quotedShare(names) < ctx.thresholds.quoteShare)) {
    // No quote, or a short one ("the “Initial Term”"): the rest of the sentence must be supported.
    const claimed = await judgeClaim(claim, facts, w, allPassages, ctx.options, ctx.thresholds);
    judged =
      judged && claimed.support === 'supported'
        ? { ...judged, span: claimed.span ?? judged.span }
        : judged?.support === 'not_supported'
          ? judged
          : claimed;
  } else if (judged.support === 'quoted') {
    // Numbers outside the quote must be in the passage, or be the document's own ("Exhibit 10.13").
    const missing = missingFacts(
      missingFacts(
        facts.filter((f) => f.kind !== 'name'),
        allPassages,
      ),
      indexFacts(names),
    );
    if (missing.length)
      judged = {
        support: 'not_supported',
        reason: await missingReason(missing, r, w.doc, ctx.options),
        ...(judged.span ? { span: judged.span } : {}),
      };
  }
  return judged;
}

/** "Smith Dep. 42:10–17", "ACME0001234", "Sheet Billing, row 14": the span's pin cite where it has one better than "p. N". */
function placeOf(doc: SourceDoc, [start, end]: [number, number], pages: number[]): { place?: string } {
  const place = pinCiteOf(doc, pages, start, end);
  return place ? { place } : {};
}

/** The lowest OCR confidence of the cited pages that were read by OCR (none: no field). */
function ocrConfidenceOf(doc: SourceDoc, pages: number[]): { ocr_confidence?: number } {
  const read = pages.map((p) => doc.ocrPages?.get(p)).filter((c): c is number => c !== undefined);
  return read.length ? { ocr_confidence: Math.min(...read) } : {};
}

function spanOf(doc: SourceDoc, [start, end]: [number, number], pages: number[]): SupportSpan {
  return { start, end, pages: docPages(doc, start, end, pages), text: doc.text.slice(start, end) };
}

function judgeQuotes(
  quotes: string[],
  mine: Array<[number, number]>,
  satisfied: Set<string>,
  r: CitationRecord,
): Judged {
  const missing = quotes.filter((q) => !satisfied.has(q));
  if (mine.length && !missing.length) {
    const span: [number, number] = [Math.min(...mine.map((l) => l[0])), Math.max(...mine.map((l) => l[1]))];
    return {
      support: 'quoted',
      reason: `the quoted words are in ${r.file_name} ${r.pages.length > 1 ? 'pp' : 'p'}.${r.pages.join('-')}`,
      span,
    };
  }
  const q = (mine.length ? missing : quotes)[0]!;
  return {
    support: 'not_supported',
    reason: `quote not found: "${trimQuote(q)}" is not in the cited passage of ${r.file_name}`,
  };
}

async function judgeClaim(
  claim: string,
  facts: Fact[],
  w: CitedWindow,
  allPassages: FactIndex,
  options: VerifyOptions,
  thresholds: SupportThresholds,
): Promise<Judged> {
  const { record, doc, window } = w;
  const ranges = candidateRanges(doc.text, window[0], window[1]);
  const texts = ranges.map(([a, b]) => doc.text.slice(a, b));
  const core = claimCore(claim);
  const cosines = texts.length ? await options.similarity?.(core, texts).catch(() => null) : null;
  const lexical = texts.map((t) => lexicalOverlap(core, t));
  const scores = cosines ?? lexical;
  let best = 0;
  for (let i = 1; i < scores.length; i++) if (scores[i]! > scores[best]!) best = i;
  const span = ranges[best];
  const cosine = cosines ? (cosines[best] ?? 0) : null;
  const words = lexical[best] ?? 0;
  // Names may be in this passage or be the document's own; numbers must be in the sentence's passages.
  const missing = [
    ...missingFacts(
      facts.filter((f) => f.kind === 'name'),
      w.facts,
      w.names,
    ),
    ...missingFacts(
      facts.filter((f) => f.kind !== 'name'),
      allPassages,
    ),
  ];
  options.onScores?.({ cosine, lexical: words, factsOk: missing.length === 0 });
  if (missing.length)
    return {
      support: 'not_supported',
      reason: await missingReason(missing, record, doc, options),
      ...(span ? { span } : {}),
    };
  const close =
    cosine !== null
      ? (cosine >= thresholds.cosine && words >= thresholds.lexicalFloor) || words >= thresholds.lexicalAlone
      : words >= thresholds.lexical;
  if (span && close && negated(core) && !negated(doc.text.slice(span[0], span[1]))) {
    return {
      support: 'not_supported',
      reason: `the sentence says "not" where the cited passage of ${doc.title || record.file_name} does not`,
      span,
    };
  }
  if (!span || !close) {
    return {
      support: 'not_supported',
      reason: `the cited passage of ${doc.title || record.file_name} does not say this`,
      ...(span ? { span } : {}),
    };
  }
  return {
    support: 'supported',
    reason: `${facts.length ? 'its facts and meaning match' : 'its meaning matches'} ${doc.title || record.file_name} ${record.pages.length > 1 ? 'pp' : 'p'}.${docPages(doc, span[0], span[1], record.pages).join('-')}`,
    span,
  };
}

/** Anything that embeds texts into normalised vectors (the case's embedding model). */
export interface TextEmbedder {
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/**
 * Cosine similarity with an embedding model: vectors are normalised, so a dot product. Vectors are
 * kept for the similarity's lifetime (one answer), so a sentence cited twice is embedded once.
 */
export function embeddingSimilarity(embedder: TextEmbedder, signal?: AbortSignal): Similarity {
  const cache = new Map<string, Float32Array>();
  return async (sentence, candidates) => {
    const todo = [...new Set([sentence, ...candidates])].filter((t) => !cache.has(t));
    if (todo.length) {
      const vectors = await embedder.embed(todo, signal);
      todo.forEach((t, i) => cache.set(t, vectors[i]!));
    }
    const a = cache.get(sentence)!;
    return candidates.map((c) => dot(a, cache.get(c)!));
  };
}
