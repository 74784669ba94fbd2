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
  /** The opening words (before the first article or section), where a contract names its parties. */
  preamble: string;
}

const PREAMBLE_CHARS = 1500;
const TITLE_CHARS = 120;

/** The outline's title, else the file name made readable. */
export function documentTitle(sections: readonly Section[], fileName: string): string {
  const title = sections.find((s) => s.kind === 'title')?.title.trim();
  const t = title && title.length >= 3 ? title : readableFileName(fileName);
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

/** Parties named in the preamble: company names ("Zounds Hearing, Inc.") and the short names they are defined by ("Zounds"). */
export function findParties(preamble: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (raw: string) => {
    const name = raw.replace(/^(?:and|the|of)\s+/i, '').replace(/\s+/g, ' ').replace(/[,\s]+$/, '').trim();
    const key = name.toLowerCase();
    if (name.length < 2 || seen.has(key) || GENERIC_ROLES.has(key)) return;
    seen.add(key);
    out.push(name);
  };
  for (const m of preamble.matchAll(ENTITY)) add(m[1]!);
  for (const m of preamble.matchAll(DEFINED)) add(m[1]!);
  return out.slice(0, 8);
}

/** Defined names that are roles or the document itself, not parties. */
const GENERIC_ROLES = new Set(['agreement', 'this agreement', 'effective date', 'parties', 'party', 'the parties', 'amendment', 'contract']);

/** A document's profile from its text and outline. */
export function profileOf(text: string, sections: readonly Section[], fileName: string): DocumentProfile {
  const preamble = preambleOf(text, sections);
  return { title: documentTitle(sections, fileName), parties: findParties(preamble), preamble };
}
