/** What the source viewer opens: a place in a document, as a citation chip, a search result or a row gives it. */
import type { FileVersionInfo } from '../../../shared/contract/ingest';
import type { CitationRecord } from '../../../shared/contract/search';

/** A range of a document: whole-document character offsets and the pages they touch. */
export interface SourceRange {
  start: number;
  end: number;
  pages: number[];
}

/** What a citation chip or search result points at: a citation record's place (its id aside). */
export interface SourceRef extends Omit<CitationRecord, 'id'> {
  /** Citation id or label shown in the viewer's title. */
  label?: string;
  kind?: FileVersionInfo['kind'] | undefined;
  /**
   * A chip opens on the supporting words (start/end/pages above); `whole` is the whole cited
   * passage, one click away ("Show the whole passage"), and back again.
   */
  whole?: SourceRange;
  /** The document's title and the place in words ("Sheet Billing, row 14"), for "Copy quote with citation". */
  title?: string;
  place?: string;
  /** A search's query: its words are marked on the pages (opened from a search result). */
  query?: string;
}
