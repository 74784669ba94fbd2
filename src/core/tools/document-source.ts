import type { FileListing } from '../../shared/contract/search';
import type { Section, DocumentProfile, DatedEvent } from '../text/index';
import type { TranscriptLayout } from '../domain/index';
import type { EventMarks } from './chronology-marks';

/** One file of a case as the tools see it: the contract's listing, with `reason` always present ('' when none). */
export type DocumentInfo = FileListing & { reason: string };

/** The text of one version and where each page begins in it. */
export interface DocumentText {
  text: string;
  /** Character offset where page i+1 starts, ascending; pageStarts[0] is 0. */
  pageStarts: number[];
  /** Pages read by OCR → their mean word confidence (0–100); absent when none was. */
  ocrPages?: Map<number, number>;
  /** Pages that are units with a name of their own ("Sheet Billing", "Email body") → that name; absent for paged documents. */
  pageLabels?: ReadonlyMap<number, string>;
  /** Bates-stamped pages → their numbers. */
  pageBates?: ReadonlyMap<number, string>;
  /** A transcript's numbered lines. */
  transcript?: TranscriptLayout;
  /** The exhibit the document is ("Exhibit 14"). */
  exhibit?: string;
}

/** Where the tools read files and texts from: ingest's manifest and stored document text (see caseDocumentSource). */
export interface DocumentSource {
  listFiles(): Promise<DocumentInfo[]>;
  /** null when the version has no readable text. */
  readText(fileId: string, version: number): Promise<DocumentText | null>;
  /** The version's outline as sections (text/outline.ts); [] when it has no readable text. */
  readSections(fileId: string, version: number): Promise<Section[]>;
  /** The version's title and parties (text/profile.ts); null when it has no readable text. */
  readProfile(fileId: string, version: number): Promise<DocumentProfile | null>;
  /** The version's dated events (text/dates.ts); null when it has no readable text. */
  readEvents(fileId: string, version: number): Promise<DatedEvent[] | null>;
  /** What the lawyer marked the chronology's events (tools/chronology-marks.ts). */
  readMarks(): Promise<EventMarks>;
}

/** Statuses whose text can be read and searched. */
export function isReadable(status: string): boolean {
  return status === 'indexed' || status === 'unchanged';
}

export { pageAt, pagesOf } from '../text/index';
