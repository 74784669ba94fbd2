/**
 * Answers without model text. The extractive answer: the best passages for the question (the
 * routed hybrid search of the retrieval tools, deduplicated, at most two per document), each
 * shown as its most relevant sentence(s) quoted, with the document, page and a citation of
 * exactly those words — always true, always cited, fast. It ends a turn when the user asks for
 * passages ("Find passages"), when no chat model is installed, and when the model's answer is
 * unusable (degenerate.ts) or has no supported sentence. And the answer for a case with nothing
 * searchable, which needs no search at all.
 */
import { placeOf } from '../ingest/formats/place';
import type { IngestFileStatus } from '../../shared/contract/ingest';
import type { SearchResult } from '../../shared/contract/search';
import { pagesText } from '../../shared/citation-text';
import { plural } from '../../shared/format';
import type { CitationLedger } from '../citations/ledger';
import { lexicalOverlap, passageSentences, passageWindow, type Similarity, type SourceDoc, type SourceText } from '../citations/verify';
import type { CaseTools } from '../tools/case-tools';
import { isReadable, pagesOf, type DocumentInfo } from '../tools/document-source';
import { readableFileName } from '../util/names';
import type { PassageItem } from './types';

/** Why the extractive answer is given: its first line. */
export type ExtractiveWhy = 'asked' | 'no_model' | 'fallback';

const HEADINGS: Record<ExtractiveWhy, string> = {
  asked: 'These passages match your question best (found without a model):',
  no_model: 'No chat model is installed, so here are the passages that match your question best:',
  fallback: 'The model could not answer this from the documents. These passages match your question best:',
};

export const NOTHING_FOUND = "The documents don't say: no passage of this case matches the question.";

/** Passages in the answer, and characters quoted from each at most. */
const PASSAGES = 5;
const PER_DOCUMENT = 2;
const QUOTE_CHARS = 320;

export interface ExtractiveAnswer {
  answer: string;
  /** The passages quoted (for the session's chunk references). */
  seen: PassageItem[];
}

export interface ExtractiveOptions {
  tools: CaseTools;
  ledger: CitationLedger;
  sourceText: SourceText;
  similarity?: Similarity;
  question: string;
  why: ExtractiveWhy;
  signal?: AbortSignal;
}

/**
 * Passages that are the same words (one hash) or overlap in one document version count once; at
 * most PER_DOCUMENT from a document, unless the search focused on one document the question named.
 */
function distinct(results: SearchResult[], focusedOnOne: boolean): SearchResult[] {
  const out: SearchResult[] = [];
  const perDoc = new Map<string, number>();
  const cap = focusedOnOne ? PASSAGES : PER_DOCUMENT;
  for (const r of results) {
    const c = r.citation;
    const dup = out.some((o) => o.hash === r.hash || (o.file_id === r.file_id && o.version === r.version && o.citation.start < c.end && c.start < o.citation.end));
    if (dup || (perDoc.get(r.file_id) ?? 0) >= cap) continue;
    perDoc.set(r.file_id, (perDoc.get(r.file_id) ?? 0) + 1);
    out.push(r);
    if (out.length === PASSAGES) break;
  }
  return out;
}

/** The passage's sentence(s) closest to the question: [start, end) in the document. */
async function bestSentences(question: string, doc: SourceDoc, start: number, end: number, similarity?: Similarity): Promise<[number, number]> {
  const ranges = passageSentences(doc.text, start, end);
  if (!ranges.length) return [start, end];
  const texts = ranges.map(([a, b]) => doc.text.slice(a, b));
  const scores = (await similarity?.(question, texts).catch(() => null)) ?? texts.map((t) => lexicalOverlap(question, t));
  let best = 0;
  for (let i = 1; i < scores.length; i++) if (scores[i]! > scores[best]!) best = i;
  let [s, e] = ranges[best]!;
  // A short sentence ("Termination.") says more with the one after it.
  if (e - s < 80 && ranges[best + 1]) e = ranges[best + 1]![1];
  // A sentence the chunk cut at either end is completed from the document.
  return passageWindow(doc.text, s, e);
}

/** The quoted words: whole when short, else cut at a word with an ellipsis (the verifier trims it). */
function quoteOf(text: string): string {
  // Curly double quotes inside would end the quotation early; straight ones read the same (verification folds them).
  const t = text.replace(/\s+/g, ' ').replace(/[“”]/g, '"').trim();
  if (t.length <= QUOTE_CHARS) return t;
  const cut = t.slice(0, QUOTE_CHARS).replace(/\s+\S*$/, '');
  return `${cut}…`;
}

/** The extractive answer for `question` (its citations still go through verification like any answer's). */
export async function extractiveAnswer(o: ExtractiveOptions): Promise<ExtractiveAnswer> {
  const response = await o.tools.retrieve({ query: o.question, top_k: 12 }, o.signal);
  const picked = distinct(response.results, response.focus?.files.length === 1);
  if (!picked.length) return { answer: NOTHING_FOUND, seen: [] };
  // Within a document the question names, its name says nothing about which sentence answers: pick by the rest of the question.
  const about = response.focus?.query || o.question;
  const lines: string[] = [HEADINGS[o.why], ''];
  const seen: PassageItem[] = [];
  for (const r of picked) {
    const raw = await o.sourceText(r.file_id, r.version);
    const doc: SourceDoc | null = typeof raw === 'string' ? { text: raw } : raw;
    if (!doc) continue;
    const [s, e] = await bestSentences(about, doc, r.citation.start, r.citation.end, o.similarity);
    const quote = quoteOf(doc.text.slice(s, e));
    const pages = doc.pageStarts?.length ? pagesOf(doc.pageStarts, s, e) : r.citation.pages;
    const cite = o.ledger.issue({ file_id: r.file_id, file_name: r.file_name, version: r.version, pages, start: s, end: e });
    const title = doc.title || r.document_title || readableFileName(r.file_name);
    lines.push(`- ${title}, ${placeOf(doc, pages, s, e) ?? pagesText(pages)}: “${quote}” [cite:${cite.id}]`);
    seen.push({ cite: cite.id, file_name: r.file_name, pages, text: doc.text.slice(s, e), chunk_id: r.chunk_id, hash: r.hash });
  }
  if (seen.length === 0) return { answer: NOTHING_FOUND, seen: [] };
  return { answer: lines.join('\n'), seen };
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
  const order = ['needs_ocr', 'password', 'failed', 'unsupported', 'queued', 'parsing', 'embedding', 'indexing', 'cancelled'];
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  const parts = [...groups.entries()].sort(([a], [b]) => rank(a) - rank(b)).map(([, g]) => statusPhrase(g.status, g.reason, g.n));
  return `This case has no searchable documents yet: ${parts.join(', ')}. ${plural(files.length, 'file')} in all; the documents list says what to do for each.`;
}
