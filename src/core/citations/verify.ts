/**
 * Checks the citations of an answer: every `[cite:id]` must name a record issued in this
 * conversation, and text the sentence quotes must be found (whitespace-, case- and
 * quote-style-normalised) in the cited span of the source. Pure logic over a lookup and a
 * text source, so every shell gets the same verdicts.
 */
import type { CheckedCitation } from '../../shared/contract/chat';
import type { CitationRecord } from '../../shared/contract/search';

export interface CitationLookup {
  get(id: string): CitationRecord | undefined;
}

/** The document text of one file version; null when it cannot be read. */
export type SourceText = (fileId: string, version: number) => Promise<string | null>;

export interface VerificationResult {
  citations: CheckedCitation[];
  /** At least one citation verified. */
  grounded: boolean;
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

const ABBREVIATION = /(?:^|[\s(])(?:[A-Za-z]|Dr|Mr|Mrs|Ms|Prof|Inc|Ltd|Co|Corp|No|Nos|v|vs|St|Jr|Sr|Sec|Art|para|p|pp|e\.g|i\.e|etc|U\.S|cf|al)$/i;

/** [start, end) of each quoted stretch, so sentence ends inside a quote are not taken as ends. */
function quoteRanges(text: string): Array<[number, number]> {
  return [...text.matchAll(/"[^"]*"|“[^”]*”|«[^»]*»/g)].map((m) => [m.index, m.index + m[0].length] as [number, number]);
}

/**
 * Sentence ranges of `text`; a cite placed right after a sentence's full stop belongs to that
 * sentence. Full stops inside quotes and after common abbreviations (Dr., Inc., No., v.) do not end one.
 */
function sentenceRanges(text: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  const quotes = quoteRanges(text);
  let start = 0;
  const re = /[.!?](?=["”’')\]]*\s)|\n+/g;
  for (const m of text.matchAll(re)) {
    if (m[0][0] !== '\n') {
      if (quotes.some(([qs, qe]) => m.index > qs && m.index < qe - 1)) continue;
      if (m[0] === '.' && ABBREVIATION.test(text.slice(Math.max(0, m.index - 8), m.index))) continue;
    }
    let end = m.index + m[0].length;
    // Pull trailing closing quotes and following cite markers into this sentence.
    const rest = text.slice(end);
    const trailing = /^["”’')\]]*(?:\s*\[cite:[^\]]*\])*/.exec(rest);
    if (trailing) end += trailing[0].length;
    if (end > start) ranges.push([start, end]);
    start = end;
  }
  if (start < text.length) ranges.push([start, text.length]);
  return ranges;
}

const QUOTE_RE = /"([^"]{3,}?)"|“([^”]{3,}?)”|«([^»]{3,}?)»/g;

/** Text quoted in a sentence (straight, curly or guillemet quotes; at least 3 characters). */
export function quotesIn(sentence: string): string[] {
  const out: string[] = [];
  const withoutCites = sentence.replace(/\[cite:[^\]]*\]/g, ' ');
  for (const m of withoutCites.matchAll(QUOTE_RE)) {
    const q = (m[1] ?? m[2] ?? m[3] ?? '').trim();
    // Strip the ellipses people put at the ends of a shortened quote.
    const cleaned = q.replace(/^(?:\.\.\.|…)\s*/, '').replace(/\s*(?:\.\.\.|…)$/, '').trim();
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

/** Check every citation of `answer`. */
export async function verifyCitations(answer: string, lookup: CitationLookup, sourceText: SourceText): Promise<VerificationResult> {
  const mentions = findCites(answer);
  const sentences = sentenceRanges(answer);
  const sentenceOf = (at: number): string => {
    const r = sentences.find(([s, e]) => at >= s && at < e) ?? [0, answer.length];
    return answer.slice(r[0], r[1]);
  };
  const texts = new Map<string, Promise<string | null>>();
  const textOf = (r: CitationRecord) => {
    const key = `${r.file_id}\u0000${r.version}`;
    let t = texts.get(key);
    if (!t) {
      t = sourceText(r.file_id, r.version).catch(() => null);
      texts.set(key, t);
    }
    return t;
  };

  // Group by sentence so a quote can be satisfied by any cite of its sentence.
  const bySentence = new Map<string, CiteMention[]>();
  for (const m of mentions) {
    const s = sentenceOf(m.at);
    const list = bySentence.get(s) ?? [];
    list.push(m);
    bySentence.set(s, list);
  }

  const checked: CheckedCitation[] = [];
  const seen = new Set<string>();
  for (const [sentence, group] of bySentence) {
    const quotes = quotesIn(sentence);
    // Which quotes each cite of the sentence contains.
    const found = new Map<string, string[]>();
    for (const m of group) {
      const r = lookup.get(m.id);
      if (!r || !quotes.length) continue;
      const src = await textOf(r);
      if (src === null) continue;
      found.set(m.id, quotes.filter((q) => quoteInSpan(q, src, r.start, r.end)));
    }
    const satisfied = new Set([...found.values()].flat());
    for (const m of group) {
      const key = `${m.id}\u0000${sentence}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const r = lookup.get(m.id);
      if (!r) {
        checked.push({ id: m.id, status: 'invented', verified: false, reason: 'invented: no tool returned this citation id in this conversation' });
        continue;
      }
      const base = { id: m.id, file_id: r.file_id, file_name: r.file_name, version: r.version, pages: [...r.pages], start: r.start, end: r.end };
      if (!quotes.length) {
        checked.push({ ...base, status: 'verified', verified: true, reason: 'the id was issued by a tool in this conversation; the sentence quotes nothing to check' });
        continue;
      }
      const src = await textOf(r);
      if (src === null) {
        checked.push({ ...base, quotes, status: 'not_verified', verified: false, reason: `the text of ${r.file_name} v${r.version} could not be read to check the quote` });
        continue;
      }
      const mine = found.get(m.id) ?? [];
      const missing = quotes.filter((q) => !satisfied.has(q));
      if (mine.length && !missing.length) {
        checked.push({ ...base, quotes, status: 'verified', verified: true, reason: `quoted text found in ${r.file_name} p.${r.pages.join('-')}` });
      } else {
        const q = (mine.length ? missing : quotes)[0]!;
        checked.push({ ...base, quotes, status: 'not_verified', verified: false, reason: `quote not found: "${trimQuote(q)}" is not in the cited passage of ${r.file_name}` });
      }
    }
  }
  // One entry per id (the first verdict that failed wins, so a bad use of an id is not hidden by a good one).
  const byId = new Map<string, CheckedCitation>();
  for (const c of checked) {
    const prev = byId.get(c.id);
    if (!prev || (prev.verified && !c.verified)) byId.set(c.id, c);
  }
  const citations = [...byId.values()];
  return { citations, grounded: citations.some((c) => c.verified) };
}
