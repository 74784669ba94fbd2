import path from 'node:path';
import { readJson, writeJsonAtomic } from '../util/fs';

/** The file of a case's digest, in its folder. */
export const DIGEST_FILE = 'digest.json';
/** The rules a stored digest was made by: one made by other rules is made again. */
export const DIGEST_FORMAT = 1;

/**
 * A case's digest: what a question asked outside any case is matched against, built at ingest
 * without a model from the documents' profiles, types and dates (ingest/case-digest.ts). It is all
 * that is searched across cases — never a passage — so it holds only these fields; the case's name
 * is read from case.json when a question is matched, so a rename needs no new digest.
 */
export interface CaseDigest {
  format: number;
  /** ISO time it was made. */
  updated: string;
  /** Readable documents it was made from. */
  documents: number;
  /** The parties the documents name (their profiles) and their court captions' names. */
  parties: string[];
  /** People the documents' dated events name more than once ("John Miller", "Dr. Patel"). */
  people: string[];
  /** Other names the documents use often and never in lower case: companies, products, places ("CyberKnife", "Detto"). */
  names: string[];
  /** The documents' titles (and short names, and a court paper's court). */
  titles: string[];
  /** Document types with how many of each ("contract", 3). */
  types: { type: string; count: number }[];
  /** The first and last date the documents give (YYYY-MM-DD), or null. */
  dates: { from: string; to: string } | null;
  /** The main subjects: the words the case's headings and texts use most that are not everyday or boilerplate words. */
  subjects: string[];
}

/** The case's digest, or undefined when none was made yet (a case ingested before digests) or by other rules. */
export async function readDigest(caseDir: string): Promise<CaseDigest | undefined> {
  const raw = (await readJson(path.join(caseDir, DIGEST_FILE)).catch(() => undefined)) as
    | Partial<CaseDigest>
    | undefined;
  if (
    !raw ||
    raw.format !== DIGEST_FORMAT ||
    !Array.isArray(raw.parties) ||
    !Array.isArray(raw.names) ||
    !Array.isArray(raw.subjects)
  )
    return undefined;
  return raw as CaseDigest;
}

/** Write the digest (atomically, like every case file). */
export function writeDigest(caseDir: string, digest: CaseDigest): Promise<void> {
  return writeJsonAtomic(path.join(caseDir, DIGEST_FILE), digest);
}

const TYPE_WORDS: Record<string, string> = {
  contract: 'contract',
  medical_record: 'medical record',
  police_report: 'police report',
  correspondence: 'letter',
  pleading: 'pleading',
  opinion: 'opinion',
  order: 'order',
  deposition: 'deposition',
  invoice: 'invoice',
  other: 'other document',
};

/** A document type in plain words, plural when there are several ("3 contracts"). */
export function typeWords(type: string, count: number): string {
  const word = TYPE_WORDS[type] ?? type.replace(/_/g, ' ');
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

const list = (items: readonly string[], max: number) =>
  items.length > max ? `${items.slice(0, max).join(', ')}…` : items.join(', ');

/** The digest in one line, for a choice between cases: documents, parties and people, dates, subjects. */
export function digestLine(digest: CaseDigest | undefined): string {
  if (!digest || digest.documents === 0) return 'No documents yet.';
  const parts = [digest.types.map((t) => typeWords(t.type, t.count)).join(', ')];
  const names = [...new Set([...digest.parties, ...digest.people])];
  if (names.length) parts.push(list(names, 4));
  if (digest.dates)
    parts.push(
      digest.dates.from.slice(0, 4) === digest.dates.to.slice(0, 4)
        ? digest.dates.from.slice(0, 4)
        : `${digest.dates.from.slice(0, 4)}–${digest.dates.to.slice(0, 4)}`,
    );
  if (digest.subjects.length) parts.push(`about ${list(digest.subjects, 5)}`);
  return parts.join(' · ');
}
