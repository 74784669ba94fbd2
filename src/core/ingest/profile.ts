/**
 * What a document is, as a user names it: its title (from the outline, else the file name made
 * readable), its parties (from the preamble) and its preamble's words. Search uses it to focus a
 * question that names a document ("the marketing agreement with Zounds Hearing") and every chunk
 * carries the title as context. Pure: text and outline in.
 */
import { readableFileName } from '../util/names';
import type { Section } from './outline';

export interface DocumentProfile {
  title: string;
  parties: string[];
  /** Defined terms and where each is defined ("“Licensed Product” means …", (the “Agreement”)): how lawyers ask. */
  defined?: DefinedTerm[];
  /** The opening words (before the first article or section), where a contract names its parties. */
  preamble: string;
}

const PREAMBLE_CHARS = 1500;
const TITLE_CHARS = 120;

/** Headings above a title that are not one: exhibit numbers, "Table of Contents", "Execution Copy", "Confidential". */
const NOT_A_TITLE =
  /^(?:exhibit|ex\.?|annex|attachment)\s*[\d.\-a-z]{0,8}$|^(?:table of contents|contents|execution (?:copy|version)|confidential(?: treatment)?|draft|final|page \d+)$|^[\d\s.\-–]+$|^(?:\[?\*+\]?\s*)?(?:certain )?confidential (?:treatment|information)\b.*(?:requested|omitted|redacted|filed separately)/i;
const TITLE_WITHIN = 3000;

/** The outline's title (or the first heading of the opening words that is one), else the file name made readable. */
export function documentTitle(sections: readonly Section[], fileName: string): string {
  const heading = sections.find(
    (s) => s.start < TITLE_WITHIN && (s.kind === 'title' || (s.kind === 'other' && s.level === 1)) && s.title.trim().length >= 3 && !NOT_A_TITLE.test(s.title.trim()),
  );
  const t = heading ? heading.title.trim() : readableFileName(fileName);
  return t.length > TITLE_CHARS ? `${t.slice(0, TITLE_CHARS - 1).trimEnd()}…` : t;
}

/** The text before the first article or numbered section (at most 1,500 characters). */
export function preambleOf(text: string, sections: readonly Section[]): string {
  const body = sections.find((s) => s.kind === 'article' || s.kind === 'section' || s.kind === 'recitals');
  const end = Math.min(body && body.start > 200 ? body.start : PREAMBLE_CHARS, PREAMBLE_CHARS);
  return text.slice(0, end).replace(/\s+/g, ' ').trim();
}

const SUFFIXES = 'Inc|Incorporated|Corp|Corporation|Company|Co|LLC|L\\.L\\.C|Ltd|Limited|LLP|L\\.P|LP|PLC|GmbH|AG|S\\.A|N\\.V|B\\.V|Pty|SE|Trust|Bank|University|Association';
const SUFFIX = SUFFIXES.split('|').flatMap((x) => (x.toUpperCase() === x ? [x] : [x, x.toUpperCase()])).join('|');
const NAME_WORD = "(?:[A-Z][\\w&.'’-]*|of|and|&|the|de|du)";
/** "Zounds Hearing, Inc.", "AGAPE ATP INTERNATIONAL HOLDING LIMITED": capitalised words ending in a company form. */
const ENTITY = new RegExp(`\\b([A-Z][\\w&.'’-]*(?:[ \\t]+${NAME_WORD}){0,6}?,?[ \\t]+(?:${SUFFIX})\\b\\.?)`, 'g');
/** ("Zounds"), (the "Distributor"), (hereinafter referred to as ‘the Customer’) */
const DEFINED = /\(\s*(?:each\s+a\s+|the\s+|hereinafter\s+(?:referred\s+to\s+as\s+)?(?:the\s+)?)?["“‘']\s*(?:the\s+)?([^"”’']{2,40}?)\s*["”’']/g;

/**
 * Parties named in the preamble: company names ("Zounds Hearing, Inc.") and the short names they
 * are defined by when those are names, not roles: "Zounds" (a word of a company name or of the file
 * name) or "AP" (a company's initials), but not "the Distributor".
 */
export function findParties(preamble: string, fileName = ''): string[] {
  const entities = [...new Set([...preamble.matchAll(ENTITY)].map((m) => clean(m[1]!)))].filter((e) => e.length >= 2 && !GENERIC_ROLES.has(e.toLowerCase()));
  const known = `${entities.join(' ')} ${readableFileName(fileName)}`.toLowerCase();
  const initials = new Set(entities.map((e) => e.split(/\s+/).filter((w) => /^[A-Z]/.test(w) && !/^(?:Inc|Corp|Ltd|LLC|Co)\b/i.test(w)).map((w) => w[0]).join('')));
  const defined = [...preamble.matchAll(DEFINED)]
    .map((m) => clean(m[1]!))
    .filter((d) => !GENERIC_ROLES.has(d.toLowerCase()) && (new RegExp(`\\b${escape(d.toLowerCase())}\\b`).test(known) || initials.has(d)));
  const out: string[] = [];
  const seen = new Set<string>();
  for (const name of [...entities, ...defined]) {
    if (seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    out.push(name);
  }
  return out.slice(0, 8);
}

const clean = (raw: string) => raw.replace(/^(?:and|the|of)\s+/i, '').replace(/\s+/g, ' ').replace(/[,\s]+$/, '').trim();
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Defined names that are roles or the document itself, not parties. */
const GENERIC_ROLES = new Set(['agreement', 'this agreement', 'effective date', 'parties', 'party', 'the parties', 'amendment', 'contract']);

export interface DefinedTerm {
  term: string;
  /** The definition's range in the text: the quoted term through the end of its sentence (at most 600 characters). */
  start: number;
  end: number;
}

const MAX_DEFINED = 300;
/** “Licensed Product” means … / "Territory" shall mean … / (the “Agreement”) / (hereinafter “Seller”) */
const DEFINITION = /[“"]([A-Z][^"”\n]{1,60}?)[”"]\s*(?:shall\s+)?(?:means?|has the meaning|refers? to|includes?)\b|\(\s*(?:each\s+a\s+|collectively[, ]+|the\s+|hereinafter\s+(?:referred\s+to\s+as\s+)?(?:the\s+)?)?[“"]([A-Z][^"”\n]{1,60}?)[”"]\s*\)/g;

/** Every defined term of a document, first definition only, in text order. */
export function findDefinedTerms(text: string): DefinedTerm[] {
  const out: DefinedTerm[] = [];
  const seen = new Set<string>();
  for (const m of text.matchAll(DEFINITION)) {
    const term = (m[1] ?? m[2]!).replace(/\s+/g, ' ').trim();
    const key = term.toLowerCase();
    if (seen.has(key) || term.length < 2) continue;
    seen.add(key);
    const start = m.index;
    const stop = text.slice(start, start + 600).search(/[.;](\s|$)/);
    out.push({ term, start, end: start + (stop >= 0 ? stop + 1 : Math.min(600, text.length - start)) });
    if (out.length >= MAX_DEFINED) break;
  }
  return out;
}

/** A document's profile from its text and outline. */
export function profileOf(text: string, sections: readonly Section[], fileName: string): DocumentProfile {
  const preamble = preambleOf(text, sections);
  return { title: documentTitle(sections, fileName), parties: findParties(preamble, fileName), preamble, defined: findDefinedTerms(text) };
}
