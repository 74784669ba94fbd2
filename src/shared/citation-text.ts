/**
 * How a checked citation reads to a person, the same in the app, the CLI and the exports:
 * where it is ("Cardlytics Maintenance Agreement, p. 12"), what its verdict means, and the quote
 * with its citation for pasting into a brief. Pure TS.
 */
import type {
  ChatAnswer,
  ChatMessage,
  ChunkRef,
  CheckedCitation,
  PassageRelevance,
  SupportLevel,
} from './contract/chat';

/** The verdict of a citation: `support` when present, else derived from `status` (sessions saved before it). */
export function supportOf(c: Pick<CheckedCitation, 'status' | 'support'>): SupportLevel {
  if (c.support) return c.support;
  if (c.status === 'invented') return 'invented';
  return c.status === 'verified' ? 'quoted' : 'not_supported';
}

/** Green only for quoted and supported. */
export function isGreen(c: Pick<CheckedCitation, 'status' | 'support'>): boolean {
  const s = supportOf(c);
  return s === 'quoted' || s === 'supported';
}

export const SUPPORT_WORDS: Record<SupportLevel, string> = {
  quoted: 'Quoted',
  supported: 'Supported',
  not_supported: 'Not supported',
  invented: 'Invented',
};

/** How far a passage of the extractive answer answers the question, in words. */
export const RELEVANCE_WORDS: Record<PassageRelevance, string> = {
  answer: 'Likely answer',
  related: 'Related',
  closest: 'Closest, not an answer',
};

/**
 * What a citation's check says in words: for a passage of the extractive answer, its relevance and
 * that the words are exactly the document's ("Related · exact words"); else the verdict.
 */
export function checkWords(c: Pick<CheckedCitation, 'status' | 'support' | 'relevance'>): string {
  if (c.relevance && isGreen(c)) return `${RELEVANCE_WORDS[c.relevance]} · exact words`;
  return SUPPORT_WORDS[supportOf(c)];
}

/** "p. 12" or "pp. 12–13". */
export function pagesText(pages: readonly number[] | undefined): string {
  if (!pages?.length) return '';
  const lo = Math.min(...pages);
  const hi = Math.max(...pages);
  return lo === hi ? `p. ${lo}` : `pp. ${lo}–${hi}`;
}

/** "Cardlytics Maintenance Agreement, p. 12" (the title when known, else the file name). */
export function citationPlace(c: Pick<CheckedCitation, 'title' | 'file_name' | 'pages' | 'span' | 'place'>): string {
  const name = c.title || c.file_name || 'unknown document';
  const pages = c.place || pagesText(c.span?.pages?.length ? c.span.pages : c.pages);
  return pages ? `${name}, ${pages}` : name;
}

/** The supporting words, one line, shortened in the middle past `max` characters. */
/** Pages read by OCR under this mean word confidence are flagged: "check the original". */
export const LOW_OCR_CONFIDENCE = 80;

/** "p. 4 was read by OCR with 61% confidence — check the original" for a citation on an unsure OCR page, else ''. */
export function ocrCitationNote(c: Pick<CheckedCitation, 'ocr_confidence' | 'pages' | 'span'>): string {
  if (c.ocr_confidence === undefined || c.ocr_confidence >= LOW_OCR_CONFIDENCE) return '';
  const pages = c.span?.pages ?? c.pages ?? [];
  return `${pages.length ? `${pagesText(pages)} was` : 'it was'} read by OCR with ${Math.round(c.ocr_confidence)}% confidence — check the original`;
}

export function quoteText(c: Pick<CheckedCitation, 'span'>, max = 400): string {
  const t = (c.span?.text ?? '').replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const half = Math.floor((max - 3) / 2);
  return `${t.slice(0, half).trimEnd()} … ${t.slice(t.length - half).trimStart()}`;
}

/** `“…words…” Cardlytics Maintenance Agreement, p. 12` — the quote with its citation. */
export function quoteWithCitation(
  c: Pick<CheckedCitation, 'span' | 'title' | 'file_name' | 'pages' | 'place'>,
): string {
  const q = quoteText(c);
  return q ? `“${q}” ${citationPlace(c)}` : citationPlace(c);
}

/** A turn's answer as its session keeps it (the app shows a fresh answer the same way). */
export function answerMessage(result: ChatAnswer, id: string, created: string, refs?: ChunkRef[]): ChatMessage {
  return {
    id,
    role: 'assistant',
    content: result.answer,
    turn_id: result.turn_id,
    created,
    status: result.status,
    citations: result.citations,
    steps: result.steps,
    coverage: result.coverage,
    grounded: result.grounded,
    standalone_question: result.standalone_question,
    ...(refs ? { refs } : {}),
    model: result.model,
    ...(result.answer_kind ? { answer_kind: result.answer_kind } : {}),
    ...(result.fallback ? { fallback: result.fallback } : {}),
    ...(result.limited_to ? { limited_to: result.limited_to } : {}),
    ...(result.searches !== undefined ? { searches: result.searches } : {}),
    ...(result.earlier ? { earlier: result.earlier } : {}),
  };
}
